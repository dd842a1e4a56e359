using System;
using System.IO;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;

/// <summary>
/// Faults made with the system's own tools, each undone on Dispose so one test cannot break the next:
/// immutable files and folders (chattr +i: even root cannot write them), bind mounts, read-only remounts.
/// </summary>
public sealed class Fault : IDisposable
{
    private readonly string[] _undo;
    private bool _undone;

    private Fault(string[] undo) => _undo = undo;

    /// <summary>chattr +i: no new entry, rename, delete or write, for root too (chmod does not stop root).</summary>
    public static Fault Immutable(string path)
    {
        Must("chattr", "+i", path);
        return new Fault(["chattr", "-i", path]);
    }

    /// <summary>`mount --bind`: the same folder (same file system, same inodes) seen at a second path.</summary>
    public static Fault BindMount(string folder, string view)
    {
        Directory.CreateDirectory(view);
        Must("mount", "--bind", folder, view);
        return new Fault(["umount", view]);
    }

    /// <summary>`mount -o remount,ro`: the whole file system becomes read-only (EROFS) until Dispose.</summary>
    public static Fault ReadOnlyRemount(string mountPoint)
    {
        ProcessRunner.Run("sync");
        Must("mount", "-o", "remount,ro", mountPoint);
        return new Fault(["mount", "-o", "remount,rw", mountPoint]);
    }

    public void Dispose()
    {
        if (!_undone)
        {
            _undone = true;
            ProcessRunner.Run(_undo[0], _undo[1..]);
        }
    }

    public static void Must(string program, params string[] arguments)
    {
        ProcessResult result = ProcessRunner.Run(program, arguments);
        Assert.IsTrue(result.Succeeded, $"{program} {string.Join(' ', arguments)} failed: {result.Output}");
    }
}
