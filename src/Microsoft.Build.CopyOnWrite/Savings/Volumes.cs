using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Savings;

/// <summary>
/// Which volume (mount point, or drive root on Windows) a path is on, and that volume's file system, to group and
/// name cross-volume copies.
/// </summary>
internal static class Volumes
{
    private static readonly object Lock = new();
    private static Mount[]? s_mounts;
    private static DateTime s_readAtUtc;

    /// <summary>The mount point of the file system holding <paramref name="path"/> (longest matching mount), or its root.</summary>
    public static string MountPointOf(string path)
    {
        if (!RuntimeInformation.IsOSPlatform(OSPlatform.Linux))
        {
            return Path.GetPathRoot(path) ?? string.Empty;
        }

        return MountOf(path)?.Point ?? "/";
    }

    /// <summary>
    /// The kind of file system that holds <paramref name="path"/> ("xfs", "ext4", "btrfs", "NTFS", "ReFS", "apfs"...),
    /// or an empty string when the system does not say.
    /// </summary>
    public static string FileSystemOf(string path)
    {
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Linux))
        {
            return MountOf(path)?.FileSystem ?? string.Empty;
        }

        try
        {
            return new DriveInfo(MountPointOf(path)).DriveFormat;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return string.Empty;
        }
    }

    private static Mount? MountOf(string path)
    {
        foreach (Mount mount in Mounts())
        {
            if (mount.Point == "/" || path == mount.Point || path.StartsWith(mount.Point + "/", StringComparison.Ordinal))
            {
                return mount;
            }
        }

        return null;
    }

    /// <summary>Mounts, longest mount point first; re-read after a few seconds, since builds outlive mounts.</summary>
    private static Mount[] Mounts()
    {
        lock (Lock)
        {
            if (s_mounts is null || DateTime.UtcNow - s_readAtUtc > TimeSpan.FromSeconds(10))
            {
                s_mounts = ReadMounts().OrderByDescending(m => m.Point.Length).ToArray();
                s_readAtUtc = DateTime.UtcNow;
            }

            return s_mounts;
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
            return new[] { new Mount("/", string.Empty) };
        }

        // "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw": field 5 is the mount point, with
        // space, tab, newline and backslash written as octal escapes; the field after the lone "-" is the file system.
        // A mount point mounted over again keeps its last (visible) line.
        var mounts = new Dictionary<string, Mount>(StringComparer.Ordinal);
        foreach (string[] fields in lines.Select(line => line.Split(' ')).Where(fields => fields.Length > 4))
        {
            int separator = Array.IndexOf(fields, "-", 6);
            string point = Unescape(fields[4]);
            mounts[point] = new Mount(point, separator > 0 && separator + 1 < fields.Length ? fields[separator + 1] : string.Empty);
        }

        return mounts.Values;
    }

    private static string Unescape(string field)
        => field.Replace("\\040", " ").Replace("\\011", "\t").Replace("\\012", "\n").Replace("\\134", "\\");

    private sealed record Mount(string Point, string FileSystem);
}
