using System;
using System.IO;
using Microsoft.VisualStudio.TestTools.UnitTesting;

// Scenarios change the process's current directory and environment around each stock run: one at a time.
[assembly: DoNotParallelize]

// The harness uses Unix file modes, hard links, chattr and /dev/shm.
[assembly: System.Runtime.Versioning.SupportedOSPlatform("linux")]

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure
{
    /// <summary>Parity.Tests' cleanup (the set-up is the one linked from Tests/Infrastructure/TestAssembly.cs).</summary>
    public static partial class TestAssembly
    {
        static partial void CleanUp() => Microsoft.Build.CopyOnWrite.Parity.Tests.Scratch.DeleteAll();
    }
}

namespace Microsoft.Build.CopyOnWrite.Parity.Tests
{
    /// <summary>One scratch root per run on the temp volume (ext4 here) and one on /dev/shm (tmpfs: another volume).</summary>
    public static class Scratch
    {
        private static readonly Lazy<string?> TempRoot = new(() => Create(Path.Combine(Path.GetTempPath(), "cow-parity-" + Environment.ProcessId)));

        private static readonly Lazy<string?> ShmRoot = new(() =>
            Directory.Exists("/dev/shm") ? Create(Path.Combine("/dev/shm", "cow-parity-" + Environment.ProcessId)) : null);

        public static string Root => TempRoot.Value!;

        /// <summary>A folder on another file system than <see cref="Root"/>, or null where there is none.</summary>
        public static string? OtherVolumeRoot => ShmRoot.Value;

        public static void DeleteAll()
        {
            foreach (Lazy<string?> root in new[] { TempRoot, ShmRoot })
            {
                if (root.IsValueCreated && root.Value is string folder && Directory.Exists(folder))
                {
                    Tree.ForceDelete(folder);
                }
            }
        }

        private static string Create(string folder)
        {
            Directory.CreateDirectory(folder);
            return folder;
        }
    }
}
