using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Savings;

/// <summary>Which volume (mount point, or drive root on Windows) a path is on, to group and name cross-volume copies.</summary>
internal static class Volumes
{
    private static readonly object Lock = new();
    private static string[]? s_mountPoints;
    private static DateTime s_readAtUtc;

    /// <summary>The mount point of the file system holding <paramref name="path"/> (longest matching mount), or its root.</summary>
    public static string MountPointOf(string path)
    {
        if (!RuntimeInformation.IsOSPlatform(OSPlatform.Linux))
        {
            return Path.GetPathRoot(path) ?? string.Empty;
        }

        foreach (string mountPoint in MountPoints())
        {
            if (mountPoint == "/" || path == mountPoint || path.StartsWith(mountPoint + "/", StringComparison.Ordinal))
            {
                return mountPoint;
            }
        }

        return "/";
    }

    /// <summary>Mount points, longest first; re-read after a few seconds, since builds outlive mounts.</summary>
    private static string[] MountPoints()
    {
        lock (Lock)
        {
            if (s_mountPoints is null || DateTime.UtcNow - s_readAtUtc > TimeSpan.FromSeconds(10))
            {
                s_mountPoints = ReadMountPoints().OrderByDescending(m => m.Length).ToArray();
                s_readAtUtc = DateTime.UtcNow;
            }

            return s_mountPoints;
        }
    }

    private static IEnumerable<string> ReadMountPoints()
    {
        string[] lines;
        try
        {
            lines = File.ReadAllLines("/proc/self/mountinfo");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return new[] { "/" };
        }

        // "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw": field 5 is the mount point,
        // with space, tab, newline and backslash written as octal escapes.
        return lines
            .Select(line => line.Split(' '))
            .Where(fields => fields.Length > 4)
            .Select(fields => Unescape(fields[4]))
            .Distinct(StringComparer.Ordinal)
            .ToList();
    }

    private static string Unescape(string field)
        => field.Replace("\\040", " ").Replace("\\011", "\t").Replace("\\012", "\n").Replace("\\134", "\\");
}
