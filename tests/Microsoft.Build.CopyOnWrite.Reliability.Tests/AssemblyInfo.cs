// Loop mounts, chattr, signals, setpriv and Unix file modes: these tests are Linux-only by nature.
[assembly: System.Runtime.Versioning.SupportedOSPlatform("linux")]

// They mount, remount and fill file systems and time child processes: one test at a time.
[assembly: Microsoft.VisualStudio.TestTools.UnitTesting.DoNotParallelize]
