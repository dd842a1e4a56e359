namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Sorts clone errors into "copy instead" and real failures (I/O, no space, quota), which must surface: a copy would
/// hit them again or hide a failing disk. Windows differs: <see cref="WindowsErrors.IsDeviceOrSpaceFailure"/>.
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

    /// <summary>macOS errno after clonefile(); null: a real failure. Others copy the file, as in File.Copy.</summary>
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
