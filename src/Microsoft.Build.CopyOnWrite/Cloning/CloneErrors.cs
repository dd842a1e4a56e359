namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Sorts the errors a clone call can return into "cannot clone here, copy instead" and real failures.
/// Real failures (I/O error, no space, quota, no memory) must surface as errors: copying instead would
/// only hit them again or, worse, hide a failing disk. One table per OS because the numbers differ.
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

    /// <summary>macOS errno after clonefile(). Null: a real failure.</summary>
    public static FallbackReason? ClassifyMac(int errno) => errno switch
    {
        18 => FallbackReason.DifferentVolumes,            // EXDEV
        45 => FallbackReason.FileSystemCannotClone,       // ENOTSUP: not APFS
        102 => FallbackReason.FileSystemCannotClone,      // EOPNOTSUPP
        78 => FallbackReason.FileSystemCannotClone,       // ENOSYS
        22 => FallbackReason.FileSystemCannotClone,       // EINVAL
        1 => FallbackReason.FileSystemRefused,            // EPERM
        13 => FallbackReason.FileSystemRefused,           // EACCES
        _ => null,                                        // EIO, ENOSPC, EDQUOT, ENOMEM, EEXIST...: real failures
    };

    /// <summary>Win32 error after FSCTL_DUPLICATE_EXTENTS_TO_FILE. Null: a real failure.</summary>
    public static FallbackReason? ClassifyWindows(int win32Error) => win32Error switch
    {
        17 => FallbackReason.DifferentVolumes,            // ERROR_NOT_SAME_DEVICE
        1 => FallbackReason.FileSystemCannotClone,        // ERROR_INVALID_FUNCTION: the file system has no such control code
        50 => FallbackReason.FileSystemCannotClone,       // ERROR_NOT_SUPPORTED
        87 => FallbackReason.FileSystemCannotClone,       // ERROR_INVALID_PARAMETER: e.g. unaligned ranges on this volume
        347 => FallbackReason.FileSystemRefused,          // ERROR_BLOCK_TOO_MANY_REFERENCES: a file can be cloned 8175 times
        5 => FallbackReason.FileSystemRefused,            // ERROR_ACCESS_DENIED
        _ => null,                                        // disk full, I/O device error, CRC, out of memory...: real failures
    };
}
