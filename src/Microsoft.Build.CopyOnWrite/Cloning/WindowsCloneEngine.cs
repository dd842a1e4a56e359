using System;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Windows: block cloning (FSCTL_DUPLICATE_EXTENTS_TO_FILE, ReFS and Dev Drive) into a fresh temporary file beside
/// the destination, else CopyFileExW into it, then a rename over the destination. Every system call goes through
/// <see cref="IWindowsFileSystem"/>, so this class runs, and is tested, on any OS.
/// </summary>
/// <remarks>
/// The rules below are the failure modes the reference implementations (microsoft/CopyOnWrite, the MSBuildSdks
/// CopyOnWrite SDK, reflink-copy) learned the hard way; docs/windows-engine.md lists them with their tests.
/// <list type="bullet">
/// <item>A source still open for writing is a sharing violation (the stock task's File.Copy gets the same and retries
/// it, MSB3026): the source is opened sharing read and delete only, so no writer can be mid-write while it is cloned.</item>
/// <item>A source written in the last <see cref="RecentWriteWindow"/> is flushed through a write handle before it is
/// cloned, and its clone is read back and compared: a clone of data still in the cache has come out as zeros with the
/// right size and time, which no incremental build ever repairs. Where it cannot be flushed it is copied.</item>
/// <item>Once the volume's flags say it clones, every refusal is about that one file: it is copied, nothing is
/// remembered for the volume, and only device and disk-full errors fail the copy.</item>
/// <item>The volume's answer (flags, cluster size from the open source, network or not) is asked once per volume.</item>
/// <item>The clone is made sparse before its size is set (no allocation, so no false "disk full") and cleared after
/// unless the source is sparse.</item>
/// <item>Nothing is cloned into or out of an alternate data stream, nor over a network share.</item>
/// <item>Where the volume cannot clone, CopyFileExW copies into the temporary file: the streams (Zone.Identifier),
/// attributes and offload paths the stock task's copy keeps. It cannot clone there, so "copied" is true; on a volume
/// that can clone (Windows 11 24H2's CopyFile clones by itself) the copy is asked afterwards whether it shares its
/// clusters, and reported for what it is.</item>
/// <item>The rename over the destination uses POSIX semantics where the file system has them, which replaces a
/// destination that others hold open with delete sharing; one held without it is a sharing violation naming the
/// destination, retried like the stock task's.</item>
/// </list>
/// Times: the destination gets the source's last-write time, as CopyFile gives it; the creation time is left to the
/// file system, as for the stock task's copy: a new file's is now, and a replaced file's comes back through the file
/// system's name tunneling for our rename as for the stock task's delete-then-create.
/// </remarks>
internal sealed class WindowsCloneEngine : ICloneEngine
{
    /// <summary>
    /// Sources written this recently may still have data in the cache only. The lazy writer flushes within seconds;
    /// a minute leaves room for a loaded machine at the price of one flush per freshly built file.
    /// </summary>
    public static readonly TimeSpan RecentWriteWindow = TimeSpan.FromMinutes(1);

    private const int VerifiedBlockBytes = 4096;

    private readonly IWindowsFileSystem _files;
    private readonly WindowsVolumeCache _volumes;
    private readonly Func<long> _utcNowFileTime;

    [ThreadStatic]
    private static byte[]? t_sourceBlock;

    [ThreadStatic]
    private static byte[]? t_cloneBlock;

    public WindowsCloneEngine(IWindowsFileSystem files, CloneCapabilityCache refusals)
        : this(files, refusals, () => DateTime.UtcNow.ToFileTimeUtc())
    {
    }

    /// <param name="refusals">Only its clock and lifetime: what a volume said is believed as long as a refusal is.</param>
    /// <param name="utcNowFileTime">The current time as a FILETIME (tests pass their own clock).</param>
    public WindowsCloneEngine(IWindowsFileSystem files, CloneCapabilityCache refusals, Func<long> utcNowFileTime)
    {
        _files = files;
        _volumes = new WindowsVolumeCache(refusals);
        _utcNowFileTime = utcNowFileTime;
    }

    public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (WindowsPaths.NamesAStream(destinationPath))
        {
            return CopyIntoStream(sourcePath, destinationPath, cancellationToken);
        }

        WindowsFile source = OpenSource(sourcePath);
        try
        {
            WindowsFileFacts facts = FactsOf(source, sourcePath);
            if (facts.Size == 0)
            {
                return CopyToDestination(ref source, sourcePath, destinationPath, facts, null, FallbackReason.EmptyFile, null, cancellationToken);
            }

            WindowsVolume volume = _volumes.Of(facts.VolumeSerial, () => AskVolume(source));
            FallbackReason reason = WindowsCloneDecisions.WhyVolumeCannotClone(volume, out string? detail);
            if (reason == FallbackReason.None && WindowsPaths.NamesAStream(sourcePath))
            {
                (reason, detail) = (FallbackReason.FileSystemCannotClone, WindowsCloneDecisions.AlternateDataStream);
            }

            if (reason != FallbackReason.None)
            {
                return CopyToDestination(ref source, sourcePath, destinationPath, facts, volume, reason, detail, cancellationToken);
            }

            return CloneToDestination(ref source, sourcePath, destinationPath, facts, volume, cancellationToken);
        }
        finally
        {
            source?.Dispose();
        }
    }

    private WindowsFile OpenSource(string sourcePath)
    {
        // No write sharing: a writer still holding the file makes this a sharing violation, retried like the stock task's.
        int error = _files.Open(sourcePath, WindowsAccess.Read, WindowsShare.Read | WindowsShare.Delete, WindowsCreation.OpenExisting, out WindowsFile? source);
        return error == 0 ? source! : throw WindowsErrors.ToException(error, sourcePath);
    }

    private WindowsFileFacts FactsOf(WindowsFile file, string path)
    {
        int error = _files.GetFileFacts(file, out WindowsFileFacts facts);
        return error == 0 ? facts : throw WindowsErrors.ToException(error, path);
    }

    private WindowsVolume AskVolume(WindowsFile fileOnIt)
    {
        int error = _files.GetVolumeFlags(fileOnIt, out uint flags, out string name);
        if (error != 0)
        {
            return WindowsVolume.Unqueryable(WindowsErrors.Describe(error));
        }

        // Only a volume that would clone is worth the second question.
        bool remote = WindowsCloneDecisions.SupportsBlockCloning(flags) && _files.IsOnNetworkShare(fileOnIt, out bool onShare) == 0 && onShare;
        return new WindowsVolume(flags, name, remote);
    }

    private CloneResult CloneToDestination(ref WindowsFile source, string sourcePath, string destinationPath, WindowsFileFacts facts, WindowsVolume volume, CancellationToken cancellationToken)
    {
        bool writtenRecently = WindowsCloneDecisions.IsRecent(facts.LastWriteTime, _utcNowFileTime(), RecentWriteWindow);
        if (writtenRecently)
        {
            string? notFlushed = FlushAndReopen(ref source, sourcePath, facts);
            if (notFlushed is not null)
            {
                return CopyToDestination(ref source, sourcePath, destinationPath, facts, volume, FallbackReason.FileSystemRefused, notFlushed, cancellationToken);
            }
        }

        long clusterBytes = volume.ClusterBytes;
        if (clusterBytes == 0)
        {
            int error = _files.GetIntegrity(source, out WindowsIntegrity integrity);
            if (error != 0 || !WindowsCloneDecisions.IsUsableClusterSize(integrity.ClusterBytes))
            {
                string why = error != 0 ? WindowsErrors.Describe(error) : $"{integrity.ClusterBytes} bytes";
                return CopyToDestination(ref source, sourcePath, destinationPath, facts, volume, FallbackReason.FileSystemRefused, $"could not read the volume's cluster size: {why}", cancellationToken);
            }

            clusterBytes = volume.ClusterBytes = integrity.ClusterBytes;
        }

        string temporaryPath = WindowsPaths.TemporaryPathBeside(destinationPath);
        int createError = _files.Open(temporaryPath, WindowsAccess.Read | WindowsAccess.Write | WindowsAccess.Delete, WindowsShare.Delete, WindowsCreation.CreateNew, out WindowsFile? clone);
        if (createError != 0)
        {
            throw WindowsErrors.ToException(createError, destinationPath);
        }

        string? refusal;
        bool differentVolumes;
        try
        {
            refusal = CloneInto(source, clone!, facts, destinationPath, clusterBytes, writtenRecently, out differentVolumes, cancellationToken);
            if (refusal is null)
            {
                SetCopyMetadata(clone!, facts, destinationPath);
                RenameOver(clone!, destinationPath, volume);
                return CloneResult.Cloned(facts.Size);
            }
        }
        catch
        {
            clone!.Dispose();
            DeleteTemporary(temporaryPath);
            throw;
        }
        finally
        {
            clone!.Dispose();
        }

        // Chunks cloned before the refusal must not survive into a file we report as copied: start afresh.
        DeleteTemporary(temporaryPath);
        return differentVolumes
            ? CopyToDestination(ref source, sourcePath, destinationPath, facts, null, FallbackReason.DifferentVolumes, null, cancellationToken)
            : CopyToDestination(ref source, sourcePath, destinationPath, facts, volume, FallbackReason.FileSystemRefused, refusal, cancellationToken, verifyIfCloned: true);
    }

    /// <summary>
    /// The flush needs a write handle, which the open source denies: so close it, flush, reopen it sharing no
    /// writing again, and make sure nobody wrote in between. Null when flushed; else why it is copied instead.
    /// </summary>
    private string? FlushAndReopen(ref WindowsFile source, string sourcePath, WindowsFileFacts before)
    {
        source.Dispose();
        int error = _files.Open(sourcePath, WindowsAccess.Write, WindowsShare.Read | WindowsShare.Write | WindowsShare.Delete, WindowsCreation.OpenExisting, out WindowsFile? writer);
        if (error == 0)
        {
            using (writer)
            {
                error = _files.Flush(writer!);
            }
        }

        source = OpenSource(sourcePath);
        if (error == WindowsErrors.SharingViolation)
        {
            throw WindowsErrors.ToException(error, sourcePath); // a writer that shares no writing is still at it
        }

        if (error != 0)
        {
            return $"written moments ago and could not be flushed before cloning: {WindowsErrors.Describe(error)}";
        }

        WindowsFileFacts after = FactsOf(source, sourcePath);
        return after.Size == before.Size && after.LastWriteTime == before.LastWriteTime ? null : "it was written to again while it was being flushed";
    }

    /// <returns>Null when <paramref name="clone"/> now holds the source's data; else why this one file is copied instead.</returns>
    private string? CloneInto(WindowsFile source, WindowsFile clone, WindowsFileFacts sourceFacts, string destinationPath, long clusterBytes, bool verifyThoroughly, out bool differentVolumes, CancellationToken cancellationToken)
    {
        differentVolumes = false;
        int error = _files.GetFileFacts(clone, out WindowsFileFacts cloneFacts);
        if (error != 0)
        {
            return Refused("could not read the new file", error);
        }

        if (cloneFacts.VolumeSerial != sourceFacts.VolumeSerial)
        {
            differentVolumes = true;
            return string.Empty;
        }

        if (cloneFacts.HasIntegrityStream != sourceFacts.HasIntegrityStream)
        {
            string? mismatch = MatchIntegrity(source, clone, sourceFacts);
            if (mismatch is not null)
            {
                return mismatch;
            }
        }

        if ((error = _files.SetSparse(clone, true)) != 0)
        {
            return Refused("could not make the new file sparse", error);
        }

        // A block clone may not extend the destination, so the file gets its final size first.
        if ((error = _files.SetEndOfFile(clone, sourceFacts.Size)) != 0)
        {
            return WindowsErrors.IsDeviceOrSpaceFailure(error) ? throw WindowsErrors.ToException(error, destinationPath) : Refused("could not set the new file's size", error);
        }

        foreach (CloneChunk chunk in WindowsCloneDecisions.PlanChunks(sourceFacts.Size, clusterBytes))
        {
            cancellationToken.ThrowIfCancellationRequested();
            if ((error = _files.DuplicateExtents(source, clone, chunk)) != 0)
            {
                return WindowsErrors.IsDeviceOrSpaceFailure(error) ? throw WindowsErrors.ToException(error, destinationPath) : WindowsCloneDecisions.DescribeCloneRefusal(error);
            }
        }

        if (!sourceFacts.IsSparse && (error = _files.SetSparse(clone, false)) != 0)
        {
            return Refused("could not clear the clone's sparse flag", error);
        }

        return ClonedDataMatches(source, clone, sourceFacts.Size, verifyThoroughly) ? null : WindowsCloneDecisions.CloneDidNotMatch;
    }

    /// <summary>
    /// ReFS clones only between files with the same integrity stream setting; the new file took its folder's.
    /// Give it the source's (a failure, e.g. access denied on Dev Drive, is only a reason to copy).
    /// </summary>
    private string? MatchIntegrity(WindowsFile source, WindowsFile clone, WindowsFileFacts sourceFacts)
    {
        ushort algorithm = 0; // CHECKSUM_TYPE_NONE
        uint flags = 0;
        if (sourceFacts.HasIntegrityStream && _files.GetIntegrity(source, out WindowsIntegrity integrity) == 0)
        {
            (algorithm, flags) = (integrity.ChecksumAlgorithm, integrity.Flags);
        }

        _files.SetIntegrity(clone, algorithm, flags);
        bool matched = _files.GetFileFacts(clone, out WindowsFileFacts now) == 0 && now.HasIntegrityStream == sourceFacts.HasIntegrityStream;
        return matched ? null : sourceFacts.HasIntegrityStream ? "integrity streams are on for the source only" : "integrity streams are on for the destination's folder only";
    }

    /// <summary>
    /// Reads the clone's first and last blocks (and a middle one for a file written moments ago) back and compares
    /// them with the source's: a clone of data the file system had not written yet reads as zeros.
    /// </summary>
    private bool ClonedDataMatches(WindowsFile source, WindowsFile clone, long size, bool thorough)
    {
        byte[] expected = t_sourceBlock ??= new byte[VerifiedBlockBytes];
        byte[] actual = t_cloneBlock ??= new byte[VerifiedBlockBytes];
        foreach (long offset in WindowsCloneDecisions.VerifiedBlockOffsets(size, VerifiedBlockBytes, thorough))
        {
            int count = (int)Math.Min(VerifiedBlockBytes, size - offset);
            if (_files.Read(source, offset, expected, count, out int expectedRead) != 0
                || _files.Read(clone, offset, actual, count, out int actualRead) != 0
                || expectedRead != count || actualRead != count
                || !SameBytes(expected, actual, count))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>The stock task's copy: the source's last-write time and attributes, never read-only.</summary>
    private void SetCopyMetadata(WindowsFile file, WindowsFileFacts sourceFacts, string destinationPath)
    {
        int error = _files.SetBasicInfo(file, 0, 0, sourceFacts.LastWriteTime, WindowsCloneDecisions.DestinationAttributes(sourceFacts.Attributes));
        if (error != 0)
        {
            throw WindowsErrors.ToException(error, destinationPath);
        }
    }

    /// <summary>
    /// CopyFileExW into a temporary file, then the rename. The source handle is closed first: CopyFileExW opens it itself.
    /// </summary>
    /// <param name="volume">The source's volume when known; on one that clones, the copy is asked whether Windows cloned it.</param>
    /// <param name="verifyIfCloned">After a clone whose data did not match: a copy that Windows cloned is compared too.</param>
    private CloneResult CopyToDestination(ref WindowsFile source, string sourcePath, string destinationPath, WindowsFileFacts facts, WindowsVolume? volume, FallbackReason reason, string? detail, CancellationToken cancellationToken, bool verifyIfCloned = false)
    {
        source.Dispose();
        cancellationToken.ThrowIfCancellationRequested();
        string temporaryPath = WindowsPaths.TemporaryPathBeside(destinationPath);
        int error = _files.CopyFile(sourcePath, temporaryPath, cancellationToken);
        if (error != 0)
        {
            if (error != WindowsErrors.FileExists)
            {
                DeleteTemporary(temporaryPath); // CopyFileExW may leave a partial file; an existing one is not ours
            }

            throw WindowsErrors.ToCopyException(error, sourcePath, destinationPath);
        }

        // CopyFileExW gave the copy the source's attributes: read-only would keep us from opening it to rename it
        // (and the stock task leaves destinations writable), so it goes first, by path.
        if ((facts.Attributes & WindowsCloneDecisions.FileAttributeReadOnly) != 0
            && (error = _files.SetAttributes(temporaryPath, WindowsCloneDecisions.DestinationAttributes(facts.Attributes))) != 0)
        {
            DeleteTemporary(temporaryPath);
            throw WindowsErrors.ToException(error, destinationPath);
        }

        WindowsFile? copy = null;
        try
        {
            error = _files.Open(temporaryPath, WindowsAccess.Read | WindowsAccess.WriteAttributes | WindowsAccess.Delete, WindowsShare.Read | WindowsShare.Delete, WindowsCreation.OpenExisting, out copy);
            if (error != 0)
            {
                throw WindowsErrors.ToException(error, destinationPath);
            }

            bool clonedByWindows = volume is { CanClone: true } && _files.HasSharedClusters(copy!, out bool shared) == 0 && shared;
            if (clonedByWindows && verifyIfCloned)
            {
                source = OpenSource(sourcePath);
                if (!ClonedDataMatches(source, copy!, facts.Size, thorough: true))
                {
                    throw new System.IO.IOException($"The file system returned other data for a clone of '{sourcePath}' than the file holds, twice; '{destinationPath}' was left as it was. Check the volume (chkdsk) before building again.");
                }
            }

            RenameOver(copy!, destinationPath, volume);
            return clonedByWindows ? CloneResult.Cloned(facts.Size) : CloneResult.Copied(facts.Size, reason, detail);
        }
        catch
        {
            copy?.Dispose();
            DeleteTemporary(temporaryPath);
            throw;
        }
        finally
        {
            copy?.Dispose();
        }
    }

    /// <summary>
    /// An alternate data stream cannot be renamed into place from another file, so it is copied in place, after
    /// deleting the stream as the stock task does. The one destination written without the atomic rename.
    /// </summary>
    private CloneResult CopyIntoStream(string sourcePath, string destinationPath, CancellationToken cancellationToken)
    {
        _files.Delete(destinationPath);
        int error = _files.CopyFile(sourcePath, destinationPath, cancellationToken);
        if (error != 0)
        {
            throw WindowsErrors.ToCopyException(error, sourcePath, destinationPath);
        }

        WindowsFile stream = OpenSource(destinationPath);
        using (stream)
        {
            return CloneResult.Copied(FactsOf(stream, destinationPath).Size, FallbackReason.FileSystemCannotClone, WindowsCloneDecisions.AlternateDataStream);
        }
    }

    private void RenameOver(WindowsFile file, string destinationPath, WindowsVolume? volume)
    {
        bool posix = volume?.PosixRename != false;
        int error = _files.Rename(file, destinationPath, posix);
        if (posix && WindowsErrors.MeansUnsupported(error))
        {
            // Before Windows 10 1607, and on file systems without POSIX renames: the classic replacing rename.
            if (volume is not null)
            {
                volume.PosixRename = false;
            }

            error = _files.Rename(file, destinationPath, posixSemantics: false);
        }

        if (error != 0)
        {
            throw RenameFailure(error, destinationPath);
        }
    }

    /// <summary>
    /// Access denied on a replacing rename means either no right to replace the destination, or another process
    /// holding it open without delete sharing; the stock task meets the second as a sharing violation and retries it.
    /// So ask which, and name the destination either way.
    /// </summary>
    private Exception RenameFailure(int error, string destinationPath)
    {
        if (error == WindowsErrors.AccessDenied)
        {
            int probe = _files.Open(destinationPath, WindowsAccess.Delete | WindowsAccess.ReadAttributes, WindowsShare.Read | WindowsShare.Write | WindowsShare.Delete, WindowsCreation.OpenExisting, out WindowsFile? file);
            using (file)
            {
                bool readOnly = probe == 0 && _files.GetFileFacts(file!, out WindowsFileFacts facts) == 0 && (facts.Attributes & WindowsCloneDecisions.FileAttributeReadOnly) != 0;
                if (probe != WindowsErrors.AccessDenied && !readOnly)
                {
                    error = WindowsErrors.SharingViolation;
                }
            }
        }

        return WindowsErrors.ToException(error, destinationPath);
    }

    /// <summary>Best effort, for a failure already being reported; a read-only leftover is made deletable first.</summary>
    private void DeleteTemporary(string temporaryPath)
    {
        if (_files.Delete(temporaryPath) == WindowsErrors.AccessDenied && _files.SetAttributes(temporaryPath, WindowsCloneDecisions.FileAttributeNormal) == 0)
        {
            _files.Delete(temporaryPath);
        }
    }

    private static bool SameBytes(byte[] expected, byte[] actual, int count)
    {
        for (int i = 0; i < count; i++)
        {
            if (expected[i] != actual[i])
            {
                return false;
            }
        }

        return true;
    }

    private static string Refused(string step, int error) => $"{step}: {WindowsErrors.Describe(error)}";
}
