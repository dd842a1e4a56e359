#if NET
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>
/// Linux: the mount point and file system from /proc/self/mountinfo (longest mount holding the real path); whether it
/// clones from a probe clone (FICLONE) of a file of our own in the folder, since Linux has no flag for it.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxVolumes : IVolumeInspector
{
    private const int EOPNOTSUPP = 95;

    private readonly TimeSpan _mountTableLifetime;
    private readonly object _lock = new();
    private Mount[]? _mounts;
    private long _readAt;

    public LinuxVolumes(TimeSpan mountTableLifetime) => _mountTableLifetime = mountTableLifetime;

    public VolumeLocation Locate(string path)
    {
        Mount mount = MountOf(RealPath(VolumeCatalog.NearestExisting(path)));
        return new VolumeLocation(mount.Point, mount.FileSystem, mount.Device);
    }

    public bool? CanClone(string folder) => CanCloneByProbe(ProbeClone(VolumeCatalog.NearestExisting(folder)));

    /// <summary>What <see cref="ProbeClone"/>'s answer says: 0 clones; a refusal that means the file system cannot clone (or the clone would cross file systems), no; anything else, unknown.</summary>
    internal static bool? CanCloneByProbe(int probe)
        => probe == 0 ? true
            : probe > 0 && CloneErrors.ClassifyLinux(probe) is FallbackReason.FileSystemCannotClone or FallbackReason.DifferentVolumes ? false
            : null;

    private const int OpenReadWrite = 2;
    private const int EISDIR = 21;

    /// <summary>
    /// Clones a small file of our own in <paramref name="folder"/>: 0, FICLONE's errno, or -1 when none could be made. Unnamed
    /// files (O_TMPFILE) leave nothing whatever stops the process; else named dot files, unlinked as soon as open.
    /// </summary>
    internal static int ProbeClone(string folder)
    {
        if (LinuxNative.FicloneRequestFor(RuntimeInformation.ProcessArchitecture) is not nuint ficlone)
        {
            return LinuxNative.ENOSYS;
        }

        return LinuxNative.UnnamedFileFlagFor(RuntimeInformation.ProcessArchitecture) is int unnamed && ProbeCloneUnnamed(folder, unnamed, ficlone) is int result
            ? result
            : ProbeCloneNamed(folder, ficlone);
    }

    /// <summary>The probe with unnamed files; null when the file system has none (the named probe then runs).</summary>
    private static int? ProbeCloneUnnamed(string folder, int unnamed, nuint ficlone)
    {
        int source = LinuxNative.Open(folder, unnamed | OpenReadWrite | LinuxNative.OpenCloseOnExec, 0x180 /* 0600 */);
        if (source < 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            return errno is EOPNOTSUPP or EISDIR or LinuxNative.EINVAL or LinuxNative.ENOSYS ? null : -1;
        }

        using var original = new Microsoft.Win32.SafeHandles.SafeFileHandle(source, ownsHandle: true);
        try
        {
            RandomAccess.Write(original, new byte[65536], 0); // data, not a hole: there must be an extent to share
        }
        catch (IOException)
        {
            return -1;
        }

        int destination = LinuxNative.Open(folder, unnamed | OpenReadWrite | LinuxNative.OpenCloseOnExec, 0x180);
        if (destination < 0)
        {
            return -1;
        }

        using var copy = new Microsoft.Win32.SafeHandles.SafeFileHandle(destination, ownsHandle: true);
        return LinuxNative.Clone(destination, source, ficlone);
    }

    private static int ProbeCloneNamed(string folder, nuint ficlone)
    {
        string source = AtomicFile.TemporaryPathBeside(Path.Combine(folder, "cow-probe"));
        string clone = AtomicFile.TemporaryPathBeside(Path.Combine(folder, "cow-probe-clone"));
        try
        {
            using var original = new FileStream(source, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None, 4096, FileOptions.DeleteOnClose);
            AtomicFile.DeleteQuietly(source); // open: it works on without a name
            original.Write(new byte[65536], 0, 65536); // data, not a hole: there must be an extent to share
            original.Flush();
            using var copy = new FileStream(clone, FileMode.CreateNew, FileAccess.Write, FileShare.None, 4096, FileOptions.DeleteOnClose);
            AtomicFile.DeleteQuietly(clone);
            return LinuxNative.Clone((int)copy.SafeFileHandle.DangerousGetHandle(), (int)original.SafeFileHandle.DangerousGetHandle(), ficlone);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return -1;
        }
        finally
        {
            AtomicFile.DeleteQuietly(clone);
            AtomicFile.DeleteQuietly(source);
        }
    }

    private Mount MountOf(string path)
    {
        foreach (Mount mount in Mounts())
        {
            if (mount.Point == "/" || path == mount.Point || path.StartsWith(mount.Point + "/", StringComparison.Ordinal))
            {
                return mount;
            }
        }

        return new Mount("/", "unknown", null);
    }

    /// <summary>The mount table, longest mount point first, reused for the lifetime given.</summary>
    private Mount[] Mounts()
    {
        lock (_lock)
        {
            if (_mounts is null || Stopwatch.GetTimestamp() - _readAt > _mountTableLifetime.TotalSeconds * Stopwatch.Frequency)
            {
                // Longest first, so the first mount that holds a path is its own (two of one length cannot both hold it).
                // Array.Sort, not LINQ: no generic code for the JIT to compile in every MSBuild node.
                Mount[] mounts = ReadMounts().ToArray();
                Array.Sort(mounts, static (first, second) => second.Point.Length.CompareTo(first.Point.Length));
                _mounts = mounts;
                _readAt = Stopwatch.GetTimestamp();
            }

            return _mounts;
        }
    }

    private static IEnumerable<Mount> ReadMounts()
    {
        string[] lines;
        try
        {
            lines = File.ReadAllLines("/proc/self/mountinfo");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return [new Mount("/", "unknown", null)];
        }

        return ParseMountInfo(lines);
    }

    /// <summary>
    /// "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw": field 3 the device, 5 the mount point (octal
    /// escapes), the field after "-" the file system. A mount point mounted over again keeps its last (visible) line.
    /// </summary>
    internal static IEnumerable<Mount> ParseMountInfo(IEnumerable<string> lines)
    {
        var mounts = new Dictionary<string, Mount>(StringComparer.Ordinal);
        foreach (string line in lines)
        {
            string[] fields = line.Split(' ');
            if (fields.Length <= 6)
            {
                continue;
            }

            int separator = Array.IndexOf(fields, "-", 6);
            string point = Unescape(fields[4]);
            mounts[point] = new Mount(
                point,
                separator > 0 && separator + 1 < fields.Length ? fields[separator + 1] : "unknown",
                fields[2].Contains(':') ? fields[2] : null,
                separator > 0 && separator + 2 < fields.Length ? Unescape(fields[separator + 2]) : null,
                separator > 0 && separator + 3 < fields.Length ? new MountOptions(fields[5], fields[separator + 3]) : null);
        }

        return mounts.Values;
    }

    private static string Unescape(string field)
        => field.Replace("\\040", " ").Replace("\\011", "\t").Replace("\\012", "\n").Replace("\\134", "\\");

    /// <summary>
    /// The path with every link resolved (a checkout reached through a link is on the target's volume) by libc's realpath,
    /// one call; a path that cannot be resolved is taken as written.
    /// </summary>
    private static string RealPath(string path) => LinuxNative.RealPath(path) ?? Path.GetFullPath(path);

    /// <param name="Device">The file system's major:minor (mountinfo's third field), shared by every mount of it.</param>
    /// <param name="Source">What was mounted (the field after the file system): a device such as /dev/loop3, or null.</param>
    /// <param name="Options">The mount's options and the file system's own (mountinfo's sixth and last fields), or null.</param>
    internal sealed record Mount(string Point, string FileSystem, string? Device, string? Source = null, MountOptions? Options = null);

    internal sealed record MountOptions(string Mount, string FileSystem);
}
#endif
