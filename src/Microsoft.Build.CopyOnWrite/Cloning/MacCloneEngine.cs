#if NET
using System.IO;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Threading;
using Microsoft.Win32.SafeHandles;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// macOS: clonefile (by descriptor) to a temporary file beside the destination, which brings data, mode,
/// times and extended attributes with it; else a plain stream copy with File.Copy's mode and times; then
/// the stock task's owner-writable rule and an atomic rename over the destination.
/// </summary>
/// <remarks>
/// The fallback does not use File.Copy: since .NET 7 it tries clonefile itself, and a result that says
/// "copied" must be true.
/// </remarks>
[SupportedOSPlatform("macos")]
internal sealed class MacCloneEngine : ICloneEngine
{
    private const int CopyBufferBytes = 1 << 20; // also the distance between cancellation checks

    private readonly CloneCapabilityCache _refusals;

    public MacCloneEngine(CloneCapabilityCache refusals) => _refusals = refusals;

    public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken)
    {
        return AtomicFile.WriteBeside(destinationPath, temporaryPath =>
        {
            CloneResult result;
            using (SafeFileHandle source = File.OpenHandle(sourcePath, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete))
            {
                int sourceFd = (int)source.DangerousGetHandle();
                MacFileStatus status = MacNative.Stat(sourceFd, sourcePath);

                FallbackReason reason = Clone(sourceFd, status, temporaryPath, out string? detail);
                result = reason == FallbackReason.None
                    ? CloneResult.Cloned(status.Size)
                    : CloneResult.Copied(CopyWithMetadata(source, sourcePath, status, temporaryPath, cancellationToken), reason, detail);
            }

            cancellationToken.ThrowIfCancellationRequested();
            return result;
        });
    }

    /// <returns>None when <paramref name="temporaryPath"/> is now a clone; otherwise why not, and nothing was created.</returns>
    private FallbackReason Clone(int sourceFd, in MacFileStatus source, string temporaryPath, out string? detail)
    {
        // Failing to stat the destination's folder is a real failure: creating a file in it would fail too.
        string folder = Path.GetDirectoryName(temporaryPath)!;
        var volumes = new VolumePair(source.Device, MacNative.Stat(folder).Device, 0);

        FallbackReason reason = MacCloneDecisions.WhyNotClone(source, _refusals.RememberedRefusal(volumes), out detail);
        if (reason != FallbackReason.None)
        {
            return reason;
        }

        int errno = MacNative.CloneFrom(sourceFd, temporaryPath);
        if (errno == 0)
        {
            if (!MacCloneDecisions.IsOwnerWritable(source.Mode))
            {
                MacNative.SetPermissions(temporaryPath, MacCloneDecisions.DestinationPermissions(source.Mode));
            }

            return FallbackReason.None;
        }

        reason = MacCloneDecisions.FallbackForCloneError(errno, MacNative.FileSystemTypeName(folder), Marshal.GetPInvokeErrorMessage(errno), out detail)
            ?? throw UnixErrors.ToException(errno, temporaryPath);
        if (reason is FallbackReason.DifferentVolumes or FallbackReason.FileSystemCannotClone)
        {
            _refusals.RememberRefusal(volumes, reason, detail);
        }

        return reason;
    }

    /// <summary>A read/write loop (which never clones), then the mode and times File.Copy would give.</summary>
    private static long CopyWithMetadata(SafeFileHandle source, string sourcePath, in MacFileStatus status, string temporaryPath, CancellationToken cancellationToken)
    {
        // The stream takes over the source handle (disposing a SafeHandle twice is harmless); streams, unlike
        // offset-based reads, also read pipes and devices.
        using var reader = new FileStream(source, FileAccess.Read, bufferSize: 0);
        using var writer = new FileStream(temporaryPath, FileMode.CreateNew, FileAccess.Write, FileShare.None, bufferSize: 0);

        byte[] buffer = new byte[CopyBufferBytes];
        long total = 0;
        int read;
        while ((read = ReadChecked(reader, buffer, cancellationToken)) > 0)
        {
            writer.Write(buffer, 0, read);
            total += read;
        }

        // Times as the source has them once its data was read: reading may move the access time, and
        // File.Copy carries the moved one over (as the Linux engine does).
        MacFileStatus afterRead = MacNative.Stat((int)source.DangerousGetHandle(), sourcePath);
        int destinationFd = (int)writer.SafeFileHandle.DangerousGetHandle();
        MacNative.SetPermissions(destinationFd, MacCloneDecisions.DestinationPermissions(status.Mode), temporaryPath);
        MacNative.SetTimes(destinationFd, afterRead, temporaryPath);
        return total;
    }

    private static int ReadChecked(FileStream reader, byte[] buffer, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        return reader.Read(buffer, 0, buffer.Length);
    }
}

/// <summary>The macOS engine's decisions, apart from the system calls so they run and are tested on any OS.</summary>
internal static class MacCloneDecisions
{
    private const uint OwnerWrite = 0x80; // S_IWUSR
    private const uint PermissionBits = 0x1FF; // rwxrwxrwx: what File.Copy carries over

    /// <summary>What the source alone (and what we remember of the volumes) says; None: try clonefile.</summary>
    public static FallbackReason WhyNotClone(in MacFileStatus source, CloneCapabilityCache.Refusal? remembered, out string? detail)
    {
        detail = null;
        if (!source.IsRegularFile)
        {
            return FallbackReason.NotARegularFile;
        }

        if (source.Size == 0)
        {
            return FallbackReason.EmptyFile;
        }

        if (remembered is CloneCapabilityCache.Refusal refusal)
        {
            detail = refusal.Detail;
            return refusal.Reason;
        }

        return FallbackReason.None;
    }

    /// <summary>Why to copy after clonefile failed with <paramref name="errno"/>; null: a real failure to report.</summary>
    /// <param name="fileSystemName">The destination's f_fstypename, for "hfs cannot clone"; null if unknown.</param>
    /// <param name="errorText">strerror(errno), the reason given when the file system refused this one file.</param>
    public static FallbackReason? FallbackForCloneError(int errno, string? fileSystemName, string errorText, out string? detail)
    {
        FallbackReason? reason = CloneErrors.ClassifyMac(errno);
        detail = reason switch
        {
            FallbackReason.FileSystemRefused => errorText,
            FallbackReason.FileSystemCannotClone => fileSystemName,
            _ => null,
        };
        return reason;
    }

    public static bool IsOwnerWritable(uint mode) => (mode & OwnerWrite) != 0;

    /// <summary>File.Copy's permission bits, made writable by the owner as the stock Copy task leaves them.</summary>
    public static uint DestinationPermissions(uint sourceMode) => (sourceMode & PermissionBits) | OwnerWrite;
}
#endif
