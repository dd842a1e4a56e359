using System;
using System.Collections.Concurrent;
using System.IO;
using System.Linq;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>A real file system in a loop-mounted image file, made by the tests themselves.</summary>
public sealed class LoopFileSystem : IDisposable
{
    internal LoopFileSystem(string kind, string imagePath, string mountPoint)
    {
        Kind = kind;
        ImagePath = imagePath;
        MountPoint = mountPoint;
    }

    /// <summary>"xfs", "btrfs" or "ext4" ("xfs-noreflink": XFS made without reflink).</summary>
    public string Kind { get; }

    public string ImagePath { get; }

    public string MountPoint { get; }

    /// <summary>A new empty folder on this file system.</summary>
    public string NewFolder(string purpose)
    {
        string folder = Path.Combine(MountPoint, purpose + "-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(folder);
        return folder;
    }

    public void Dispose()
    {
        ProcessRunner.Run("umount", "-l", MountPoint);
        try
        {
            Directory.Delete(MountPoint);
            File.Delete(ImagePath);
        }
        catch (IOException)
        {
            // A lazily unmounted folder can stay busy for a moment; the scratch root is removed at the end anyway.
        }
    }

    public override string ToString() => $"{Kind} at {MountPoint}";
}

/// <summary>
/// The clone-capable (XFS with reflink, btrfs) and clone-incapable (ext4) file systems the tests run on,
/// each made once per test run. Without root or loop devices a test that needs one is reported as
/// skipped with the reason (Assert.Inconclusive), never passed silently.
/// </summary>
public static class LoopFileSystems
{
    private static readonly ConcurrentDictionary<string, Lazy<(LoopFileSystem? FileSystem, string? Problem)>> Shared = new();
    private static readonly ConcurrentBag<LoopFileSystem> Owned = new();

    public static LoopFileSystem Xfs => Require("xfs");

    public static LoopFileSystem Btrfs => Require("btrfs");

    public static LoopFileSystem Ext4 => Require("ext4");

    /// <summary>The shared file system of that kind, or the test ends as skipped with the reason.</summary>
    public static LoopFileSystem Require(string kind)
    {
        (LoopFileSystem? fileSystem, string? problem) = Shared.GetOrAdd(kind, k => new Lazy<(LoopFileSystem?, string?)>(() => TryCreate(k, sizeMiB: 3072))).Value;
        if (fileSystem is null)
        {
            Assert.Inconclusive($"SKIPPED: this test needs a loop-mounted {kind} file system, and none could be made: {problem}");
        }

        return fileSystem!;
    }

    /// <summary>
    /// A file system of its own, e.g. to fill it up; dispose it to unmount. Its image and mount point are in
    /// <see cref="ScratchFolder"/> unless named: <see cref="KeptFolder"/> for a volume as a user keeps one.
    /// </summary>
    public static LoopFileSystem RequireNew(string kind, int sizeMiB, string? imageFolder = null, string? mountFolder = null)
    {
        (LoopFileSystem? fileSystem, string? problem) = TryCreate(kind, sizeMiB, imageFolder, mountFolder);
        if (fileSystem is null)
        {
            Assert.Inconclusive($"SKIPPED: this test needs a loop-mounted {kind} file system of {sizeMiB} MiB, and none could be made: {problem}");
        }

        return fileSystem!;
    }

    public static void UnmountAll()
    {
        while (Owned.TryTake(out LoopFileSystem? fileSystem))
        {
            fileSystem.Dispose();
        }

        DeleteIfEmpty(KeptFolder);
        DeleteIfEmpty(ScratchFolder);
    }

    private static void DeleteIfEmpty(string folder)
    {
        if (Directory.Exists(folder) && !Directory.EnumerateFileSystemEntries(folder).Any())
        {
            Directory.Delete(folder);
        }
    }

    /// <summary>Where the tests' volumes live by default: images on the machine's own disk, not in /tmp, which may be a tmpfs of limited size.</summary>
    public static string ScratchFolder => Path.Combine("/var/tmp", $"cow-tests-{Environment.ProcessId}");

    /// <summary>A folder outside every temp folder, for a volume as a user keeps one (the doctor proposes no scratch volume).</summary>
    public static string KeptFolder => Path.Combine("/mnt", $"cow-tests-{Environment.ProcessId}");

    private static (LoopFileSystem?, string?) TryCreate(string kind, int sizeMiB, string? imageFolder = null, string? mountFolder = null)
    {
        if (!OperatingSystem.IsLinux())
        {
            return (null, "loop mounts are a Linux feature");
        }

        if (!Environment.IsPrivilegedProcess)
        {
            return (null, "mounting needs root (run the tests as root, as CI does)");
        }

        (string program, string[] options, _) = Measure.MeasuredVolume.Format(kind == "xfs-noreflink" ? "xfs" : kind, reflink: kind != "xfs-noreflink");
        string[] mkfs = [program, .. options];

        string id = kind + "-" + Guid.NewGuid().ToString("N")[..6];
        string image = Path.Combine(Directory.CreateDirectory(imageFolder ?? ScratchFolder).FullName, id + ".img");
        string mountPoint = Path.Combine(Directory.CreateDirectory(mountFolder ?? imageFolder ?? ScratchFolder).FullName, id);
        Directory.CreateDirectory(mountPoint);
        using (FileStream stream = File.Create(image))
        {
            stream.SetLength((long)sizeMiB << 20); // sparse: only what the tests write takes disk space
        }

        ProcessResult format;
        try
        {
            format = ProcessRunner.Run(mkfs[0], [.. mkfs[1..], image]);
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            return (null, $"{mkfs[0]} is not installed ({e.Message}); .ci/run installs xfsprogs and btrfs-progs");
        }

        if (!format.Succeeded)
        {
            return (null, $"{mkfs[0]} failed: {format.Output.Trim()}");
        }

        ProcessResult mount = ProcessRunner.Run("mount", "-o", "loop", image, mountPoint);
        if (!mount.Succeeded)
        {
            return (null, $"mount -o loop failed (no loop devices in this container?): {mount.Output.Trim()}");
        }

        var fileSystem = new LoopFileSystem(kind, image, mountPoint);
        Owned.Add(fileSystem);
        return (fileSystem, null);
    }
}
