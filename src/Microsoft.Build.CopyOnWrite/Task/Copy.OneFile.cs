using System;
using System.IO;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

// One pair, from its paths to its outcome: the stock task's checks, the retries, and the hand-over to the clone
// engine. The checks run in the stock task's order and fail with its codes (the parity suites hold them to that), so
// reordering them here changes behaviour: they stay together, in one file, apart from planning and links.
public sealed partial class Copy
{
    private bool CopyOne(CopyPair pair, CopyOptions options)
    {
        string sourceSpec = pair.Source.ItemSpec;
        string destinationSpec = pair.Destination.ItemSpec;
        string sourcePath;
        string destinationPath;
        try
        {
            sourcePath = pair.SourcePath ?? ResolvePath(pair.Source);
            destinationPath = pair.DestinationPath ?? ResolvePath(pair.Destination);
        }
        catch (Exception e) when (IsBadPath(e))
        {
            return LogErrorAndFail(CopyMessages.UnableToCopy, sourceSpec, destinationSpec, e.Message);
        }

        if (LinksOnly && !(IsUnchanged(sourcePath, destinationPath, out _) && IsHardLinkedOutput(sourcePath, destinationPath, out _))
            && !IsLinkToSource(sourcePath, destinationPath))
        {
            return true; // not a link: the target that copies it judges whether it is out of date
        }

        // With CopyOnWriteInsteadOfLinks, a destination that is a hard link an earlier build made (to its source, or to
        // what its source was) has the source's size and time but is not up to date: it is replaced by a clone where the
        // volume clones. Off, nothing more is asked than the stock task's check (no system call: docs/links.md).
        if (SkipUnchangedFiles && IsUnchanged(sourcePath, destinationPath, out long length))
        {
            if (options.CloneInsteadOfLinks && IsHardLinkedOutput(sourcePath, destinationPath, out bool toSource))
            {
                try
                {
                    if (TryReplaceLinkWithClone(sourcePath, destinationPath, toSource))
                    {
                        return Succeeded(pair);
                    }
                }
                catch (OperationCanceledException)
                {
                    return false; // the build is ending; the link is as it was
                }
            }

            LogMessage(MessageImportance.Low, CopyMessages.DidNotCopyUnchanged, sourceSpec, destinationSpec, nameof(SkipUnchangedFiles), "true");
            _summary.AddUpToDate(length);
            return Succeeded(pair);
        }

        // Also when the destination is the source's own entry by another way (symlinked folder, bind mount):
        // replacing it would replace the source (new inode, owner-writable mode, a full copy on ext4). A destination
        // that is not there (most copies of a clean build) is no entry at all.
        // The destination's stat is handed on (to the same-entry check, then the engine), and the source's, where the
        // same-entry check made one, to the source checks: over an existing destination that is two statx and a linkat
        // a file fewer (docs/performance.md, #42).
        EntryKind destination = UnixFiles.Probe(destinationPath, followLinks: false, out EntryIdentity destinationEntry);
        EntryKind source = EntryKind.Unknown;
        if (string.Equals(sourcePath, destinationPath, MSBuildHost.PathComparison)
            || (destination != EntryKind.Missing && UnixFiles.AreOneDirectoryEntry(sourcePath, destinationPath, destination, destinationEntry, out source)))
        {
            return Succeeded(pair); // copying a file onto itself: nothing to do, and nothing may be lost
        }

        if (FailIfNotIncremental)
        {
            // The stock task names the paths as written here, not their full forms.
            LogError(CopyMessages.CopyingFile, sourceSpec, destinationSpec);
            return false;
        }

        // The retries are here, not in a method of their own: one frame fewer between Execute and the clone call. A
        // retry looks at the source and destination again (Unknown); the first attempt uses what was just found.
        for (int retry = 0; ; retry++)
        {
            try
            {
                if (!CopyOrLink(sourceSpec, destinationSpec, sourcePath, destinationPath, retry == 0 ? destination : EntryKind.Unknown, retry == 0 ? source : EntryKind.Unknown, options))
                {
                    return false;
                }

                break;
            }
            catch (OperationCanceledException)
            {
                return false;
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
            {
                if (!IsRetryable(e, sourceSpec, destinationSpec, options))
                {
                    return LogErrorAndFail(CopyMessages.UnableToCopy, sourceSpec, destinationSpec, e.Message);
                }

                if (retry < Retries)
                {
                    LogWarning(CopyMessages.Retrying, sourceSpec, destinationSpec, retry + 1, RetryDelayMilliseconds, e.Message, MSBuildHost.LockHolders(destinationPath));
                    if (_cancellation.Token.WaitHandle.WaitOne(RetryDelayMilliseconds))
                    {
                        return false; // cancelled while waiting: stop at once, the build is ending
                    }

                    continue;
                }

                if (Retries > 0)
                {
                    LogError(CopyMessages.ExceededRetries, sourceSpec, destinationSpec, Retries, MSBuildHost.LockHolders(destinationPath));
                }

                return LogErrorAndFail(CopyMessages.UnableToCopy, sourceSpec, destinationSpec, e.Message);
            }
        }

        return Succeeded(pair);
    }

    private bool Succeeded(CopyPair pair)
    {
        if (DestinationFolder is null)
        {
            pair.Source.CopyMetadataTo(pair.Destination);
        }

        return true;
    }

    private static bool IsUnchanged(string sourcePath, string destinationPath, out long length)
    {
        var source = new FileInfo(sourcePath);
        var destination = new FileInfo(destinationPath);
        length = source.Exists ? source.Length : 0;
        return source.Exists && destination.Exists
            && source.Length == destination.Length
            && source.LastWriteTimeUtc == destination.LastWriteTimeUtc;
    }

    private bool IsRetryable(Exception e, string sourceSpec, string destinationSpec, CopyOptions options)
    {
        if (e is ArgumentException or NotSupportedException or PathTooLongException)
        {
            return false;
        }

        if (options.AlwaysRetry)
        {
            // Every failed attempt says what it got (the stock task logs the whole exception), and access denied why it is retried.
            LogWarning(CopyMessages.AlwaysRetryGotError, e.ToString(), sourceSpec, destinationSpec, e.HResult);
        }

        if (e is UnauthorizedAccessException)
        {
            if (options.AlwaysRetry)
            {
                LogWarning(CopyMessages.AlwaysRetryAccessDenied);
                return true;
            }

            return options.RetryAccessDenied;
        }

        // A destination folder that is a file will not become a folder by waiting.
        return !(DestinationFolder is not null && File.Exists(DestinationFolder.ItemSpec));
    }

    /// <returns>False when it logged an error that no retry can fix; throws for errors worth a retry.</returns>
    /// <param name="destination">
    /// Missing (no file, folder or link has the name) or a regular file (not a link): what the destination's checks
    /// would find; Unknown: ask.
    /// </param>
    /// <param name="source">A regular file (links followed), or Unknown: ask.</param>
    private bool CopyOrLink(string sourceSpec, string destinationSpec, string sourcePath, string destinationPath, EntryKind destination, EntryKind source, CopyOptions options)
    {
        // The stock task's checks, in its order. A missing destination or a regular file is no folder; a regular
        // source is neither a folder nor missing; anything else is asked of .NET, as the stock task asks it.
        if (destination == EntryKind.Unknown && Directory.Exists(destinationPath))
        {
            return LogErrorAndFail(CopyMessages.DestinationIsFolder, sourceSpec, destinationSpec);
        }

        if (source != EntryKind.RegularFile && UnixFiles.Probe(sourcePath, followLinks: true) != EntryKind.RegularFile)
        {
            if (Directory.Exists(sourcePath))
            {
                return LogErrorAndFail(CopyMessages.SourceIsFolder, sourceSpec);
            }

            if (!File.Exists(sourcePath))
            {
                return LogErrorAndFail(CopyMessages.SourceNotFound, sourceSpec);
            }
        }

        string? destinationFolder = Path.GetDirectoryName(destinationPath);
        if (!string.IsNullOrEmpty(destinationFolder))
        {
            lock (_directoryLock)
            {
                // One message per folder even when parallel copies into it race to create it. A folder this Copy
                // found or made is not looked up again for its other files (as the stock task remembers them too):
                // one path lookup less per file, measured at about 2 µs each on XFS.
                if (!_foldersKnownToExist.Contains(destinationFolder))
                {
                    if (!Directory.Exists(destinationFolder))
                    {
                        LogMessage(MessageImportance.Normal, CopyMessages.CreatingDirectory, Path.GetDirectoryName(destinationSpec));
                        Directory.CreateDirectory(destinationFolder);
                    }

                    _foldersKnownToExist.Add(destinationFolder);
                }
            }
        }

        FileInfo? existing = destination == EntryKind.Unknown ? new FileInfo(destinationPath) : null;
        bool destinationIsLink = existing is not null && FileLinks.IsSymbolicLink(existing);
        bool destinationIsFile = existing is not null ? existing.Exists : destination == EntryKind.RegularFile;
        bool destinationExists = destinationIsFile || destinationIsLink;
        if (destinationExists && options.OverwriteReadOnlyFiles && IsReadOnly(destinationPath))
        {
            LogMessage(MessageImportance.Low, CopyMessages.RemovingReadOnly, destinationSpec);
            ClearReadOnly(destinationPath);
        }

        // The stock task deletes an existing destination before linking or copying, except a read-only one and
        // with MSBUILDCOPYWITHOUTDELETE=1. Where it keeps it, its link call meets an existing file and fails (EEXIST).
        bool stockKeepsDestination = destinationExists && (options.CopyWithoutDelete || IsReadOnly(destinationPath));

        // A symbolic link is never up to date (.NET reports the link's own size), so one an earlier build made to the
        // source comes here; with the setting it is replaced like any destination, and counted as a link replaced.
        bool replacingLinkToSource = options.CloneInsteadOfLinks && destinationIsLink && IsLinkToSource(sourcePath, destinationPath);
        LinkOutcome link = TryLink(sourcePath, destinationPath, stockKeepsDestination, destination, options, replacingLinkToSource);
        if (link == LinkOutcome.Linked)
        {
            _summary.AddLinked();
            Interlocked.Exchange(ref _wroteAtLeastOneFile, 1);
            return true;
        }

        if (link == LinkOutcome.ClonedInstead)
        {
            Interlocked.Exchange(ref _wroteAtLeastOneFile, 1);
            return true;
        }

        if (link == LinkOutcome.FailedWithError)
        {
            return false;
        }

        LogMessage(MessageImportance.Normal, CopyMessages.CopyingFile, sourcePath, destinationPath);

        // Where the stock task keeps an existing destination file (read-only, or MSBUILDCOPYWITHOUTDELETE=1), its
        // File.Copy opens it for writing and fails if this user cannot write it: fail the same way with the same
        // exception, which a rename over it would not notice. Where it deletes it first, the delete and our rename
        // need the same rights; where both are refused, the fallback ladder's last rung opens the file as the stock
        // task's File.Copy does, so nothing is asked here for every existing destination (an open for writing,
        // fstatfs, two flocks and a close per overwritten file, strace).
        if (destinationIsFile && !destinationIsLink && stockKeepsDestination)
        {
            FileLinks.ThrowIfNotWritable(destinationPath, create: false);
        }

        // With MSBUILDCOPYWITHOUTDELETE=1 the stock task's File.Copy opens a destination that is the source itself
        // (a hard link or symbolic link to it) and is refused as a sharing violation, retried like one.
        if (options.CopyWithoutDelete && destinationIsFile && FileLinks.AreSameFile(sourcePath, destinationPath))
        {
            throw FileLinks.SameFileInUse(destinationPath);
        }
        else if (Path.GetFileName(destinationPath).Length == 0)
        {
            FileLinks.ThrowIfNotWritable(destinationPath, create: true); // "folder/": opening a folder for writing is refused
        }

        CloneResult result;
        try
        {
            // The engine sits in the fallback ladder (Cloning/FallbackLadder): what fails here failed the stock task's
            // own way too, with File.Copy's exception, which the retries and MSB3026/MSB3027/MSB3021 then report.
            // What this attempt found the destination to be (nothing above changes that: a failed link leaves it as it
            // was): the engine then skips the calls bound to fail, such as naming the new file at a name that is taken.
            result = _engine.CloneOrCopy(sourcePath, destinationPath, _cancellation.Token, destination);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw FileLinks.WithDestinationPath(e, destinationPath); // a failed content names our hidden file: name the destination
        }

        _summary.AddCloneResult(result, sourcePath, destinationPath);
        if (replacingLinkToSource)
        {
            _summary.CountReplacedLink(result);
        }

        ReportIfOurFault(result, sourcePath, destinationPath, linkedInstead: false);

        Interlocked.Exchange(ref _wroteAtLeastOneFile, 1);
        // A line of its own only for a file that was copied, not cloned: why is worth knowing per file. A cloned file
        // is counted in its Copy's summary line ("cloned 7 files"). A line for each cloned file doubled the messages
        // a verbose log (binary log, -v:d, any logger MSBuild does not know) got from a build's Copy calls, and cost
        // about 40 µs per Copy of 7 files in the measured build (issue 12, docs/precompiled-task.md).
        if (result.Method != CloneMethod.Cloned && Log.LogsMessagesOfImportance(MessageImportance.Low))
        {
            Log.LogMessage(MessageImportance.Low, CopyMessages.CopiedNotCloned, sourcePath, destinationPath, FileSizeText.Format(result.Bytes), CopySummary.DescribeFallback(result.Reason, result.Detail));
        }

        // Written in place under another process's open handle (Windows, where no rename could replace it): rare, and
        // the one time a destination is not replaced whole, so it is said, once for the file.
        if (result.WrittenInPlace && Log.LogsMessagesOfImportance(MessageImportance.Low))
        {
            if (result.Reason == FallbackReason.EngineFailed)
            {
                Log.LogMessage(MessageImportance.Low, CopyMessages.WrittenInPlaceByFallback, destinationPath, result.Detail ?? string.Empty);
            }
            else
            {
                Log.LogMessage(MessageImportance.Low, CopyMessages.WrittenInPlace, destinationPath);
            }
        }

        return true;
    }

    private static bool IsReadOnly(string path) => (File.GetAttributes(path) & FileAttributes.ReadOnly) != 0;

    private static void ClearReadOnly(string path) => File.SetAttributes(path, File.GetAttributes(path) & ~FileAttributes.ReadOnly);

    /// <summary>
    /// COW006 for a fault of our engine. A file the fallback ladder had to write in place (no new file could be put there:
    /// a folder that takes none, a rename refused) is the environment's doing, said as the stock task's in-place writes
    /// are; any other fault is ours to hear about, also where the link the project asked for then replaced the copy.
    /// </summary>
    private void ReportIfOurFault(CloneResult result, string sourcePath, string destinationPath, bool linkedInstead)
    {
        if (result.Reason == FallbackReason.EngineFailed && !result.WrittenInPlace)
        {
            EngineFaultWarning.Report(Log, result.Detail, sourcePath, destinationPath, linkedInstead);
        }
    }
}
