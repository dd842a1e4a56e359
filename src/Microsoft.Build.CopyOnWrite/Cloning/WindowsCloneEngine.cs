using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using Microsoft.Win32.SafeHandles;
#if NET
using System.Runtime.Versioning;
#endif

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Windows: block cloning (FSCTL_DUPLICATE_EXTENTS_TO_FILE, ReFS and Dev Drive) into a fresh temporary file,
/// else a plain stream copy, then the source's times and attributes, then an atomic rename over the destination.
/// </summary>
/// <remarks>
/// The fallback never calls CopyFile: on Windows 11 24H2 it block-clones by itself, and a result that says
/// "copied" must be true. Nothing is asked of a volume until a file is copied to it, and a volume that
/// cannot be queried is one we do not clone on, never an exception.
/// </remarks>
#if NET
[SupportedOSPlatform("windows")]
#endif
internal sealed class WindowsCloneEngine : ICloneEngine
{
    private const int CopyBufferBytes = 1 << 20; // also the distance between cancellation checks

    private readonly CloneCapabilityCache _refusals;

    public WindowsCloneEngine(CloneCapabilityCache refusals) => _refusals = refusals;

    public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken)
    {
        return AtomicFile.WriteBeside(destinationPath, temporaryPath =>
        {
            CloneResult result;

            // bufferSize 1: no FileStream buffer, so no write can reach the file after its times are set.
            using (var source = new FileStream(sourcePath, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, bufferSize: 1))
            using (var destination = new FileStream(temporaryPath, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None, bufferSize: 1))
            {
                // Read before the data is, so that reading cannot move the last-access time we copy.
                WindowsNative.FileBasicInfo sourceTimes = WindowsNative.GetTimesAndAttributes(source.SafeFileHandle, sourcePath);

                result = CloneOrCopyContent(source, destination, temporaryPath, cancellationToken);

                destination.Flush();
                sourceTimes.ChangeTime = 0; // the file system keeps its own
                sourceTimes.FileAttributes = WindowsCloneDecisions.DestinationAttributes(sourceTimes.FileAttributes);
                WindowsNative.SetTimesAndAttributes(destination.SafeFileHandle, sourceTimes, temporaryPath);
            }

            cancellationToken.ThrowIfCancellationRequested();
            return result;
        });
    }

    private CloneResult CloneOrCopyContent(FileStream source, FileStream destination, string temporaryPath, CancellationToken cancellationToken)
    {
        if (!WindowsNative.TryGetFileFacts(source.SafeFileHandle, out WindowsFileFacts sourceFile, out int error)
            || !WindowsNative.TryGetFileFacts(destination.SafeFileHandle, out WindowsFileFacts destinationFile, out error))
        {
            return Copied(FallbackReason.FileSystemCannotClone, WindowsCloneDecisions.DescribeUnqueryableVolume(null, WindowsNative.Describe(error)));
        }

        var volumes = new VolumePair(sourceFile.VolumeSerial, destinationFile.VolumeSerial, 0);
        FallbackReason reason = WindowsCloneDecisions.WhyNotCloneThisFile(sourceFile, destinationFile, _refusals.RememberedRefusal(volumes), out string? detail);
        if (reason != FallbackReason.None)
        {
            return Copied(reason, detail);
        }

        WindowsVolumeFacts volume = QueryVolume(destination.SafeFileHandle, temporaryPath);
        reason = WindowsCloneDecisions.WhyVolumeCannotClone(volume, out detail);
        if (reason == FallbackReason.None)
        {
            error = Clone(source.SafeFileHandle, destination, sourceFile, volume.ClusterBytes, cancellationToken);
            if (error == 0)
            {
                return CloneResult.Cloned(sourceFile.Size);
            }

            reason = CloneErrors.ClassifyWindows(error) ?? throw WindowsNative.ToException(error, temporaryPath);
            detail = reason == FallbackReason.FileSystemRefused ? WindowsNative.Describe(error) : volume.FileSystemName;

            // Chunks cloned before the refusal must not survive into a file we report as copied.
            destination.SetLength(0);
        }

        if (WindowsCloneDecisions.IsAboutTheVolumes(reason))
        {
            _refusals.RememberRefusal(volumes, reason, detail);
        }

        return Copied(reason, detail);

        CloneResult Copied(FallbackReason why, string? whyDetail)
            => CloneResult.Copied(CopyBytes(source, destination, cancellationToken), why, whyDetail);
    }

    /// <summary>Flags first: the cluster size is a path lookup, worth it only on a volume that can clone.</summary>
    private static WindowsVolumeFacts QueryVolume(SafeFileHandle destination, string temporaryPath)
    {
        if (!WindowsNative.TryGetVolumeFlags(destination, out uint flags, out string fileSystemName, out int error))
        {
            return new WindowsVolumeFacts(0, string.Empty, 0, WindowsNative.Describe(error));
        }

        if (!WindowsCloneDecisions.SupportsBlockCloning(flags))
        {
            return new WindowsVolumeFacts(flags, fileSystemName, 0);
        }

        return WindowsNative.TryGetClusterBytes(temporaryPath, out long clusterBytes, out error)
            ? new WindowsVolumeFacts(flags, fileSystemName, clusterBytes)
            : new WindowsVolumeFacts(flags, fileSystemName, 0, WindowsNative.Describe(error));
    }

    /// <returns>0, or the Win32 error that refused the clone.</returns>
    private static int Clone(SafeFileHandle source, FileStream destination, WindowsFileFacts sourceFile, long clusterBytes, CancellationToken cancellationToken)
    {
        if (sourceFile.IsSparse)
        {
            int sparseError = WindowsNative.TrySetSparse(destination.SafeFileHandle);
            if (sparseError != 0)
            {
                return sparseError;
            }
        }

        // A block clone may not extend the destination, so the file gets its final size first.
        destination.SetLength(sourceFile.Size);
        foreach (CloneChunk chunk in WindowsCloneDecisions.PlanChunks(sourceFile.Size, clusterBytes))
        {
            cancellationToken.ThrowIfCancellationRequested();
            int error = WindowsNative.TryDuplicateExtents(source, destination.SafeFileHandle, chunk);
            if (error != 0)
            {
                return error;
            }
        }

        return 0;
    }

    private static long CopyBytes(FileStream source, FileStream destination, CancellationToken cancellationToken)
    {
        byte[] buffer = new byte[CopyBufferBytes];
        long total = 0;
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            int read = source.Read(buffer, 0, buffer.Length);
            if (read == 0)
            {
                return total;
            }

            destination.Write(buffer, 0, read);
            total += read;
        }
    }
}

/// <summary>
/// The Windows engine's decisions, apart from the system calls so they run and are tested on any OS.
/// </summary>
internal static class WindowsCloneDecisions
{
    public const uint FileSupportsBlockRefcounting = 0x08000000;
    public const uint FileAttributeSparseFile = 0x200;
    public const uint FileAttributeIntegrityStream = 0x8000;

    /// <summary>Each block clone call must cover less than 4 GiB.</summary>
    public const long CloneCallLimitBytes = 4L << 30;

    private const uint FileAttributeHidden = 0x2;
    private const uint FileAttributeSystem = 0x4;
    private const uint FileAttributeArchive = 0x20;
    private const uint FileAttributeNormal = 0x80;
    private const uint FileAttributeTemporary = 0x100;
    private const uint FileAttributeNotContentIndexed = 0x2000;

    /// <summary>What the two files alone (and what we remember of their volumes) say; None: ask the volume.</summary>
    public static FallbackReason WhyNotCloneThisFile(WindowsFileFacts source, WindowsFileFacts destination, CloneCapabilityCache.Refusal? remembered, out string? detail)
    {
        detail = null;
        if (source.Size == 0)
        {
            return FallbackReason.EmptyFile;
        }

        if (source.VolumeSerial != destination.VolumeSerial)
        {
            return FallbackReason.DifferentVolumes;
        }

        if (remembered is CloneCapabilityCache.Refusal refusal)
        {
            detail = refusal.Detail;
            return refusal.Reason;
        }

        if (source.HasIntegrityStream != destination.HasIntegrityStream)
        {
            // ReFS clones only between files with the same integrity stream setting.
            detail = source.HasIntegrityStream ? "integrity streams are on for the source only" : "integrity streams are on for the destination only";
            return FallbackReason.FileSystemRefused;
        }

        return FallbackReason.None;
    }

    /// <summary>What the destination volume says; None: clone.</summary>
    public static FallbackReason WhyVolumeCannotClone(WindowsVolumeFacts volume, out string? detail)
    {
        string name = volume.FileSystemName.Length > 0 ? volume.FileSystemName : "the destination volume";
        detail = name;
        if (volume.QueryFailure is string failure)
        {
            detail = DescribeUnqueryableVolume(volume.FileSystemName, failure);
            return FallbackReason.FileSystemCannotClone;
        }

        if (!SupportsBlockCloning(volume.Flags))
        {
            return FallbackReason.FileSystemCannotClone;
        }

        if (!IsUsableClusterSize(volume.ClusterBytes))
        {
            detail = $"{name} with {volume.ClusterBytes}-byte clusters";
            return FallbackReason.FileSystemCannotClone;
        }

        detail = null;
        return FallbackReason.None;
    }

    /// <summary>Read as "{this} cannot clone" in the log.</summary>
    public static string DescribeUnqueryableVolume(string? fileSystemName, string failure)
        => $"{(string.IsNullOrEmpty(fileSystemName) ? "the destination volume" : fileSystemName)} (could not query it: {failure})";

    public static bool SupportsBlockCloning(uint volumeFlags) => (volumeFlags & FileSupportsBlockRefcounting) != 0;

    /// <summary>Refusals worth remembering for the volume pair; the others are about one file.</summary>
    public static bool IsAboutTheVolumes(FallbackReason reason) => reason is FallbackReason.DifferentVolumes or FallbackReason.FileSystemCannotClone;

    /// <summary>A power of two from 512 bytes to 2 MiB, the range NTFS and ReFS format with.</summary>
    public static bool IsUsableClusterSize(long clusterBytes)
        => clusterBytes >= 512 && clusterBytes <= (2 << 20) && (clusterBytes & (clusterBytes - 1)) == 0;

    /// <summary>
    /// The clone calls for a file: cluster-aligned offsets and lengths, each under 4 GiB. The last one ends
    /// at the cluster boundary after the end of file, because lengths must be whole clusters and the
    /// source's last cluster is allocated in full.
    /// </summary>
    public static IReadOnlyList<CloneChunk> PlanChunks(long fileSize, long clusterBytes)
    {
        if (fileSize < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(fileSize), fileSize, "A file size cannot be negative.");
        }

        if (!IsUsableClusterSize(clusterBytes))
        {
            throw new ArgumentOutOfRangeException(nameof(clusterBytes), clusterBytes, "Not a cluster size a volume can have.");
        }

        long largestChunk = (CloneCallLimitBytes - 1) / clusterBytes * clusterBytes;
        long end = (fileSize + clusterBytes - 1) / clusterBytes * clusterBytes;
        var chunks = new List<CloneChunk>();
        for (long offset = 0; offset < end; offset += largestChunk)
        {
            chunks.Add(new CloneChunk(offset, Math.Min(largestChunk, end - offset)));
        }

        return chunks;
    }

    /// <summary>
    /// The source's attributes that a file can be given, without ReadOnly (the stock Copy task leaves
    /// destinations writable). Normal says "none" explicitly: 0 would mean "leave them as they are".
    /// </summary>
    public static uint DestinationAttributes(uint sourceAttributes)
    {
        const uint Settable = FileAttributeHidden | FileAttributeSystem | FileAttributeArchive | FileAttributeTemporary | FileAttributeNotContentIndexed;
        uint kept = sourceAttributes & Settable;
        return kept == 0 ? FileAttributeNormal : kept;
    }
}

/// <summary>What GetFileInformationByHandle says about one open file.</summary>
internal readonly record struct WindowsFileFacts(long Size, uint VolumeSerial, uint Attributes)
{
    public bool IsSparse => (Attributes & WindowsCloneDecisions.FileAttributeSparseFile) != 0;

    public bool HasIntegrityStream => (Attributes & WindowsCloneDecisions.FileAttributeIntegrityStream) != 0;
}

/// <summary>What the destination volume says about itself; <see cref="QueryFailure"/> set when it would not say.</summary>
internal readonly record struct WindowsVolumeFacts(uint Flags, string FileSystemName, long ClusterBytes, string? QueryFailure = null);

/// <summary>One block clone call: the same range of source and destination.</summary>
internal readonly record struct CloneChunk(long Offset, long Length);
