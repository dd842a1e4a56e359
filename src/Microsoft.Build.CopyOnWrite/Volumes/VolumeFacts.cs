using System.Collections.Generic;

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

/// <summary>What is known about one volume: where it is, its file system, and whether files can be cloned on it.</summary>
/// <param name="Root">As in <see cref="VolumeLocation.Root"/>.</param>
/// <param name="FileSystem">As in <see cref="VolumeLocation.FileSystem"/>.</param>
/// <param name="CanClone">Whether files can be cloned within the volume; null when it could not be found out.</param>
/// <param name="CloneEvidence">How that is known: the volume's own flag (Windows), a probe clone of a file of our own, or the file system's kind.</param>
/// <param name="StockCopyClones">Whether MSBuild's own Copy task (File.Copy / CopyFile) clones there too; null when unknown.</param>
/// <param name="DevDrive">Windows: whether the volume is a Dev Drive; null elsewhere or when Windows would not say.</param>
/// <param name="TrustedDevDrive">Windows: whether that Dev Drive is trusted (antivirus in performance mode); null when not a Dev Drive.</param>
/// <param name="UsedSpaceCaveat">Why the volume's used space can move for reasons other than a build, where the OS makes it so.</param>
/// <param name="FileSystemId">As in <see cref="VolumeLocation.FileSystemId"/>.</param>
internal sealed record VolumeFacts(
    string Root,
    string FileSystem,
    bool? CanClone,
    string CloneEvidence,
    bool? StockCopyClones,
    bool? DevDrive,
    bool? TrustedDevDrive,
    string? UsedSpaceCaveat,
    string? FileSystemId = null)
{
    public VolumeLocation Location => new(Root, FileSystem, FileSystemId);
}

/// <summary>
/// What one OS says about volumes; one implementation per OS (<see cref="LinuxVolumes"/>, <see cref="WindowsVolumes"/>,
/// <see cref="MacVolumes"/>), the Windows and macOS ones deciding from their OS's answers behind a seam
/// (<see cref="IWindowsVolumeSystem"/>, <see cref="IMacVolumeSystem"/>) so that those decisions are tested anywhere.
/// </summary>
internal interface IVolumeInspector
{
    /// <summary>The volume of <paramref name="path"/>, which need not exist (its nearest existing folder is asked).</summary>
    VolumeLocation Locate(string path);

    /// <summary>
    /// Everything about the volume of <paramref name="folder"/>, including whether it clones. Where the OS has no flag
    /// for that (Linux, macOS) a small file of our own is cloned in <paramref name="folder"/>, with no name where the
    /// file system allows (nothing to leave behind, whatever stops the process); a folder that cannot be written to,
    /// or that <paramref name="mayWrite"/> false keeps us from writing to (the .NET installation, a system folder), is
    /// answered from the volume's own flags where it has them (XFS), else from what the file system's kind says, else
    /// "unknown", and the evidence says so.
    /// </summary>
    VolumeFacts Inspect(string folder, bool mayWrite);
}

/// <summary>What an OS call answered, as it answered it: a value, or the call's error (errno on macOS, the Win32 error code on Windows).</summary>
internal readonly record struct SystemAnswer<T>(T Value, int Error)
{
    public bool Succeeded => Error == 0;

    public static SystemAnswer<T> Ok(T value) => new(value, 0);

    public static SystemAnswer<T> Failed(int error) => new(default!, error);
}
