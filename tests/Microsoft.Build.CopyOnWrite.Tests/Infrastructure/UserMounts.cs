using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>Mounts made for one test, unmounted (last first) and their folders removed when disposed.</summary>
public sealed class Mounts : IDisposable
{
    private readonly List<string> _points = new();

    /// <summary>What the mounts are, as docs/volumes.md's table names the row.</summary>
    public string What { get; init; } = string.Empty;

    /// <summary>The folder files are copied from (holds payload.bin, 200 KiB of random data).</summary>
    public string Source { get; init; } = string.Empty;

    /// <summary>The folder they are copied into, as a build's output would be.</summary>
    public string Destination { get; init; } = string.Empty;

    internal void Add(string point) => _points.Add(point);

    public void Dispose()
    {
        foreach (string point in Enumerable.Reverse(_points))
        {
            ProcessRunner.Run("umount", "-l", point);
            try
            {
                Directory.Delete(point);
            }
            catch (IOException)
            {
                // Busy for a moment after a lazy unmount; the scratch root goes at the end of the run.
            }
        }
    }
}

/// <summary>
/// The places users build that are not a plain volume, made for real: btrfs subvolumes mounted apart, a bind mount,
/// overlayfs (as container engines stack layers) on XFS and on ext4, fuse-overlayfs (rootless containers) and tmpfs.
/// Each needs root (and fuse-overlayfs its program); without them the test ends as skipped with the reason.
/// </summary>
public static class UserMounts
{
    public const string Payload = "payload.bin";

    /// <summary>Two subvolumes of one btrfs, each mounted at its own folder (`mount -o subvol=`), as Fedora mounts / and /home.</summary>
    public static Mounts BtrfsSubvolumes()
    {
        LoopFileSystem btrfs = LoopFileSystems.Btrfs;
        string device = SourceOf(btrfs.MountPoint);
        string id = Guid.NewGuid().ToString("N")[..6];
        var mounts = new Mounts { What = "btrfs subvolumes mounted apart", Source = NewPoint("subvol-a"), Destination = NewPoint("subvol-b") };
        try
        {
            foreach ((string subvolume, string point) in new[] { ($"sv-{id}-a", mounts.Source), ($"sv-{id}-b", mounts.Destination) })
            {
                Must(ProcessRunner.Run("btrfs", "subvolume", "create", Path.Combine(btrfs.MountPoint, subvolume)), "btrfs subvolume create");
                Must(ProcessRunner.Run("mount", "-o", $"subvol={subvolume}", device, point), $"mount -o subvol={subvolume}");
                mounts.Add(point);
            }
        }
        catch
        {
            mounts.Dispose();
            throw;
        }

        WritePayload(mounts.Source);
        return mounts;
    }

    /// <summary>A folder of the XFS volume bind-mounted elsewhere: files go from the volume's own path into the bind mount.</summary>
    public static Mounts BindMount()
    {
        LoopFileSystem xfs = LoopFileSystems.Xfs;
        string source = xfs.NewFolder("bind-source");
        string point = NewPoint("bind");
        Must(ProcessRunner.Run("mount", "--bind", xfs.NewFolder("bind-target"), point), "mount --bind");
        var mounts = new Mounts { What = "a bind mount of an XFS folder", Source = source, Destination = point };
        mounts.Add(point);
        WritePayload(source);
        return mounts;
    }

    /// <summary>
    /// overlayfs with its lower, upper and work folders on <paramref name="under"/>, as a container's root: payload.bin is
    /// in the lower layer (an image's file), copied into a folder made in the merged view (written to the upper layer).
    /// </summary>
    public static Mounts Overlay(LoopFileSystem under)
    {
        string options = Layers(under, "overlay");
        string point = NewPoint("overlay");
        Must(ProcessRunner.Run("mount", "-t", "overlay", "overlay", "-o", options, point), "mount -t overlay");
        return Merged($"overlayfs on {under.Kind}", point);
    }

    /// <summary>fuse-overlayfs (rootless Podman's overlay) with its layers on <paramref name="under"/>, laid out as <see cref="Overlay"/>.</summary>
    public static Mounts FuseOverlay(LoopFileSystem under)
    {
        string options = Layers(under, "fuse-overlay");
        string point = NewPoint("fuse-overlay");
        ProcessResult mount;
        try
        {
            mount = ProcessRunner.Run("fuse-overlayfs", "-o", options, point);
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            Assert.Inconclusive($"SKIPPED: fuse-overlayfs is not installed ({e.Message}); .ci/run installs Debian's fuse-overlayfs package");
            throw;
        }

        if (!mount.Succeeded)
        {
            Assert.Inconclusive($"SKIPPED: fuse-overlayfs could not mount (no /dev/fuse in this container?): {mount.Output.Trim()}");
        }

        return Merged($"fuse-overlayfs on {under.Kind}", point);
    }

    /// <summary>Lower (with src/payload.bin, an image's file), upper and work folders on <paramref name="under"/>: the overlay's -o options.</summary>
    private static string Layers(LoopFileSystem under, string purpose)
    {
        string layers = under.NewFolder(purpose);
        string lower = Directory.CreateDirectory(Path.Combine(layers, "lower", "src")).Parent!.FullName;
        string upper = Directory.CreateDirectory(Path.Combine(layers, "upper")).FullName;
        string work = Directory.CreateDirectory(Path.Combine(layers, "work")).FullName;
        WritePayload(Path.Combine(lower, "src"));
        return $"lowerdir={lower},upperdir={upper},workdir={work}";
    }

    /// <summary>The merged view at <paramref name="point"/>: src/ from the lower layer, out/ made in it (so in the upper layer).</summary>
    private static Mounts Merged(string what, string point)
    {
        var mounts = new Mounts { What = what, Source = Path.Combine(point, "src"), Destination = Directory.CreateDirectory(Path.Combine(point, "out")).FullName };
        mounts.Add(point);
        return mounts;
    }

    /// <summary>A tmpfs of 64 MiB (as /tmp is on many distributions), source and destination both in it.</summary>
    public static Mounts Tmpfs()
    {
        string point = NewPoint("tmpfs");
        Must(ProcessRunner.Run("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", point), "mount -t tmpfs");
        var mounts = new Mounts { What = "tmpfs", Source = Directory.CreateDirectory(Path.Combine(point, "src")).FullName, Destination = Directory.CreateDirectory(Path.Combine(point, "out")).FullName };
        mounts.Add(point);
        WritePayload(mounts.Source);
        return mounts;
    }

    /// <summary>Whether the kernel clones payload.bin from the source into the destination: coreutils' `cp --reflink=always`, not our code.</summary>
    public static ProcessResult KernelClone(Mounts mounts)
        => ProcessRunner.Run("cp", "--reflink=always", Path.Combine(mounts.Source, Payload), Path.Combine(mounts.Destination, "by-cp.bin"));

    private static void WritePayload(string folder)
    {
        byte[] bytes = new byte[200 * 1024];
        Random.Shared.NextBytes(bytes);
        File.WriteAllBytes(Path.Combine(folder, Payload), bytes);
    }

    private static string NewPoint(string purpose)
    {
        if (!OperatingSystem.IsLinux() || !Environment.IsPrivilegedProcess)
        {
            Assert.Inconclusive("SKIPPED: mounting needs root on Linux (run the tests as root, as CI does)");
        }

        return Directory.CreateDirectory(Path.Combine(LoopFileSystems.ScratchFolder, $"{purpose}-{Guid.NewGuid():N}"[..(purpose.Length + 9)])).FullName;
    }

    /// <summary>The device a mount point was mounted from (mountinfo's field after the file system).</summary>
    private static string SourceOf(string mountPoint)
    {
        foreach (string line in File.ReadLines("/proc/self/mountinfo"))
        {
            string[] fields = line.Split(' ');
            int separator = Array.IndexOf(fields, "-", 6);
            if (fields.Length > 4 && fields[4] == mountPoint && separator > 0 && separator + 2 < fields.Length)
            {
                return fields[separator + 2];
            }
        }

        Assert.Inconclusive($"SKIPPED: {mountPoint} is not in /proc/self/mountinfo");
        return string.Empty;
    }

    private static void Must(ProcessResult result, string what)
    {
        if (!result.Succeeded)
        {
            Assert.Inconclusive($"SKIPPED: {what} failed here, so this place cannot be made: {result.Output.Trim()}");
        }
    }
}
