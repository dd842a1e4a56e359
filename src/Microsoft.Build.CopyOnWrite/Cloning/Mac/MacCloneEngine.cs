#if NET
using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// macOS: fclonefileat beside the destination, else read/write (never fcopyfile's data or File.Copy, which may clone,
/// and "copied" must be true) and fcopyfile's metadata; then owner-writable and a rename over the destination.
/// </summary>
internal sealed class MacCloneEngine : ICloneEngine
{
    /// <summary>CLONE_NOOWNERCOPY: the clone belongs to whoever builds, as a copy would.</summary>
    public const uint CloneNoOwnerCopy = 0x0002;

    /// <summary>CLONE_ACL: the ACL too, as File.Copy asks; older macOS answers EINVAL and is asked again without it.</summary>
    public const uint CloneAcl = 0x0004;

    private const int CopyBufferBytes = 1 << 20; // also the distance between cancellation checks
    private const int EInval = 22;
    private const int ENameTooLong = 63;

    private readonly IMacFileSystem _files;
    private readonly CloneCapabilityCache _refusals;

    public MacCloneEngine(IMacFileSystem files, CloneCapabilityCache refusals)
    {
        _files = files;
        _refusals = refusals;
    }

    public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
    {
        cancellationToken.ThrowIfCancellationRequested();
        string temporaryPath = AtomicFile.TemporaryPathBeside(destinationPath);
        try
        {
            CloneResult result;
            using (MacFile source = _files.OpenForReading(sourcePath))
            {
                MacFileStatus status = Check(_files.Stat(source, out MacFileStatus stat), stat, sourcePath);
                FallbackReason reason = Clone(source, status, temporaryPath, destinationPath, out string? detail);
                result = reason == FallbackReason.None
                    ? CloneResult.Cloned(status.Size)
                    : CloneResult.Copied(CopyWithMetadata(source, status, temporaryPath, destinationPath, cancellationToken), reason, detail);
            }

            cancellationToken.ThrowIfCancellationRequested();
            int error = _files.Rename(temporaryPath, destinationPath);
            return error == 0 ? result : throw ToException(error, destinationPath);
        }
        catch
        {
            _files.Unlink(temporaryPath);
            throw;
        }
    }

    /// <returns>None when <paramref name="temporaryPath"/> is now a clone; otherwise why not, and nothing was created.</returns>
    private FallbackReason Clone(MacFile source, in MacFileStatus status, string temporaryPath, string destinationPath, out string? detail)
    {
        // Failing to stat the destination's folder is a real failure: creating a file in it would fail too.
        string folder = Path.GetDirectoryName(temporaryPath)!;
        int error = _files.DeviceOf(folder, out ulong folderDevice);
        if (error != 0)
        {
            throw ToException(error, destinationPath);
        }

        var volumes = new VolumePair(status.Device, folderDevice, 0);
        FallbackReason reason = MacCloneDecisions.WhyNotClone(status, _refusals.RememberedRefusal(volumes), out detail);
        if (reason != FallbackReason.None)
        {
            return reason;
        }

        error = _files.CloneFrom(source, temporaryPath, CloneNoOwnerCopy | CloneAcl);
        if (error == EInval)
        {
            error = _files.CloneFrom(source, temporaryPath, CloneNoOwnerCopy);
        }

        if (error == 0)
        {
            if (!MacCloneDecisions.IsOwnerWritable(status.Mode))
            {
                error = _files.SetPermissions(temporaryPath, MacCloneDecisions.DestinationPermissions(status.Mode));
                if (error != 0)
                {
                    throw ToException(error, destinationPath);
                }
            }

            return FallbackReason.None;
        }

        reason = MacCloneDecisions.FallbackForCloneError(error, _files.FileSystemTypeName(folder), Marshal.GetPInvokeErrorMessage(error), out detail)
            ?? throw ToException(error, destinationPath);
        if (reason is FallbackReason.DifferentVolumes or FallbackReason.FileSystemCannotClone)
        {
            _refusals.RememberRefusal(volumes, reason, detail);
        }

        return reason;
    }

    /// <summary>A read/write loop (which never clones), then what fcopyfile's COPYFILE_METADATA keeps, then owner-writable.</summary>
    private long CopyWithMetadata(MacFile source, in MacFileStatus status, string temporaryPath, string destinationPath, CancellationToken cancellationToken)
    {
        using MacFile copy = _files.CreateNew(temporaryPath);
        byte[] buffer = new byte[CopyBufferBytes];
        long total = 0;
        int read;
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if ((read = _files.Read(source, buffer)) == 0)
            {
                break;
            }

            _files.Write(copy, buffer, read);
            total += read;
        }

        // After the data, so that the times it sets are the last ones written; the mode after that (fchmod leaves times).
        int error = _files.CopyMetadata(source, copy);
        if (error == 0 && !MacCloneDecisions.IsOwnerWritable(status.Mode))
        {
            error = _files.SetPermissions(copy, MacCloneDecisions.DestinationPermissions(status.Mode));
        }

        return error == 0 ? total : throw ToException(error, destinationPath);
    }

    private static MacFileStatus Check(int error, MacFileStatus status, string path) => error == 0 ? status : throw ToException(error, path);

    private static Exception ToException(int errno, string path)
        => errno == ENameTooLong ? new PathTooLongException($"The path '{path}' is too long, or a component of the specified path is too long.") : UnixErrors.ToException(errno, path);
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
