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
                // One message per folder even when parallel copies race to create it; a folder found or made is not
                // looked up again for this Copy's other files, as the stock task remembers them too.
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

        // A destination the stock task keeps is opened for writing by its File.Copy: fail as it does, which a rename over
        // it would not notice. Where it deletes first, the delete and our rename need the same rights, so nothing is asked.
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
            // What fails here failed the fallback ladder's stock way too, with File.Copy's exception, for the retries and
            // MSB3026/MSB3027/MSB3021; the hint spares the engine the calls bound to fail (a failed link changes nothing).
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
        // A line of its own only for a file copied, not cloned (why is worth knowing per file); a cloned file is
        // counted in the summary line, as a line each would double a verbose log's messages (docs/precompiled-task.md).
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
    /// COW006 for a fault of our engine; a file the fallback ladder wrote in place (no new file could be put there) is the
    /// environment's doing, said as the stock task's in-place writes are.
    /// </summary>
    private void ReportIfOurFault(CloneResult result, string sourcePath, string destinationPath, bool linkedInstead)
    {
        if (result.Reason == FallbackReason.EngineFailed && !result.WrittenInPlace)
        {
            EngineFaultWarning.Report(Log, result.Detail, sourcePath, destinationPath, linkedInstead);
        }
    }
}
