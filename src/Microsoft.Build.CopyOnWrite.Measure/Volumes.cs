using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>
/// Where a measurement runs: a folder the user named, or on Linux as root a fresh XFS/btrfs/ext4 loop volume; either
/// way in a folder of its own inside it (<see cref="WorkFolder"/>), removed at the end.
/// </summary>
internal sealed class MeasuredVolume : IDisposable
{
    /// <summary>The --volume values that make a fresh loop volume instead of naming a folder.</summary>
    public static readonly IReadOnlyList<string> LoopKinds = ["xfs", "btrfs", "ext4"];

    private readonly IMeasurementPlatform _platform;
    private readonly string? _image;
    private readonly bool _createdFolder;

    private MeasuredVolume(IMeasurementPlatform platform, string requested, string folder, string workFolder, bool createdFolder, string? image, VolumeFacts identity, string kind)
    {
        _platform = platform;
        Requested = requested;
        Folder = folder;
        WorkFolder = workFolder;
        _createdFolder = createdFolder;
        _image = image;
        Identity = identity;
        Kind = kind;
    }

    /// <summary>What the user passed to --volume.</summary>
    public string Requested { get; }

    /// <summary>The folder measured in: the user's, or the loop volume's mount point.</summary>
    public string Folder { get; }

    /// <summary>This run's own folder inside <see cref="Folder"/>: the copy of the tree, the package cache.</summary>
    public string WorkFolder { get; }

    public VolumeFacts Identity { get; }

    /// <summary>"folder", or "new xfs loop volume" and the like.</summary>
    public string Kind { get; }

    /// <summary>A fresh loop volume only this tool writes to: its used-space difference is the build's alone.</summary>
    public bool Dedicated => _image is not null;

    /// <summary>Short name in tables; set once all volumes are known (<see cref="AssignLabels"/>).</summary>
    public string Label { get; private set; } = string.Empty;

    /// <summary><see cref="Label"/> as a file name part (build logs).</summary>
    public string FileLabel => System.Text.RegularExpressions.Regex.Replace(Label, "[^A-Za-z0-9.-]+", "_").Trim('_');

    /// <summary>Checks and prepares a --volume value: a loop kind, or a folder that exists or whose parent does.</summary>
    public static MeasuredVolume Open(string requested, IMeasurementPlatform platform, string loopFolder, int loopSizeMiB, string runName)
    {
        if (LoopKinds.Contains(requested, StringComparer.Ordinal))
        {
            return CreateLoopVolume(requested, platform, loopFolder, loopSizeMiB, runName);
        }

        string folder = Path.GetFullPath(requested);
        if (File.Exists(folder))
        {
            throw new MeasureException($"--volume {requested}: {folder} is a file; name a folder on the file system to measure (it is created if its parent exists).");
        }

        bool created = false;
        if (!Directory.Exists(folder))
        {
            string? parent = Path.GetDirectoryName(folder);
            if (parent is null || !Directory.Exists(parent))
            {
                throw new MeasureException($"--volume {requested}: neither {folder} nor the folder above it exists; name a folder on the file system to measure.");
            }

            CreateFolder(requested, folder);
            created = true;
        }

        string work = Path.Combine(folder, runName);
        CreateFolder(requested, work);
        try
        {
            return new MeasuredVolume(platform, requested, folder, work, created, image: null, platform.Identify(work), "folder");
        }
        catch
        {
            DeleteQuietly(work);
            throw;
        }
    }

    /// <summary>Labels for tables: the file system's name ("Dev Drive" for one), or the folder where two would be the same.</summary>
    public static void AssignLabels(IReadOnlyList<MeasuredVolume> volumes)
    {
        foreach (MeasuredVolume volume in volumes)
        {
            volume.Label = volume.Identity.DevDrive == true ? "Dev Drive" : volume.Identity.FileSystem;
        }

        foreach (IGrouping<string, MeasuredVolume> same in volumes.GroupBy(v => v.Label, StringComparer.OrdinalIgnoreCase).Where(g => g.Count() > 1))
        {
            foreach (MeasuredVolume volume in same)
            {
                volume.Label = $"{volume.Label} ({(volume.Dedicated ? "new" : volume.Folder)})";
            }
        }
    }

    /// <summary>Bytes in use on the volume once its pending writes and frees are durable, or why that cannot be read here.</summary>
    public Reading<long> UsedBytes(out Reading<TimeSpan> firstFlush)
    {
        firstFlush = _platform.Flush(WorkFolder);
        Settle(firstFlush.Value is not null);
        return _platform.UsedBytes(WorkFolder);
    }

    /// <summary>
    /// Flushes until the used space stops moving: XFS frees deleted inodes in the background and btrfs frees extents
    /// at transaction commit, so a reading right after a delete can be stale.
    /// </summary>
    private void Settle(bool canFlush)
    {
        long? previous = null;
        for (int attempt = 0; attempt < 20; attempt++)
        {
            if (canFlush)
            {
                _platform.Flush(WorkFolder);
            }

            long? now = _platform.UsedBytes(WorkFolder).Value;
            if (now is null || now == previous)
            {
                return;
            }

            previous = now;
            Thread.Sleep(250);
        }
    }

    public void Dispose() => Dispose(keep: false);

    /// <summary>Removes this run's folder (or, with <paramref name="keep"/>, leaves it and a loop volume mounted).</summary>
    public void Dispose(bool keep)
    {
        if (keep)
        {
            return;
        }

        DeleteQuietly(WorkFolder);
        if (_createdFolder)
        {
            DeleteQuietly(Folder);
        }

        if (_image is not null)
        {
            Unmount(Folder, _image);
        }
    }

    private static MeasuredVolume CreateLoopVolume(string kind, IMeasurementPlatform platform, string loopFolder, int sizeMiB, string runName)
    {
        if (!OperatingSystem.IsLinux())
        {
            throw new MeasureException($"--volume {kind} makes a fresh loop-mounted file system, which needs Linux; elsewhere name a folder on the volume to measure (--volume D:\\cow).");
        }

        if (!Environment.IsPrivilegedProcess)
        {
            throw new MeasureException($"--volume {kind} makes a fresh loop-mounted file system, which needs root (sudo); or name a folder on an existing {kind} volume (--volume /mnt/{kind}/scratch).");
        }

        (string mkfs, string[] options, string package) = Format(kind);

        if (!Shell.IsOnPath(mkfs))
        {
            throw new MeasureException($"--volume {kind} needs {mkfs}, which is not installed (apt-get install {package}).");
        }

        Directory.CreateDirectory(loopFolder);
        string image = Path.Combine(loopFolder, $"{runName}-{kind}.img");
        string mountPoint = Path.Combine(loopFolder, $"{runName}-{kind}");
        Directory.CreateDirectory(mountPoint);
        try
        {
            using (FileStream stream = File.Create(image))
            {
                stream.SetLength((long)sizeMiB << 20); // sparse
            }

            Shell.MustRun(mkfs, [.. options, image]);
            Shell.MustRun("mount", ["-o", "loop", image, mountPoint]);
            string work = Path.Combine(mountPoint, runName);
            Directory.CreateDirectory(work);
            return new MeasuredVolume(platform, kind, mountPoint, work, createdFolder: false, image, platform.Identify(work), $"new {kind} loop volume ({sizeMiB} MiB image)");
        }
        catch
        {
            Unmount(mountPoint, image);
            throw;
        }
    }

    /// <summary>How a fresh loop volume of <paramref name="kind"/> (xfs, btrfs, ext4) is made: the one recipe, which the tests' loop volumes use too.</summary>
    internal static (string Program, string[] Options, string Package) Format(string kind, bool reflink = true) => kind switch
    {
        "xfs" => ("mkfs.xfs", ["-q", "-f", "-m", reflink ? "reflink=1" : "reflink=0"], "xfsprogs"),
        "btrfs" => ("mkfs.btrfs", ["-q", "-f"], "btrfs-progs"),
        "ext4" => ("mkfs.ext4", ["-q", "-F"], "e2fsprogs"),
        _ => throw new ArgumentException($"No file system kind {kind} (xfs, btrfs, ext4).", nameof(kind)),
    };

    private static void Unmount(string mountPoint, string image)
    {
        if (Shell.Run("mountpoint", "-q", mountPoint).Succeeded)
        {
            if (!Shell.Run("umount", mountPoint).Succeeded)
            {
                Shell.Run("umount", "-l", mountPoint);
            }
        }

        try
        {
            File.Delete(image);
            Directory.Delete(mountPoint);
        }
        catch (IOException)
        {
        }
    }

    private static void CreateFolder(string requested, string folder)
    {
        try
        {
            Directory.CreateDirectory(folder);
        }
        catch (UnauthorizedAccessException)
        {
            throw new MeasureException($"--volume {requested}: no permission to write in {Path.GetDirectoryName(folder)}; name a folder you can write to.");
        }
        catch (IOException e)
        {
            throw new MeasureException($"--volume {requested}: cannot create {folder}: {e.Message}");
        }
    }

    private static void DeleteQuietly(string folder)
    {
        try
        {
            if (Directory.Exists(folder))
            {
                Directory.Delete(folder, recursive: true);
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Console.Error.WriteLine($"dotnet cow-measure: could not remove {folder}: {e.Message}");
        }
    }
}
