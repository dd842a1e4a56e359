using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Clones a file where the file system can, else copies it, and says which; the result is File.Copy's (bytes, times,
/// mode, owner-writable), made beside the destination and renamed over it: never partial, never through a link.
/// </summary>
internal interface ICloneEngine
{
    /// <summary>Clones or copies <paramref name="sourcePath"/> to <paramref name="destinationPath"/> (both full paths).</summary>
    /// <param name="destination">What the caller just found there, links not followed: a hint, never a promise.</param>
    /// <exception cref="System.IO.IOException">A real failure (missing source, full disk, I/O error...).</exception>
    /// <exception cref="System.UnauthorizedAccessException">Access denied.</exception>
    /// <exception cref="System.OperationCanceledException">Cancelled; nothing was left behind.</exception>
    CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown);
}

/// <summary>How a file reached its destination.</summary>
internal enum CloneMethod
{
    /// <summary>The destination shares the source's extents: no data was written.</summary>
    Cloned,

    /// <summary>The bytes were copied; <see cref="CloneResult.Reason"/> says why not cloned.</summary>
    Copied,
}

/// <summary>Why a file was copied rather than cloned. Grouped in summaries, so keep the set small.</summary>
internal enum FallbackReason
{
    None = 0,
    /// <summary>Source and destination are on different file systems (volumes).</summary>
    DifferentVolumes,
    /// <summary>The destination's file system does not support cloning (ext4, tmpfs, NTFS, XFS without reflink...).</summary>
    FileSystemCannotClone,
    /// <summary>The file system supports cloning but refused this file (immutable, swap file, permissions, clone limit, interrupted on every attempt...).</summary>
    FileSystemRefused,
    /// <summary>Nothing to clone: the source is empty.</summary>
    EmptyFile,
    /// <summary>The source is not a regular file (device, FIFO...), so only its bytes can be read.</summary>
    NotARegularFile,
    /// <summary>This operating system or processor has no clone support in this engine.</summary>
    PlatformCannotClone,
    /// <summary>Our engine failed, and the <see cref="FallbackLadder"/> copied the file; the detail says how.</summary>
    EngineFailed,
}

/// <param name="Bytes">Size of the file that reached the destination.</param>
/// <param name="Detail">Extra words for the log, e.g. the file system's name or the refusing error.</param>
/// <param name="WrittenInPlace">Written in place, as the stock task writes it, where nothing could be renamed over it.</param>
internal readonly record struct CloneResult(CloneMethod Method, FallbackReason Reason, long Bytes, string? Detail = null, bool WrittenInPlace = false)
{
    public static CloneResult Cloned(long bytes, bool writtenInPlace = false) => new(CloneMethod.Cloned, FallbackReason.None, bytes, null, writtenInPlace);

    public static CloneResult Copied(long bytes, FallbackReason reason, string? detail = null, bool writtenInPlace = false) => new(CloneMethod.Copied, reason, bytes, detail, writtenInPlace);
}
