namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>Where a path's volume is mounted and its file system, as cheaply as the OS tells it (no probe, no write).</summary>
/// <param name="Root">The mount point (Linux, macOS) or the volume's root (Windows: D:\ or a folder a volume is mounted on).</param>
/// <param name="FileSystem">As the OS names it: xfs, btrfs, ext4, tmpfs, apfs, ReFS, NTFS...; "unknown" when it does not say.</param>
/// <param name="FileSystemId">
/// Linux: the file system's device as major:minor, as /proc/self/mountinfo gives it: every mount of one file system
/// (a bind mount, a btrfs subvolume mounted on its own) has the same one, and the kernel clones between them. Null
/// elsewhere, where <paramref name="Root"/> is the identity.
/// </param>
internal sealed record VolumeLocation(string Root, string FileSystem, string? FileSystemId = null)
{
    /// <summary>
    /// Which file system this is: equal for two locations exactly when they are one file system, which a clone needs
    /// (<see cref="CloneRule.SameFileSystem"/>); what the build's rule, the doctor and the forecast all compare.
    /// </summary>
    public string FileSystemKey => FileSystemId ?? Root;
}

/// <summary>
/// What one OS says about volumes, as a build needs it; one implementation per OS (<see cref="LinuxVolumes"/>,
/// <see cref="WindowsVolumes"/>, <see cref="MacVolumes"/>), the Windows and macOS ones deciding from their OS's answers
/// behind a seam (<see cref="IWindowsVolumeSystem"/>, <see cref="IMacVolumeSystem"/>) so that those decisions are tested
/// anywhere. How a volume is known to clone, and what else it is, is the tool's (its VolumeFacts).
/// </summary>
internal interface IVolumeInspector
{
    /// <summary>The volume of <paramref name="path"/>, which need not exist (its nearest existing folder is asked).</summary>
    VolumeLocation Locate(string path);

    /// <summary>
    /// Whether files can be cloned within the volume of <paramref name="folder"/>: the volume's own flag (Windows), else a
    /// small file of our own cloned in the folder (nothing left behind, whatever stops the process); null where that
    /// could not be found out (a folder that cannot be written to, a probe that failed for another reason).
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
