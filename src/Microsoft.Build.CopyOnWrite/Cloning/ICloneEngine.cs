using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Puts a file's content at a destination path, cloning (copy-on-write) where the file system can and
/// copying the bytes where it cannot, and says which it did. One implementation per operating system.
/// </summary>
/// <remarks>
/// Every implementation leaves the destination as the stock Copy task does on that OS: File.Copy's bytes,
/// last-write and last-access times and permission bits, made writable by its owner when the source was
/// read-only. And it writes it atomically: the content is made in a temporary file
/// beside the destination and renamed over it, so no reader, crash or full disk ever sees a partial
/// destination, and an existing destination that is a link is replaced, never written through.
/// </remarks>
internal interface ICloneEngine
{
    /// <summary>Clones or copies <paramref name="sourcePath"/> to <paramref name="destinationPath"/> (both full paths).</summary>
    /// <param name="destination">
    /// What the caller found at the destination just before, without following links (the task stats it for its own
    /// checks): <see cref="EntryKind.Missing"/>, <see cref="EntryKind.RegularFile"/>, or Unknown. A hint that lets an
    /// engine skip calls bound to fail, never a promise: it may have changed since, and every engine stays right
    /// (atomic, never through a link) whatever is there.
    /// </param>
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

    /// <summary>The bytes were copied; <see cref="CloneResult.FallbackReason"/> says why not cloned.</summary>
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
    /// <summary>
    /// Our engine failed for this file with an error nobody foresaw, and the stock task's plainer way copied it
    /// (<see cref="FallbackLadder"/>); the detail names the step and the error.
    /// </summary>
    EngineFailed,
}

internal readonly struct CloneResult
{
    public CloneResult(CloneMethod method, FallbackReason reason, long bytes, string? detail = null, bool writtenInPlace = false)
    {
        Method = method;
        Reason = reason;
        Bytes = bytes;
        Detail = detail;
        WrittenInPlace = writtenInPlace;
    }

    public CloneMethod Method { get; }

    public FallbackReason Reason { get; }

    /// <summary>Size of the file that reached the destination.</summary>
    public long Bytes { get; }

    /// <summary>Extra words for the log, e.g. the file system's name or the refusing error.</summary>
    public string? Detail { get; }

    /// <summary>
    /// The destination was written in place, not replaced: another process held it open so that no rename could
    /// replace it (Windows), and the stock task would have written into it too.
    /// </summary>
    public bool WrittenInPlace { get; }

    public static CloneResult Cloned(long bytes, bool writtenInPlace = false) => new(CloneMethod.Cloned, FallbackReason.None, bytes, null, writtenInPlace);

    public static CloneResult Copied(long bytes, FallbackReason reason, string? detail = null, bool writtenInPlace = false) => new(CloneMethod.Copied, reason, bytes, detail, writtenInPlace);
}
