using System;
using System.Collections.Generic;
using System.IO;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using SavingsVolumes = Microsoft.Build.CopyOnWrite.Savings.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Forecast;

/// <summary>A file named in the binary log, as it is on disk now.</summary>
/// <param name="Volume">The key of its volume (Linux: st_dev; elsewhere the volume's root), empty when it is gone.</param>
internal sealed record FileOnDisk(bool Exists, bool Regular, long Size, string Volume);

/// <summary>A volume that files of the build sit on.</summary>
/// <param name="Key">Linux: the device number st_dev as major:minor, as /proc/self/mountinfo and lsblk show it; elsewhere the volume's root.</param>
/// <param name="CanClone">Whether the file system clones; null when it could not be found out.</param>
/// <param name="Evidence">How that is known.</param>
internal sealed record VolumeFacts(string Key, string MountPoint, string FileSystem, bool? CanClone, string Evidence);

/// <summary>
/// Stats the files a build copied and names their volumes: st_dev through the task's own statx (Linux), the mount
/// point and file system from the mount table as the measurement reads it (elsewhere as the summary logger does), and
/// whether the file system clones.
/// </summary>
internal sealed class FileVolumes(IMeasurementPlatform? platform)
{
    private readonly Dictionary<string, FileOnDisk> _files = new(StringComparer.Ordinal);
    private readonly Dictionary<string, VolumeFacts> _volumes = new(StringComparer.Ordinal);

    // A folder of each volume that exists, destinations' first: where a probe clone can be tried (outputs are writable).
    private readonly Dictionary<string, List<string>> _folders = new(StringComparer.Ordinal);

    public FileOnDisk Stat(string path)
    {
        if (_files.TryGetValue(path, out FileOnDisk? known))
        {
            return known;
        }

        FileOnDisk facts = OperatingSystem.IsLinux() ? StatLinux(path) : StatElsewhere(path);
        _files[path] = facts;
        if (facts.Exists && Path.GetDirectoryName(path) is string folder)
        {
            if (!_folders.TryGetValue(facts.Volume, out List<string>? folders))
            {
                _folders[facts.Volume] = folders = [];
            }

            if (folders.Count < 4 && !folders.Contains(folder))
            {
                folders.Add(folder);
            }
        }

        return facts;
    }

    /// <summary>What the volume is and whether it clones; call after every file of the build was stat'ed.</summary>
    public VolumeFacts Describe(string key)
    {
        if (_volumes.TryGetValue(key, out VolumeFacts? known))
        {
            return known;
        }

        string folder = _folders.TryGetValue(key, out List<string>? folders) && folders.Count > 0 ? folders[0] : string.Empty;
        string mountPoint, fileSystem;
        if (OperatingSystem.IsLinux())
        {
            // Read now, not from the summary logger's cached table: a volume mounted a moment ago must be seen.
            (mountPoint, string? type) = LinuxPlatform.MountOf(folder);
            fileSystem = type ?? string.Empty;
        }
        else
        {
            mountPoint = SavingsVolumes.MountPointOf(folder);
            fileSystem = SavingsVolumes.FileSystemOf(folder);
        }

        (bool? canClone, string evidence) = CloneCapability(fileSystem, folders ?? []);
        var facts = new VolumeFacts(key, mountPoint, fileSystem.Length > 0 ? fileSystem : "unknown", canClone, evidence);
        _volumes[key] = facts;
        return facts;
    }

    /// <summary>
    /// Linux has no flag for it: btrfs always clones, ext4 and tmpfs never do, and XFS only when made with reflink,
    /// which a probe clone in one of the build's folders finds out. Windows and macOS answer from the volume's flags.
    /// </summary>
    private (bool?, string) CloneCapability(string fileSystem, IReadOnlyList<string> folders)
    {
        if (OperatingSystem.IsLinux())
        {
            switch (fileSystem)
            {
                case "btrfs":
                    return (true, "btrfs always clones");
                case "ext2" or "ext3" or "ext4" or "tmpfs" or "ramfs" or "vfat" or "exfat" or "fuseblk":
                    return (false, $"{fileSystem} cannot clone");
            }
        }

        if (platform is null)
        {
            return (null, "not checked");
        }

        string? lastProblem = null;
        foreach (string folder in folders)
        {
            try
            {
                VolumeIdentity identity = platform.Identify(folder);
                if (identity.CanClone is not null)
                {
                    return (identity.CanClone, identity.CloneEvidence);
                }

                lastProblem = identity.CloneEvidence;
            }
            catch (Exception e) when (e is MeasureException or IOException or UnauthorizedAccessException)
            {
                // A read-only folder (a shared package cache, the .NET installation) cannot hold a probe file.
                lastProblem = e.Message;
            }
        }

        return (null, lastProblem is null ? "no folder of this volume could be checked" : $"could not check: {lastProblem}");
    }

    private static FileOnDisk StatLinux(string path)
    {
        if (!LinuxNative.TryStat(path, followLinks: true, out LinuxNative.FileStatus status))
        {
            return new FileOnDisk(false, false, 0, string.Empty);
        }

        LinuxNative.SplitDevice(status.Device, out ulong major, out ulong minor);
        return new FileOnDisk(true, status.IsRegularFile, status.Size, $"{major}:{minor}");
    }

    private static FileOnDisk StatElsewhere(string path)
    {
        var file = new FileInfo(path);
        if (!file.Exists)
        {
            return new FileOnDisk(Directory.Exists(path), false, 0, Directory.Exists(path) ? SavingsVolumes.MountPointOf(path) : string.Empty);
        }

        bool regular = file.LinkTarget is null;
        return new FileOnDisk(true, regular, file.Length, SavingsVolumes.MountPointOf(file.FullName));
    }
}
