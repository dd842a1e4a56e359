using System.Collections.Generic;
using System.IO;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Forecast;

/// <summary>A file named in the binary log, as it is on disk now.</summary>
/// <param name="Volume">The key of its file system (<see cref="VolumeLocation.FileSystemKey"/>), empty when it is gone.</param>
internal sealed record FileOnDisk(bool Exists, bool Regular, long Size, string Volume);

/// <summary>A volume that files of the build sit on.</summary>
/// <param name="Key"><see cref="VolumeLocation.FileSystemKey"/> (not st_dev, which btrfs gives each subvolume).</param>
/// <param name="Facts">What the volume component says about it.</param>
internal sealed record BuildVolume(string Key, VolumeFacts Facts)
{
    public string MountPoint => Facts.Root;

    public string FileSystem => Facts.FileSystem;

    public bool? CanClone => Facts.CanClone;

    public string Evidence => Facts.CloneEvidence;
}

/// <summary>
/// Stats the files a build copied (<see cref="FileAsFound"/>) and names their volumes: st_dev where the OS gives it,
/// and what <see cref="VolumeFactsInspector"/> says of each: mount point, file system, whether it clones.
/// </summary>
internal sealed class FileVolumes(VolumeFactsInspector volumes)
{
    private readonly Dictionary<string, FileOnDisk> _files = new(StringComparer.Ordinal);
    private readonly Dictionary<string, BuildVolume> _volumes = new(StringComparer.Ordinal);

    // st_dev -> the file system's key, asked of the volume component once per st_dev (a btrfs subvolume has its own st_dev).
    private readonly Dictionary<string, string> _fileSystemOfDevice = new(StringComparer.Ordinal);

    // A folder of each volume that exists, destinations' first: where a probe clone can be tried (outputs are writable).
    private readonly Dictionary<string, List<string>> _folders = new(StringComparer.Ordinal);

    public FileOnDisk Stat(string path)
    {
        if (_files.TryGetValue(path, out FileOnDisk? known))
        {
            return known;
        }

        FileOnDisk facts = StatOnce(path);
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
    public BuildVolume Describe(string key)
    {
        if (_volumes.TryGetValue(key, out BuildVolume? known))
        {
            return known;
        }

        IReadOnlyList<string> folders = _folders.TryGetValue(key, out List<string>? seen) ? seen : [];
        VolumeFacts? facts = null;
        foreach (string folder in folders)
        {
            // The first folder that gives an answer; a read-only one (a shared package cache, the .NET installation)
            // cannot hold a probe file, and the next folder of the volume may.
            try
            {
                facts = volumes.Inspect(folder, mayWrite: true);
                if (facts.CanClone is not null)
                {
                    break;
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // A folder gone since the build, or on a volume the OS would not describe: the next folder may do.
            }
        }

        var volume = new BuildVolume(key, facts ?? new VolumeFacts(key, "unknown", null, "no folder of this volume could be checked", null, null, null, null));
        _volumes[key] = volume;
        return volume;
    }

    private FileOnDisk StatOnce(string path)
    {
        // What the build's Copy read: through a symbolic link, its target.
        FileAsFound file = FileAsFound.Of(path);
        if (!file.Exists)
        {
            return new FileOnDisk(false, false, 0, string.Empty);
        }

        if (file.Device is null)
        {
            return new FileOnDisk(true, file.Regular, file.Size, volumes.Locate(path).FileSystemKey);
        }

        if (!_fileSystemOfDevice.TryGetValue(file.Device, out string? fileSystem))
        {
            _fileSystemOfDevice[file.Device] = fileSystem = volumes.Locate(path).FileSystemKey;
        }

        return new FileOnDisk(true, file.Regular, file.Size, fileSystem);
    }
}
