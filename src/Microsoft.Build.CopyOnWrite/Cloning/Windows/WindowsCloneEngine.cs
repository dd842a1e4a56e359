using System;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>Windows: block clone (ReFS, Dev Drive), else CopyFileExW, then a rename: docs/windows-engine.md.</summary>
internal sealed class WindowsCloneEngine : ICloneEngine
{
    /// <summary>A source written this recently may still have data only in the cache.</summary>
    public static readonly TimeSpan RecentWriteWindow = TimeSpan.FromMinutes(1);

    private readonly IWindowsFileSystem _files;
    private readonly WindowsVolumeCache _volumes;
    private readonly Func<long> _utcNowFileTime;
    private readonly PathGates _sourceGates = new();

    // Apart from the sources' gates: a clone holds its source's gate while it waits for its destination's, so one
    // set of monitors for both could close a cycle between two threads whose paths share monitors.
    private readonly PathGates _destinationGates = new();

    /// <summary>How long a destination held open is waited for before its sharing violation goes to the task's retries.</summary>
    private static readonly TimeSpan HeldDestinationPatience = TimeSpan.FromMilliseconds(50);

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

    // Never inlined into the ladder: a fault names the engine's step from this frame (EngineFault.From), which the JIT's
    // profile-guided inlining otherwise removes once the ladder is hot (seen as "failed at UnforeseenFault.Raise").
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
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

    /// <summary>
    /// No write sharing: a writer still holding the file makes this a sharing violation, retried like the stock task's.
    /// Non-cached, as microsoft/CopyOnWrite opens clone sources; nothing is read through it, so that costs nothing.
    /// </summary>
    private WindowsFile OpenSource(string sourcePath)
    {
        int error = _files.Open(sourcePath, WindowsAccess.Read, WindowsShare.Read | WindowsShare.Delete, WindowsCreation.OpenExisting, out WindowsFile? source, WindowsOpenOptions.NoBuffering);
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

        bool justWritten = WindowsCloneDecisions.IsRecent(facts.LastWriteTime, _utcNowFileTime(), RecentWriteWindow);
        object? gate = justWritten ? _sourceGates.For(sourcePath) : null;
        if (gate is not null)
        {
            Monitor.Enter(gate);
        }

        try
        {
            CloneAttempt attempt = TryCloneToDestination(source, sourcePath, destinationPath, facts, volume, clusterBytes, justWritten, cancellationToken);
            if (attempt.Outcome == CloneOutcome.NotShared)
            {
                // The evidence says some of the source's data was not on the disk when it was cloned: now, and only
                // now, pay for a flush (the whole device's cache with it), and clone again.
                string? notFlushed = FlushAndReopen(ref source, sourcePath, facts);
                attempt = notFlushed is null
                    ? TryCloneToDestination(source, sourcePath, destinationPath, facts, volume, clusterBytes, verifyShared: true, cancellationToken)
                    : new CloneAttempt(CloneOutcome.Refused, notFlushed);
                if (attempt.Outcome == CloneOutcome.NotShared)
                {
                    attempt = new CloneAttempt(CloneOutcome.Refused, WindowsCloneDecisions.CloneNotShared);
                }
            }

            return attempt.Outcome switch
            {
                CloneOutcome.Cloned => CloneResult.Cloned(facts.Size, attempt.WrittenInPlace),
                CloneOutcome.DifferentVolumes => CopyToDestination(ref source, sourcePath, destinationPath, facts, null, FallbackReason.DifferentVolumes, null, cancellationToken),
                _ => CopyToDestination(ref source, sourcePath, destinationPath, facts, volume, FallbackReason.FileSystemRefused, attempt.Refusal, cancellationToken),
            };
        }
        finally
        {
            if (gate is not null)
            {
                Monitor.Exit(gate);
            }
        }
    }

    /// <summary>A clone into a new temporary file, then its times, then the rename over the destination.</summary>
    private CloneAttempt TryCloneToDestination(WindowsFile source, string sourcePath, string destinationPath, WindowsFileFacts facts, WindowsVolume volume, long clusterBytes, bool verifyShared, CancellationToken cancellationToken)
    {
        string temporaryPath = WindowsPaths.TemporaryPathBeside(destinationPath);
        int createError = _files.Open(temporaryPath, WindowsAccess.Read | WindowsAccess.Write | WindowsAccess.Delete, WindowsShare.Delete, WindowsCreation.CreateNew, out WindowsFile? clone);
        if (createError != 0)
        {
            throw WindowsErrors.ToException(createError, destinationPath);
        }

        CloneAttempt attempt;
        try
        {
            attempt = CloneInto(source, clone!, facts, destinationPath, clusterBytes, verifyShared, cancellationToken);
            if (attempt.Outcome == CloneOutcome.Cloned)
            {
                SetCopyMetadata(clone!, facts, destinationPath);
                int held = RenameOver(clone!, destinationPath, volume);
                if (held != 0 && !ReplaceHeldDestinationWithClone(clone!, source, sourcePath, destinationPath, facts, volume, clusterBytes, held, cancellationToken))
                {
                    clone!.Dispose();
                    DeleteTemporary(temporaryPath);
                    return new CloneAttempt(CloneOutcome.Cloned, null, WrittenInPlace: true);
                }

                return attempt;
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
        return attempt;
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
            return $"written moments ago, its clone did not share all of its clusters, and it could not be flushed: {WindowsErrors.Describe(error)}";
        }

        WindowsFileFacts after = FactsOf(source, sourcePath);
        return after.Size == before.Size && after.LastWriteTime == before.LastWriteTime ? null : "it was written to again while it was being flushed";
    }

    /// <summary>Makes <paramref name="clone"/> (empty or not) hold the source's data by sharing its clusters.</summary>
    /// <param name="verifyShared">Ask afterwards whether every cluster of the clone is shared (a just-written source).</param>
    private CloneAttempt CloneInto(WindowsFile source, WindowsFile clone, WindowsFileFacts sourceFacts, string destinationPath, long clusterBytes, bool verifyShared, CancellationToken cancellationToken)
    {
        bool sparse = WindowsCloneDecisions.SetsSparseFirst(sourceFacts);
        int error;
        if (sparse && (error = _files.SetSparse(clone, true)) != 0)
        {
            return Refused("could not make the new file sparse", error);
        }

        // A block clone may not extend the destination, so the file gets its final size first.
        error = _files.SetEndOfFile(clone, sourceFacts.Size);
        if (!sparse && error is WindowsErrors.DiskFull or WindowsErrors.HandleDiskFull)
        {
            // A nearly full volume: the clone itself needs no space, so allocate none.
            sparse = true;
            error = _files.SetSparse(clone, true);
            error = error != 0 ? error : _files.SetEndOfFile(clone, sourceFacts.Size);
        }

        if (error != 0)
        {
            return WindowsErrors.IsDeviceOrSpaceFailure(error) ? throw WindowsErrors.ToException(error, destinationPath) : Refused("could not set the new file's size", error);
        }

        var chunks = WindowsCloneDecisions.PlanChunks(sourceFacts.Size, clusterBytes);
        for (int i = 0; i < chunks.Count; i++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            error = _files.DuplicateExtents(source, clone, chunks[i]);
            if (error != 0 && i == 0 && !WindowsErrors.IsDeviceOrSpaceFailure(error))
            {
                // The first refusal is worth one question about the new file (never asked on the hot path): another
                // volume, or the integrity setting it took from its folder, which ReFS requires to be the source's.
                if (WhyFirstCloneFailed(source, clone, sourceFacts, out bool integrityMatched) is CloneAttempt known)
                {
                    return known;
                }

                error = integrityMatched ? _files.DuplicateExtents(source, clone, chunks[i]) : error;
            }

            if (error != 0)
            {
                return WindowsErrors.IsDeviceOrSpaceFailure(error)
                    ? throw WindowsErrors.ToException(error, destinationPath)
                    : new CloneAttempt(CloneOutcome.Refused, WindowsCloneDecisions.DescribeCloneRefusal(error));
            }
        }

        if (verifyShared)
        {
            error = _files.CountSharedClusters(clone, out long shared);
            if (error != 0 || !WindowsCloneDecisions.IsFullyShared(shared, sourceFacts.Size, clusterBytes))
            {
                return new CloneAttempt(CloneOutcome.NotShared, null);
            }
        }

        if (sparse && !sourceFacts.IsSparse && (error = _files.SetSparse(clone, false)) != 0)
        {
            return Refused("could not clear the clone's sparse flag", error);
        }

        return new CloneAttempt(CloneOutcome.Cloned, null);
    }

    /// <returns>Null when the integrity setting was the trouble and now matches (<paramref name="integrityMatched"/>): clone again.</returns>
    private CloneAttempt? WhyFirstCloneFailed(WindowsFile source, WindowsFile clone, WindowsFileFacts sourceFacts, out bool integrityMatched)
    {
        integrityMatched = false;
        int error = _files.GetFileFacts(clone, out WindowsFileFacts cloneFacts);
        if (error != 0)
        {
            return Refused("could not read the new file", error);
        }

        if (cloneFacts.VolumeSerial != sourceFacts.VolumeSerial)
        {
            return new CloneAttempt(CloneOutcome.DifferentVolumes, null);
        }

        if (cloneFacts.HasIntegrityStream == sourceFacts.HasIntegrityStream)
        {
            return null; // integrityMatched stays false: the refusal stands
        }

        string? mismatch = MatchIntegrity(source, clone, sourceFacts);
        if (mismatch is not null)
        {
            return new CloneAttempt(CloneOutcome.Refused, mismatch);
        }

        integrityMatched = true;
        return null;
    }

    /// <summary>
    /// ReFS clones only between files of one integrity setting; the new file took its folder's, changeable only while
    /// empty: so empty it, set the source's, size it again. A failure (denied on Dev Drive) only means a copy.
    /// </summary>
    private string? MatchIntegrity(WindowsFile source, WindowsFile clone, WindowsFileFacts sourceFacts)
    {
        ushort algorithm = 0; // CHECKSUM_TYPE_NONE
        uint flags = 0;
        if (sourceFacts.HasIntegrityStream && _files.GetIntegrity(source, out WindowsIntegrity integrity) == 0)
        {
            (algorithm, flags) = (integrity.ChecksumAlgorithm, integrity.Flags);
        }

        _files.SetEndOfFile(clone, 0);
        _files.SetIntegrity(clone, algorithm, flags);
        bool matched = _files.GetFileFacts(clone, out WindowsFileFacts now) == 0 && now.HasIntegrityStream == sourceFacts.HasIntegrityStream
            && _files.SetEndOfFile(clone, sourceFacts.Size) == 0;
        return matched ? null : sourceFacts.HasIntegrityStream ? "integrity streams are on for the source only" : "integrity streams are on for the destination's folder only";
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

    /// <summary>CopyFileExW into a temporary file, then the rename, the source closed: CopyFileExW opens it.</summary>
    /// <param name="volume">The source's volume when known; on one that clones, the copy is asked whether Windows cloned it.</param>
    private CloneResult CopyToDestination(ref WindowsFile source, string sourcePath, string destinationPath, WindowsFileFacts facts, WindowsVolume? volume, FallbackReason reason, string? detail, CancellationToken cancellationToken)
    {
        source.Dispose();
        cancellationToken.ThrowIfCancellationRequested();
        string temporaryPath = WindowsPaths.TemporaryPathBeside(destinationPath);
        int error = _files.CopyFile(sourcePath, temporaryPath, replaceExisting: false, cancellationToken);
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
        if ((error = MakeWritableLikeStock(temporaryPath, facts)) != 0)
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

            // Windows 11 24H2's CopyFile clones by itself where it can: the file system's record says which it did.
            bool clonedByWindows = volume is { CanClone: true } && _files.CountSharedClusters(copy!, out long shared) == 0 && shared > 0;
            int held = RenameOver(copy!, destinationPath, volume);
            bool replaced = held == 0 || ReplaceHeldDestinationWithCopy(copy!, sourcePath, destinationPath, facts, volume, held, cancellationToken);
            if (!replaced)
            {
                copy!.Dispose();
                DeleteTemporary(temporaryPath);
            }

            return clonedByWindows
                ? CloneResult.Cloned(facts.Size, writtenInPlace: !replaced)
                : CloneResult.Copied(facts.Size, reason, detail, writtenInPlace: !replaced);
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

    /// <summary>A stream cannot be renamed into place: deleted, then copied in place, as the stock task does.</summary>
    private CloneResult CopyIntoStream(string sourcePath, string destinationPath, CancellationToken cancellationToken)
    {
        _files.Delete(destinationPath);
        int error = _files.CopyFile(sourcePath, destinationPath, replaceExisting: false, cancellationToken);
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

    /// <summary>Renames the new file over the destination: 0, or the error of a held one; throws for others.</summary>
    private int RenameOver(WindowsFile file, string destinationPath, WindowsVolume? volume)
    {
        bool posix = volume?.PosixRename != false;
        int error = _files.Rename(file, destinationPath, posix);
        if (posix && WindowsCloneDecisions.TriesClassicRenameAfter(error))
        {
            // Before Windows 10 1607, and on file systems without POSIX renames (FAT32, exFAT, some network file
            // systems, Wine): the classic replacing rename, from then on for this volume.
            if (volume is not null)
            {
                volume.PosixRename = false;
            }

            error = _files.Rename(file, destinationPath, posixSemantics: false);
        }

        return error == 0 || WindowsCloneDecisions.MayBeHeldOpen(error) ? error : throw RenameFailure(error, destinationPath);
    }

    /// <summary>
    /// A destination no rename could replace: for <see cref="HeldDestinationPatience"/>, write it in place where that
    /// is safe and its holder allows, as the stock task does, else rename once the holder (a scanner) lets go.
    /// </summary>
    /// <returns>True: renamed over; false: written in place. Past the patience, the stock task's exception.</returns>
    private bool ReplaceHeldDestination(WindowsFile file, string destinationPath, WindowsVolume? volume, int error, Func<int> writeInPlace)
    {
        bool inPlaceIsSafe = CanWriteInPlace(destinationPath);
        long giveUpAt = System.Diagnostics.Stopwatch.GetTimestamp() + (long)(HeldDestinationPatience.TotalSeconds * System.Diagnostics.Stopwatch.Frequency);
        while (true)
        {
            if (inPlaceIsSafe && IsHeldByAnother(destinationPath))
            {
                // Someone holds it: write in place if they let it be written (the stock task's case), else wait for them.
                // One writer at a time in this process: two copies written into one file at once would interleave.
                int inPlace;
                lock (_destinationGates.For(destinationPath))
                {
                    inPlace = writeInPlace();
                }

                if (inPlace == 0)
                {
                    return false;
                }

                if (!WindowsCloneDecisions.MayBeHeldOpen(inPlace))
                {
                    throw WindowsErrors.ToException(inPlace, destinationPath);
                }
            }

            if (System.Diagnostics.Stopwatch.GetTimestamp() >= giveUpAt)
            {
                throw RenameFailure(error, destinationPath);
            }

            Thread.Sleep(0);
            if ((error = RenameOver(file, destinationPath, volume)) == 0)
            {
                return true;
            }
        }
    }

    /// <summary>Whether the destination is a regular file with one name (asked of the name itself, never of a link's target).</summary>
    private bool CanWriteInPlace(string destinationPath)
    {
        int error = _files.Open(destinationPath, WindowsAccess.ReadAttributes, WindowsShare.Read | WindowsShare.Write | WindowsShare.Delete, WindowsCreation.OpenExisting, out WindowsFile? file, WindowsOpenOptions.OpenReparsePoint);
        if (error != 0)
        {
            return false;
        }

        using (file)
        {
            return _files.GetFileFacts(file!, out WindowsFileFacts facts) == 0 && WindowsCloneDecisions.IsSafeToWriteInPlace(facts);
        }
    }

    /// <summary>
    /// Whether another process has the destination open right now (an exclusive open is refused). When nobody has, the
    /// rename is tried again rather than writing in place: a holder that let go is no reason to give up atomicity.
    /// </summary>
    private bool IsHeldByAnother(string destinationPath)
    {
        int error = _files.Open(destinationPath, WindowsAccess.Write, WindowsShare.None, WindowsCreation.OpenExisting, out WindowsFile? file);
        file?.Dispose();
        return error != 0;
    }

    // The two closures live in methods of their own, so that only a held destination pays for them, not every file.
    private bool ReplaceHeldDestinationWithClone(WindowsFile clone, WindowsFile source, string sourcePath, string destinationPath, WindowsFileFacts facts, WindowsVolume volume, long clusterBytes, int error, CancellationToken cancellationToken)
        => ReplaceHeldDestination(clone, destinationPath, volume, error, () => WriteInPlace(source, sourcePath, destinationPath, facts, clusterBytes, cancellationToken));

    private bool ReplaceHeldDestinationWithCopy(WindowsFile copy, string sourcePath, string destinationPath, WindowsFileFacts facts, WindowsVolume? volume, int error, CancellationToken cancellationToken)
        => ReplaceHeldDestination(copy, destinationPath, volume, error, () => CopyInPlace(sourcePath, destinationPath, facts, cancellationToken));

    /// <summary>
    /// As the stock task does with a destination no rename can replace, writes into it: a clone, else CopyFileExW; the
    /// one non-atomic replace (docs/guarantees.md). 0, or the error of a holder that refuses writing.
    /// </summary>
    private int WriteInPlace(WindowsFile source, string sourcePath, string destinationPath, WindowsFileFacts facts, long clusterBytes, CancellationToken cancellationToken)
    {
        // Sharing no writing: while it is written, nobody else may write it, and a reader that refuses writers waits.
        int error = _files.Open(destinationPath, WindowsAccess.Write, WindowsShare.Read | WindowsShare.Delete, WindowsCreation.OpenExisting, out WindowsFile? destination);
        if (error != 0)
        {
            return WindowsCloneDecisions.MayBeHeldOpen(error) ? error : throw WindowsErrors.ToException(error, destinationPath);
        }

        using (destination)
        {
            if ((error = _files.SetEndOfFile(destination!, 0)) != 0)
            {
                throw WindowsErrors.ToException(error, destinationPath);
            }

            if (CloneInto(source, destination!, facts, destinationPath, clusterBytes, verifyShared: true, cancellationToken).Outcome == CloneOutcome.Cloned)
            {
                SetCopyMetadata(destination!, facts, destinationPath);
                return 0;
            }
        }

        return CopyInPlace(sourcePath, destinationPath, facts, cancellationToken); // from the source: our clone's handle shares no reading
    }

    /// <summary>The stock task's File.Copy(overwrite: true): CopyFileExW into the existing destination. 0, or the error of a holder that refuses writing.</summary>
    private int CopyInPlace(string sourcePath, string destinationPath, WindowsFileFacts facts, CancellationToken cancellationToken)
    {
        int error = _files.CopyFile(sourcePath, destinationPath, replaceExisting: true, cancellationToken);
        if (error != 0)
        {
            return WindowsCloneDecisions.MayBeHeldOpen(error) ? error : throw WindowsErrors.ToCopyException(error, sourcePath, destinationPath);
        }

        return (error = MakeWritableLikeStock(destinationPath, facts)) == 0 ? 0 : throw WindowsErrors.ToException(error, destinationPath);
    }

    /// <summary>Clears the read-only flag CopyFileExW copies, as the stock task does; 0 or the error.</summary>
    private int MakeWritableLikeStock(string copyPath, WindowsFileFacts sourceFacts)
        => (sourceFacts.Attributes & WindowsCloneDecisions.FileAttributeReadOnly) == 0
            ? 0
            : _files.SetAttributes(copyPath, WindowsCloneDecisions.DestinationAttributes(sourceFacts.Attributes));

    /// <summary>
    /// Access denied on a replacing rename means no right to replace the destination, or a holder, which the stock task
    /// meets as a sharing violation and retries: so ask which, and name the destination either way.
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

    /// <summary>Best effort, never a failure of its own: a read-only leftover is made deletable; tried twice.</summary>
    private void DeleteTemporary(string temporaryPath)
    {
        for (int attempt = 0; attempt < 2; attempt++)
        {
            try
            {
                int error = _files.Delete(temporaryPath);
                if (error is 0 or WindowsErrors.FileNotFound or WindowsErrors.PathNotFound)
                {
                    return;
                }

                if (error == WindowsErrors.AccessDenied)
                {
                    _files.SetAttributes(temporaryPath, WindowsCloneDecisions.FileAttributeNormal);
                }
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                // As for an error code: once more, then leave it (docs/guarantees.md, "Not guaranteed").
            }
        }
    }

    private static CloneAttempt Refused(string step, int error) => new(CloneOutcome.Refused, $"{step}: {WindowsErrors.Describe(error)}");

    private enum CloneOutcome
    {
        Cloned,
        /// <summary>Refused for this one file; <see cref="CloneAttempt.Refusal"/> says why.</summary>
        Refused,
        DifferentVolumes,
        /// <summary>Cloned, but not every cluster of the clone is shared: some of the source's data was not on the disk.</summary>
        NotShared,
    }

    private readonly record struct CloneAttempt(CloneOutcome Outcome, string? Refusal, bool WrittenInPlace = false);
}
