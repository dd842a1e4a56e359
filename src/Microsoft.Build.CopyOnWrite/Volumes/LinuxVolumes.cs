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
/// clones from a probe clone (FICLONE) of a file of our own in the folder, since Linux has no flag for it. Where the
/// folder cannot be written to, the file system's kind decides when it can (btrfs always clones; ext4, tmpfs and FAT
/// never do) and the answer is "unknown" otherwise (XFS clones only when made with reflink).
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxVolumes : IVolumeInspector, IListsVolumes
{
    private const int EBADF = 9;
    private const int EXDEV = 18;
    private const int ENOTTY = 25;
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

    public VolumeFacts Inspect(string folder)
    {
        VolumeLocation location = Locate(folder);
        (bool? canClone, string evidence) = ProbeClone(VolumeCatalog.NearestExisting(folder)) switch
        {
            0 => (true, "a probe clone (FICLONE) of a file of our own worked"),
            int errno and (EOPNOTSUPP or ENOTTY or LinuxNative.EINVAL or LinuxNative.ENOSYS or EXDEV or EBADF)
                => ((bool?)false, $"a probe clone (FICLONE) of a file of our own was refused: {Marshal.GetPInvokeErrorMessage(errno)} ({ErrnoName(errno)})"),
            int errno when errno > 0 => FromKind(location.FileSystem, $"a probe clone (FICLONE) failed: {Marshal.GetPInvokeErrorMessage(errno)} ({ErrnoName(errno)})"),
            _ => FromKind(location.FileSystem, "no probe clone: the folder cannot be written to"),
        };

        // .NET's File.Copy (so MSBuild's own Copy task) tries FICLONE first on Linux: where we clone, it clones too.
        return new VolumeFacts(location.Root, location.FileSystem, canClone, evidence, canClone, null, null, null, location.FileSystemId);
    }

    public IReadOnlyList<VolumeLocation> MountedVolumes()
        => Mounts().Where(m => ClonesSometimes.Contains(m.FileSystem)).OrderBy(m => m.Point, StringComparer.Ordinal).Select(m => new VolumeLocation(m.Point, m.FileSystem, m.Device)).ToList();

    // The file systems that can clone on Linux (XFS only when made with reflink, which a probe tells).
    private static readonly HashSet<string> ClonesSometimes = new(StringComparer.Ordinal) { "xfs", "btrfs", "bcachefs", "ocfs2" };

    /// <summary>What the file system's kind alone says, when no probe could be made.</summary>
    internal static (bool? CanClone, string Evidence) FromKind(string fileSystem, string why) => fileSystem switch
    {
        "btrfs" => (true, $"btrfs always clones ({why})"),
        "ext2" or "ext3" or "ext4" or "tmpfs" or "ramfs" or "vfat" or "exfat" or "squashfs" or "iso9660"
            => (false, $"{fileSystem} cannot clone ({why})"),
        _ => (null, $"unknown: {why}; {fileSystem} may or may not clone"),
    };

    /// <summary>
    /// Clones a small file of our own in <paramref name="folder"/> and removes both: 0, FICLONE's errno, or -1 when
    /// no file could be made there (read-only, no permission, gone).
    /// </summary>
    internal static int ProbeClone(string folder)
    {
        if (LinuxNative.FicloneRequestFor(RuntimeInformation.ProcessArchitecture) is not nuint ficlone)
        {
            return LinuxNative.ENOSYS;
        }

        string source = Path.Combine(folder, $".cow-probe-{Guid.NewGuid():N}");
        string clone = source + ".clone";
        try
        {
            using var original = new FileStream(source, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None, 4096, FileOptions.DeleteOnClose);
            original.Write(new byte[65536], 0, 65536); // data, not a hole: there must be an extent to share
            original.Flush();
            using var copy = new FileStream(clone, FileMode.CreateNew, FileAccess.Write, FileShare.None, 4096, FileOptions.DeleteOnClose);
            return LinuxNative.ioctl((int)copy.SafeFileHandle.DangerousGetHandle(), ficlone, original.SafeFileHandle.DangerousGetHandle()) == 0
                ? 0
                : Marshal.GetLastPInvokeError();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return -1;
        }
        finally
        {
            // DeleteOnClose removed them; a process killed in between leaves a dot file named for what it is.
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
                _mounts = ReadMounts().OrderByDescending(m => m.Point.Length).ToArray();
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
    /// "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw": field 3 is the file system's device
    /// (one for every mount of it: bind mounts, btrfs subvolumes), field 5 the mount point, with space, tab, newline
    /// and backslash as octal escapes; the field after the lone "-" is the file system. A mount point mounted over
    /// again keeps its last (visible) line.
    /// </summary>
    internal static IEnumerable<Mount> ParseMountInfo(IEnumerable<string> lines)
    {
        var mounts = new Dictionary<string, Mount>(StringComparer.Ordinal);
        foreach (string[] fields in lines.Select(line => line.Split(' ')).Where(fields => fields.Length > 6))
        {
            int separator = Array.IndexOf(fields, "-", 6);
            string point = Unescape(fields[4]);
            mounts[point] = new Mount(point, separator > 0 && separator + 1 < fields.Length ? fields[separator + 1] : "unknown", fields[2].Contains(':') ? fields[2] : null);
        }

        return mounts.Values;
    }

    private static string Unescape(string field)
        => field.Replace("\\040", " ").Replace("\\011", "\t").Replace("\\012", "\n").Replace("\\134", "\\");

    /// <summary>The path with every link resolved (a checkout reached through a link is on the link target's volume).</summary>
    private static string RealPath(string path)
    {
        try
        {
            string resolved = Path.GetFullPath(path);
            string? current = resolved;
            var rest = new Stack<string>();
            while (current is not null)
            {
                FileSystemInfo info = Directory.Exists(current) ? new DirectoryInfo(current) : new FileInfo(current);
                if (info.LinkTarget is not null && info.ResolveLinkTarget(returnFinalTarget: true) is FileSystemInfo target)
                {
                    return RealPath(Path.Combine([target.FullName, .. rest]));
                }

                rest.Push(Path.GetFileName(current));
                current = Path.GetDirectoryName(current);
            }

            return resolved;
        }
        catch (IOException)
        {
            return Path.GetFullPath(path);
        }
    }

    private static string ErrnoName(int errno) => errno switch
    {
        EBADF => "EBADF",
        EXDEV => "EXDEV",
        LinuxNative.EINVAL => "EINVAL",
        ENOTTY => "ENOTTY",
        LinuxNative.ENOSYS => "ENOSYS",
        EOPNOTSUPP => "EOPNOTSUPP",
        1 => "EPERM",
        13 => "EACCES",
        _ => $"errno {errno}",
    };

    /// <param name="Device">The file system's major:minor (mountinfo's third field), shared by every mount of it.</param>
    internal sealed record Mount(string Point, string FileSystem, string? Device);
}
#endif
