using System;
using System.IO;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

// One pair, carried out: what PairDecision decided, with the retries, the engine, the links and the messages. The
// decisions (which check, which code, link or clone or copy) are PairDecision.cs's; nothing is decided here.
public sealed partial class Copy
{
    private bool CopyOne(CopyPair pair)
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

        var look = new PairLook(sourcePath, destinationPath, WhyNoClone);
        PairPlan plan = PairDecision.Decide(look, _options.Pair);
        switch (plan.Action)
        {
            case PairAction.LeftToTarget:
                return true;
            case PairAction.UpToDate:
                return UpToDate(pair, look);
            case PairAction.AlreadyThere:
                return Succeeded(pair); // copying a file onto itself: nothing to do, and nothing may be lost
            case PairAction.Fail:
                LogError(plan.Failure!, sourceSpec, destinationSpec); // the stock task names the paths as written here
                return false;
            case PairAction.ReplaceLinkWithClone:
            case PairAction.KeepLink:
                try
                {
                    if (plan.Action == PairAction.KeepLink)
                    {
                        SayLinkKept(sourcePath, destinationPath, plan.WhyNoClone!, plan.ToSource);
                    }
                    else if (ReplaceLinkWithClone(sourcePath, destinationPath, plan.ToSource))
                    {
                        return Succeeded(pair);
                    }
                }
                catch (OperationCanceledException)
                {
                    return false; // the build is ending; the link is as it was
                }

                // The link stays: to the copying target it is up to date (links only), as to the stock task's check.
                return _options.Pair.LinksOnly ? Succeeded(pair) : UpToDate(pair, look);
        }

        for (int retry = 0; ; retry++)
        {
            try
            {
                // The first attempt uses what was just found; a retry looks again.
                if (!Attempt(sourceSpec, destinationSpec, sourcePath, destinationPath, retry == 0 ? look : new PairLook(sourcePath, destinationPath, WhyNoClone)))
                {
                    return false;
                }

                return Succeeded(pair);
            }
            catch (OperationCanceledException)
            {
                return false;
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
            {
                if (!IsRetryable(e, sourceSpec, destinationSpec))
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
    }

    private bool UpToDate(CopyPair pair, PairLook look)
    {
        LogMessage(MessageImportance.Low, CopyMessages.DidNotCopyUnchanged, pair.Source.ItemSpec, pair.Destination.ItemSpec, nameof(SkipUnchangedFiles), "true");
        _summary.AddUpToDate(look.SourceLength);
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

    private bool IsRetryable(Exception e, string sourceSpec, string destinationSpec)
    {
        if (e is ArgumentException or NotSupportedException or PathTooLongException)
        {
            return false;
        }

        if (_options.AlwaysRetry)
        {
            // Every failed attempt says what it got (the stock task logs the whole exception), and access denied why it is retried.
            LogWarning(CopyMessages.AlwaysRetryGotError, e.ToString(), sourceSpec, destinationSpec, e.HResult);
        }

        if (e is UnauthorizedAccessException)
        {
            if (_options.AlwaysRetry)
            {
                LogWarning(CopyMessages.AlwaysRetryAccessDenied);
                return true;
            }

            return _options.RetryAccessDenied;
        }

        // A destination folder that is a file will not become a folder by waiting. Its full path, not its spec: under -mt
        // the process's current directory is not the project's.
        return !(_destinationFolderPath is not null && File.Exists(_destinationFolderPath));
    }

    /// <summary>One attempt: the checks, the destination's folder, then the link, clone or copy PairDecision chose.</summary>
    /// <returns>False when it logged an error that no retry can fix; throws for errors worth a retry.</returns>
    private bool Attempt(string sourceSpec, string destinationSpec, string sourcePath, string destinationPath, PairLook look)
    {
        if (PairDecision.CheckAttempt(look) is StockMessage failure)
        {
            return LogErrorAndFail(failure, failure == CopyMessages.DestinationIsFolder ? [sourceSpec, destinationSpec] : [sourceSpec]);
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

        PairPlan plan = PairDecision.DecideMaking(look, _options.Pair);
        if (plan.ClearReadOnly)
        {
            LogMessage(MessageImportance.Low, CopyMessages.RemovingReadOnly, destinationSpec);
            ClearReadOnly(destinationPath);
        }

        if (plan.Action is PairAction.CloneInsteadOfLink or PairAction.Link)
        {
            LinkOutcome link = plan.Action == PairAction.CloneInsteadOfLink && TryCloneInsteadOfLink(sourcePath, destinationPath, look.DestinationHint, plan)
                ? LinkOutcome.ClonedInstead
                : TryLink(sourcePath, destinationPath, plan);
            if (link == LinkOutcome.FailedWithError)
            {
                return false;
            }

            if (link != LinkOutcome.NotMade)
            {
                if (link == LinkOutcome.Linked)
                {
                    _summary.AddLinked();
                }

                Interlocked.Exchange(ref _wroteAtLeastOneFile, 1);
                return true;
            }
        }

        LogMessage(MessageImportance.Normal, CopyMessages.CopyingFile, sourcePath, destinationPath);

        // Where the stock task keeps an existing destination file (read-only, or MSBUILDCOPYWITHOUTDELETE=1), its
        // File.Copy opens it for writing and fails if this user cannot write it: fail the same way with the same
        // exception, which a rename over it would not notice. Where it deletes it first, the delete and our rename
        // need the same rights; where both are refused, the fallback ladder's last rung opens the file as the stock
        // task's File.Copy does, so nothing is asked here for every existing destination (an open for writing,
        // fstatfs, two flocks and a close per overwritten file, strace).
        if (look.Destination == PairEntry.File && plan.KeepsDestination)
        {
            FileLinks.ThrowIfNotWritable(destinationPath, create: false);
        }

        // With MSBUILDCOPYWITHOUTDELETE=1 the stock task's File.Copy opens a destination that is the source itself
        // (a hard link or symbolic link to it) and is refused as a sharing violation, retried like one.
        if (_options.Pair.CopyWithoutDelete && look.Destination is PairEntry.File or PairEntry.SymbolicLink && look.DestinationIsSourceFile)
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
            result = _engine.CloneOrCopy(sourcePath, destinationPath, _cancellation.Token, look.DestinationHint);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw FileLinks.WithDestinationPath(e, destinationPath); // a failed content names our hidden file: name the destination
        }

        _summary.AddCloneResult(result, sourcePath, destinationPath);
        if (plan.ReplacesLinkToSource)
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
