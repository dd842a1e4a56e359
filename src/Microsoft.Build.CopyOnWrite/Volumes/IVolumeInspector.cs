namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>Where a path's volume is mounted and its file system, as cheaply as the OS tells it (no probe, no write).</summary>
/// <param name="Root">The mount point (Linux, macOS) or the volume's root (Windows: D:\ or a folder a volume is mounted on).</param>
/// <param name="FileSystem">As the OS names it: xfs, btrfs, ext4, tmpfs, apfs, ReFS, NTFS...; "unknown" when it does not say.</param>
/// <param name="FileSystemId">Linux: mountinfo's major:minor, the same for every mount of one file system (the kernel clones between them).</param>
internal sealed record VolumeLocation(string Root, string FileSystem, string? FileSystemId = null)
{
    /// <summary>Equal for two locations exactly when they are one file system, which a clone needs (<see cref="CloneRule.SameFileSystem"/>).</summary>
    public string FileSystemKey => FileSystemId ?? Root;
}

/// <summary>
/// What one OS says about volumes, as a build needs it; Windows and macOS decide from their OS's answers behind a seam
/// (<see cref="IWindowsVolumeSystem"/>, <see cref="IMacVolumeSystem"/>), so those decisions are tested anywhere.
/// </summary>
internal interface IVolumeInspector
{
    /// <summary>The volume of <paramref name="path"/>, which need not exist (its nearest existing folder is asked).</summary>
    VolumeLocation Locate(string path);

    /// <summary>
    /// Whether files clone within <paramref name="folder"/>'s volume: its flag (Windows), else a probe clone of a file of
    /// our own there; null where that could not be found out (a folder that cannot be written to).
    /// </summary>
    bool? CanClone(string folder);
}

/// <summary>What an OS call answered, as it answered it: a value, or the call's error (errno on macOS, the Win32 error code on Windows).</summary>
internal readonly record struct SystemAnswer<T>(T Value, int Error)
{
    public bool Succeeded => Error == 0;

    public static SystemAnswer<T> Ok(T value) => new(value, 0);

    public static SystemAnswer<T> Failed(int error) => new(default!, error);
}
