namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Sorts the errors a clone call can return into "cannot clone here, copy instead" and real failures.
/// Real failures (I/O error, no space, quota, no memory) must surface as errors: copying instead would
/// only hit them again or, worse, hide a failing disk. One table per OS because the numbers differ. Windows is
/// different in kind: once a volume's flags say it clones, every error but a device one is about one file
/// (<see cref="WindowsErrors.IsDeviceOrSpaceFailure"/>).
/// </summary>
internal static class CloneErrors
{
    /// <summary>Linux errno after ioctl(FICLONE). Null: a real failure.</summary>
    public static FallbackReason? ClassifyLinux(int errno) => errno switch
    {
        18 => FallbackReason.DifferentVolumes,            // EXDEV
        95 => FallbackReason.FileSystemCannotClone,       // EOPNOTSUPP / ENOTSUP
        22 => FallbackReason.FileSystemCannotClone,       // EINVAL: e.g. XFS without reflink, odd file types
        9 => FallbackReason.FileSystemCannotClone,        // EBADF: source's file system cannot be a clone source
        38 => FallbackReason.FileSystemCannotClone,       // ENOSYS
        25 => FallbackReason.FileSystemCannotClone,       // ENOTTY: the file system has no such ioctl
        26 => FallbackReason.FileSystemRefused,           // ETXTBSY: swap file
        1 => FallbackReason.FileSystemRefused,            // EPERM: immutable or append-only
        13 => FallbackReason.FileSystemRefused,           // EACCES
        _ => null,                                        // EIO, ENOSPC, EDQUOT, ENOMEM, EFBIG...: real failures
    };

    /// <summary>
    /// macOS errno after clonefile(). Null: a real failure. As .NET's File.Copy does, every other error is a reason to
    /// copy that file (EDEADLK for a file not downloaded yet, ENOMEM, codes no man page lists).
    /// </summary>
    public static FallbackReason? ClassifyMac(int errno) => errno switch
    {
        18 => FallbackReason.DifferentVolumes,            // EXDEV
        45 => FallbackReason.FileSystemCannotClone,       // ENOTSUP: not APFS
        102 => FallbackReason.FileSystemCannotClone,      // EOPNOTSUPP
        78 => FallbackReason.FileSystemCannotClone,       // ENOSYS
        5 or 28 or 69 => null,                            // EIO, ENOSPC, EDQUOT: the disk failed or is full
        17 => null,                                       // EEXIST: our temporary name was taken, a retry gets a new one
        _ => FallbackReason.FileSystemRefused,            // EINVAL, EPERM, EACCES, EDEADLK, ENOMEM...: this file
    };
}
