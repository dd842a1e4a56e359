#if NET
using System;
using System.Buffers;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Win32.SafeHandles;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>Linux: FICLONE, else copy_file_range, sendfile or read/write, into a new file named in one step.</summary>
internal sealed class LinuxCloneEngine : ICloneEngine
{
    private const int CopyChunkBytes = 64 << 20; // between cancellation checks
    private const int ReadWriteBufferBytes = 1 << 16;
    private const uint OwnerWrite = 0x80; // S_IWUSR

    /// <summary>How many interrupted copy_file_range (or sendfile) calls in a row before the copy goes on the next plainer way.</summary>
    private const int InKernelCopyAttempts = 4;

    private readonly CloneCapabilityCache _refusals;
    private readonly nuint? _ficlone;
    private readonly int? _unnamedFileFlag;
    private readonly StatfsLayout? _statfs;
    private bool _unnamedFilesCanBeNamed = true;
    private bool _linkFromDescriptor = true;

    public LinuxCloneEngine(CloneCapabilityCache refusals, Architecture architecture)
    {
        // The declarations in LinuxNative take 64-bit time_t and off_t; a 32-bit C library would misread them (CloneEngines.Choose).
        if (!Environment.Is64BitProcess)
        {
            throw new PlatformNotSupportedException("The Linux clone engine needs a 64-bit process.");
        }

        _refusals = refusals;
        _ficlone = LinuxNative.FicloneRequestFor(architecture);
        _unnamedFileFlag = LinuxNative.UnnamedFileFlagFor(architecture);
        _statfs = LinuxNative.StatfsLayoutFor(architecture);
    }

    public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
    {
        if (_unnamedFileFlag is int unnamedFileFlag && Volatile.Read(ref _unnamedFilesCanBeNamed)
            && TryCloneOrCopyIntoUnnamedFile(unnamedFileFlag, sourcePath, destinationPath, destination, cancellationToken) is CloneResult done)
        {
            return done;
        }

        return AtomicFile.WriteBeside(destinationPath, temporaryPath =>
        {
            CloneResult result;
            using (SafeFileHandle source = UnixFiles.OpenSourceForReading(sourcePath, out LinuxNative.FileStatus status))
            using (SafeFileHandle temporary = UnixFiles.CreateNew(temporaryPath))
            {
                result = CloneOrCopyContent(source, temporary, status, sourcePath, temporaryPath, cancellationToken);
                SetFileCopyMetadata(temporary, source, status, sourceWasRead: result.Method != CloneMethod.Cloned, sourcePath, temporaryPath);
            }

            cancellationToken.ThrowIfCancellationRequested();
            return result;
        });
    }

    /// <summary>
    /// Makes the file unnamed (O_TMPFILE) and names it when complete (linkat), so a kill leaves nothing; null where
    /// that cannot be (no /proc). A taken name (or one <paramref name="destination"/> says is) gets a rename over it.
    /// </summary>
    private CloneResult? TryCloneOrCopyIntoUnnamedFile(int unnamedFileFlag, string sourcePath, string destinationPath, EntryKind destination, CancellationToken cancellationToken)
    {
        const int EPERM = 1, ENOENT = 2, EEXIST = 17, ENOTDIR = 20, EISDIR = 21, EINVAL = 22, EOPNOTSUPP = 95;
        const uint OwnerReadWrite = 0x180; // the final mode is set once the content is in
        string folder = Path.GetDirectoryName(destinationPath) ?? "/";
        using SafeFileHandle source = UnixFiles.OpenSourceForReading(sourcePath, out LinuxNative.FileStatus status);
        bool nameTaken = destination == EntryKind.RegularFile;
        if (status.IsRegularFile && status.Size == 0 && !nameTaken && TryCreateEmptyAtItsName(source, status, sourcePath, destinationPath) is CloneResult empty)
        {
            return empty;
        }

        int fd = LinuxNative.Open(folder, unnamedFileFlag | LinuxNative.OpenWriteOnly | LinuxNative.OpenCloseOnExec, OwnerReadWrite);
        if (fd < 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            return errno is EOPNOTSUPP or EISDIR or EINVAL ? null : throw UnixFiles.OpenFailed(errno, destinationPath);
        }

        using var unnamed = new SafeFileHandle((IntPtr)fd, ownsHandle: true);
        CloneResult result = CloneOrCopyContent(source, unnamed, status, sourcePath, destinationPath, cancellationToken);
        SetFileCopyMetadata(unnamed, source, status, sourceWasRead: result.Method != CloneMethod.Cloned, sourcePath, destinationPath);
        cancellationToken.ThrowIfCancellationRequested();

        int linkErrno = nameTaken ? EEXIST : Name(fd, destinationPath);
        if (linkErrno == 0)
        {
            return result;
        }

        if (linkErrno == EEXIST)
        {
            return AtomicFile.WriteBeside(destinationPath, temporaryPath =>
            {
                int errno = Name(fd, temporaryPath);
                return errno == 0 ? result : throw UnixErrors.ToException(errno, destinationPath);
            });
        }

        if (linkErrno is ENOENT or EPERM or ENOTDIR or EINVAL && Directory.Exists(folder))
        {
            Volatile.Write(ref _unnamedFilesCanBeNamed, false); // e.g. no /proc in this container: named files from now on
            return null;
        }

        throw UnixErrors.ToException(linkErrno, destinationPath);
    }

    /// <summary>
    /// An empty source has no content to see half of, so a new destination is created at its name (O_EXCL: never
    /// through a link). Null when the destination exists or the source has content after all (a pseudo file of size 0).
    /// </summary>
    private static unsafe CloneResult? TryCreateEmptyAtItsName(SafeFileHandle source, in LinuxNative.FileStatus status, string sourcePath, string destinationPath)
    {
        const int EEXIST = 17;
        int sourceFd = (int)source.DangerousGetHandle();
        byte probe;
        if (LinuxNative.pread(sourceFd, &probe, 1, 0) != 0)
        {
            return null; // content, or an error the ordinary path meets and reports again
        }

        using SafeFileHandle? destination = UnixFiles.TryCreateNew(destinationPath, out int errno);
        if (destination is null)
        {
            return errno == EEXIST ? null : throw UnixFiles.OpenFailed(errno, destinationPath);
        }

        try
        {
            SetFileCopyMetadata(destination, source, status, sourceWasRead: true, sourcePath, destinationPath);
        }
        catch
        {
            LinuxNative.unlink(destinationPath); // ours (O_EXCL made it): no half-set file is left behind
            throw;
        }

        return CloneResult.Copied(0, FallbackReason.EmptyFile, null);
    }

    /// <summary>Names the unnamed file; 0 or the errno. linkat by descriptor where allowed, else via /proc.</summary>
    private int Name(int fd, string path)
    {
        const int EPERM = 1, ENOENT = 2, EINVAL = 22, ENOSYS = 38;
        if (Volatile.Read(ref _linkFromDescriptor))
        {
            if (LinuxNative.linkat(fd, string.Empty, LinuxNative.AtFdCwdValue, path, LinuxNative.AtEmptyPath) == 0)
            {
                return 0;
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno is not (ENOENT or EPERM or EINVAL or ENOSYS))
            {
                return errno; // EEXIST, ENOSPC, EIO...: the same through /proc
            }

            // Before 6.10 only CAP_DAC_READ_SEARCH may (ENOENT otherwise). If /proc can, it is the way from now on.
            int viaProc = NameThroughProc(fd, path);
            if (viaProc == 0)
            {
                Volatile.Write(ref _linkFromDescriptor, false);
            }

            return viaProc;
        }

        return NameThroughProc(fd, path);
    }

    private static int NameThroughProc(int fd, string path)
    {
        string self = "/proc/self/fd/" + fd.ToString(System.Globalization.CultureInfo.InvariantCulture);
        return LinuxNative.linkat(LinuxNative.AtFdCwdValue, self, LinuxNative.AtFdCwdValue, path, LinuxNative.AtSymlinkFollow) == 0
            ? 0
            : Marshal.GetLastPInvokeError();
    }

    /// <summary>
    /// File.Copy's metadata: permission bits, and both times as the source has them after being read (reading may move
    /// the access time; File.Copy carries it over), plus the stock task's rule that the owner can write the copy.
    /// </summary>
    private static void SetFileCopyMetadata(SafeFileHandle destination, SafeFileHandle source, in LinuxNative.FileStatus status, bool sourceWasRead, string sourcePath, string pathForErrors)
    {
        int destinationFd = (int)destination.DangerousGetHandle();
        LinuxNative.FileStatus times = sourceWasRead ? LinuxNative.Stat((int)source.DangerousGetHandle(), sourcePath) : status;
        LinuxNative.SetPermissions(destinationFd, status.PermissionBits | OwnerWrite, pathForErrors);
        LinuxNative.SetTimes(destinationFd, times, pathForErrors);
    }

    /// <summary>Puts the content into <paramref name="destination"/>: a clone, else a copy (in the kernel, else by reads and writes).</summary>
    private CloneResult CloneOrCopyContent(
        SafeFileHandle source,
        SafeFileHandle destination,
        in LinuxNative.FileStatus status,
        string sourcePath,
        string temporaryPath,
        CancellationToken cancellationToken)
    {
        int sourceFd = (int)source.DangerousGetHandle();
        int destinationFd = (int)destination.DangerousGetHandle();
        long size = status.Size;
        if (!status.IsRegularFile)
        {
            return Copied(FallbackReason.NotARegularFile, null);
        }

        if (status.Size == 0)
        {
            // Some files report size 0 yet have content (/proc): reading finds out, in one read for a truly empty file.
            return Copied(FallbackReason.EmptyFile, null);
        }

        if (_ficlone is not nuint ficlone)
        {
            return Copied(FallbackReason.PlatformCannotClone, RuntimeInformation.ProcessArchitecture.ToString());
        }

        // One statfs names the destination's file system instance (the key) and kind (for messages). It is
        // only needed when this source's volume was refused before, or when the clone is refused now.
        VolumePair volumes = default;
        long fileSystemType = 0;
        bool volumesKnown = false;
        if (_refusals.HasRefusalsFrom(status.Device))
        {
            volumes = VolumesOf(destinationFd, status, out fileSystemType);
            volumesKnown = true;
            if (_refusals.RememberedRefusal(volumes) is CloneCapabilityCache.Refusal refusal)
            {
                return Copied(refusal.Reason, refusal.Detail, refusal.InKernelCopyRefused ? null : volumes);
            }
        }

        int errno = LinuxNative.Clone(destinationFd, sourceFd, ficlone);

        if (errno == 0)
        {
            return CloneResult.Cloned(status.Size);
        }

        if (errno == LinuxNative.EINTR)
        {
            // Interrupted on every attempt: says nothing of the volume, so nothing is remembered and it is no fault; this
            // file is copied. A clone may have shared part of the extents before it was interrupted: start from empty.
            if (LinuxNative.ftruncate(destinationFd, 0) != 0)
            {
                throw UnixErrors.ToException(Marshal.GetLastPInvokeError(), temporaryPath);
            }

            return Copied(FallbackReason.FileSystemRefused, $"{Marshal.GetPInvokeErrorMessage(errno)}, {LinuxNative.CloneAttempts} times in a row");
        }

        FallbackReason? fallback = CloneErrors.ClassifyLinux(errno);
        if (fallback is not FallbackReason reason)
        {
            throw UnixErrors.ToException(errno, temporaryPath);
        }

        if (!volumesKnown)
        {
            volumes = VolumesOf(destinationFd, status, out fileSystemType);
        }

        string detail = reason == FallbackReason.FileSystemRefused
            ? Marshal.GetPInvokeErrorMessage(errno)
            : LinuxNative.FileSystemName(fileSystemType) ?? $"file system type 0x{fileSystemType:X}";
        if (reason is FallbackReason.DifferentVolumes or FallbackReason.FileSystemCannotClone)
        {
            _refusals.RememberRefusal(volumes, reason, detail);
        }

        return Copied(reason, detail, reason is FallbackReason.DifferentVolumes or FallbackReason.FileSystemCannotClone ? volumes : null);

        // copyInKernelBetween: volumes between which no clone can happen. Elsewhere copy_file_range could share extents
        // where the file system clones (XFS, btrfs), and "copied" would be untrue.
        CloneResult Copied(FallbackReason why, string? detail, VolumePair? copyInKernelBetween = null)
        {
            long copied = 0;
            if (copyInKernelBetween is VolumePair pair && LinuxNative.HasCopyFileRange)
            {
                copied = CopyInKernel(sourceFd, destinationFd, size, cancellationToken, out bool refused);
                if (refused)
                {
                    _refusals.RememberInKernelCopyRefused(pair);
                }
            }

            long bytes = CopyBytes(source, sourceFd, destinationFd, size, copied, sourcePath, temporaryPath, cancellationToken);
            return CloneResult.Copied(bytes, why, detail);
        }
    }

    /// <summary>
    /// copy_file_range up to <paramref name="size"/> (the server copies on NFS 4.2, SMB3), tried first as in File.Copy;
    /// the bytes copied. Failures fall back; <paramref name="refused"/>: it can never copy between these files.
    /// </summary>
    private static unsafe long CopyInKernel(int sourceFd, int destinationFd, long size, CancellationToken cancellationToken, out bool refused)
    {
        const int EPERM = 1, EBADF = 9, EXDEV = 18, EOPNOTSUPP = 95;
        refused = false;
        long total = 0;
        int interruptions = 0;
        while (total < size)
        {
            cancellationToken.ThrowIfCancellationRequested();
            nint copied = LinuxNative.copy_file_range(sourceFd, null, destinationFd, null, (nuint)Math.Min(CopyChunkBytes, size - total), 0);
            if (copied > 0)
            {
                total += copied;
                interruptions = 0;
                continue;
            }

            if (copied == 0)
            {
                return total; // shorter than its size said: what reading still finds is the content
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno == LinuxNative.EINTR && ++interruptions < InKernelCopyAttempts)
            {
                continue;
            }

            refused = total == 0 && errno is EXDEV or EOPNOTSUPP or LinuxNative.ENOSYS or LinuxNative.EINVAL or EBADF or EPERM;
            return total;
        }

        return total;
    }

    private VolumePair VolumesOf(int destinationFd, in LinuxNative.FileStatus source, out long fileSystemType)
    {
        LinuxNative.FileSystem(destinationFd, _statfs, out fileSystemType, out ulong fileSystemId);
        return new VolumePair(source.Device, fileSystemId, fileSystemType);
    }

    /// <summary>
    /// Copies on from where <paramref name="alreadyCopied"/> left the offsets: sendfile up to the statx size, as
    /// File.Copy, then reads to the real end, for pseudo files whose size is wrong (an empty file costs one read).
    /// </summary>
    private static long CopyBytes(SafeFileHandle source, int sourceFd, int destinationFd, long size, long alreadyCopied, string sourcePath, string temporaryPath, CancellationToken cancellationToken)
    {
        long total = alreadyCopied;
        if (size > 0 && total == size)
        {
            return total; // all there: the size was right
        }

        int interruptions = 0;
        while (size > 0)
        {
            cancellationToken.ThrowIfCancellationRequested();
            nint sent = LinuxNative.sendfile(destinationFd, sourceFd, 0, (nuint)Math.Min(CopyChunkBytes, Math.Max(size - total, 1)));
            if (sent > 0)
            {
                interruptions = 0;
                total += sent;
                if (total == size)
                {
                    return total;
                }

                continue;
            }

            if (sent == 0)
            {
                break; // shorter than its size said: whatever reading still finds is the content
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno == LinuxNative.EINTR && ++interruptions < InKernelCopyAttempts)
            {
                continue;
            }

            if (errno == LinuxNative.EINTR)
            {
                break; // interrupted every time (a filter, a signal storm): read and write the rest, never a loop
            }

            if (total == alreadyCopied && errno is LinuxNative.EINVAL or LinuxNative.ENOSYS)
            {
                break; // sendfile cannot read this kind of file: read and write instead, from where the copy is
            }

            throw UnixErrors.ToException(errno, temporaryPath);
        }

        return total + CopyBytesWithReadWrite(source, sourceFd, destinationFd, sourcePath, temporaryPath, cancellationToken);
    }

    /// <summary>read/write to the real end, pooled buffer; a pseudo file that says EAGAIN is made blocking.</summary>
    private static unsafe long CopyBytesWithReadWrite(SafeFileHandle source, int sourceFd, int destinationFd, string sourcePath, string temporaryPath, CancellationToken cancellationToken)
    {
        byte[] buffer = ArrayPool<byte>.Shared.Rent(ReadWriteBufferBytes);
        try
        {
            fixed (byte* start = buffer)
            {
                long total = 0;
                while (true)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    nint read = LinuxNative.read(sourceFd, start, (nuint)buffer.Length);
                    if (read == 0)
                    {
                        return total;
                    }

                    if (read < 0)
                    {
                        int errno = Marshal.GetLastPInvokeError();
                        if (errno == LinuxNative.EAGAIN)
                        {
                            UnixFiles.MakeBlocking(source, sourcePath);
                        }
                        else if (errno != LinuxNative.EINTR)
                        {
                            throw UnixErrors.ToException(errno, sourcePath);
                        }

                        continue;
                    }

                    for (nint written = 0; written < read;)
                    {
                        nint wrote = LinuxNative.write(destinationFd, start + written, (nuint)(read - written));
                        if (wrote > 0)
                        {
                            written += wrote;
                            continue;
                        }

                        int errno = wrote < 0 ? Marshal.GetLastPInvokeError() : 28; // no progress would loop forever: say ENOSPC
                        if (errno != LinuxNative.EINTR)
                        {
                            throw UnixErrors.ToException(errno, temporaryPath);
                        }
                    }

                    total += read;
                }
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}
#endif
