using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.Versioning;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.SelfTest;

/// <summary>
/// Linux's mount table beyond the build's <see cref="LinuxVolumes"/>: the volumes a user keeps that may clone, and each
/// mount's driver line. Read afresh at each call; empty elsewhere.
/// </summary>
internal static class LinuxMounts
{
    // The file systems that can clone on Linux (XFS only when made with reflink, which the inspector tells).
    private static readonly HashSet<string> ClonesSometimes = new(StringComparer.Ordinal) { "xfs", "btrfs", "bcachefs", "ocfs2" };

    /// <summary>
    /// The mounted volumes whose file system may clone, by mount point, that a user keeps: none mounted in a temp
    /// folder, nor made of an image file that lives in one (another job's scratch volume, gone when that job ends).
    /// </summary>
    public static IReadOnlyList<VolumeLocation> VolumesUsersKeepThatMayClone() => OperatingSystem.IsLinux() ? ThatMayClone() : [];

    /// <summary>mountinfo's account of the mount at <paramref name="mountPoint"/>: "TYPE on SOURCE, mount options OPTIONS, file system options SUPER-OPTIONS"; null for no mount.</summary>
    public static string? DriverLineOf(string mountPoint) => OperatingSystem.IsLinux() ? DriverLine(mountPoint) : null;

    [SupportedOSPlatform("linux")]
    private static List<VolumeLocation> ThatMayClone()
        => Read()
            .Where(m => ClonesSometimes.Contains(m.FileSystem) && !IsScratch(m.Point, LoopImageOf(m.Source)))
            .OrderBy(m => m.Point, StringComparer.Ordinal)
            .Select(m => new VolumeLocation(m.Point, m.FileSystem, m.Device))
            .ToList();

    [SupportedOSPlatform("linux")]
    private static string? DriverLine(string mountPoint)
    {
        string point = mountPoint.TrimEnd('/').PadRight(1, '/');
        LinuxVolumes.Mount? mount = Read().FirstOrDefault(m => m.Point == point && m.Options is not null);
        return mount is null ? null : $"{mount.FileSystem} on {mount.Source}, mount options {mount.Options!.Mount}, file system options {mount.Options.FileSystem}";
    }

    /// <summary>Whether a mount point, or the image file a loop device reads (null: none), lies in a temp folder.</summary>
    private static bool IsScratch(string mountPoint, string? loopImage)
    {
        string[] temporary = [Path.GetTempPath(), "/tmp/", "/var/tmp/"];
        return temporary.Any(folder => InFolder(mountPoint, folder) || (loopImage is not null && InFolder(loopImage, folder)));

        static bool InFolder(string path, string folder)
            => (path.TrimEnd('/') + "/").StartsWith(folder.TrimEnd('/') + "/", StringComparison.Ordinal);
    }

    [SupportedOSPlatform("linux")]
    private static IEnumerable<LinuxVolumes.Mount> Read()
    {
        try
        {
            return LinuxVolumes.ParseMountInfo(File.ReadAllLines("/proc/self/mountinfo"));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }

    /// <summary>The image file a loop device (/dev/loopN, as mounted) reads its blocks from, or null for any other source.</summary>
    private static string? LoopImageOf(string? source)
    {
        if (source is null || !source.StartsWith("/dev/loop", StringComparison.Ordinal))
        {
            return null;
        }

        try
        {
            string backingFile = $"/sys/block/{Path.GetFileName(source)}/loop/backing_file";
            return File.Exists(backingFile) ? File.ReadAllText(backingFile).Trim() : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}
