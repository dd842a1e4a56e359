using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

// The link parameters, tried first as the stock task tries them, but made under a temporary name and renamed into
// place, so a failed link never leaves the destination half replaced; CopyOnWriteInsteadOfLinks' clones instead.
public sealed partial class Copy
{
    /// <summary>The link <paramref name="plan"/> asks for (PairDecision: a link asked, and no clone made instead), as the stock task makes it.</summary>
    private LinkOutcome TryLink(string sourcePath, string destinationPath, PairPlan plan)
    {
        bool destinationInTheWay = plan.KeepsDestination;
        if (plan.WhyNoClone is string whyNoClone)
        {
            SayLinkKept(sourcePath, destinationPath, whyNoClone); // the link to the source is made again, as asked
        }

        if (plan.Link is LinkAsked.Hard or LinkAsked.HardThenSymbolic)
        {
            LogMessage(MessageImportance.Normal, CopyMessages.CreatingHardLink, sourcePath, destinationPath);
            string? failure = destinationInTheWay
                ? NameTaken("link")
                : TryCreateLinkAtomically(destinationPath, temporary => FileLinks.CreateHardLink(sourcePath, temporary));
            if (failure is null)
            {
                MakeWritableLikeStock(destinationPath);
                return LinkOutcome.Linked;
            }

            if (plan.Link == LinkAsked.HardThenSymbolic)
            {
                LogMessage(MessageImportance.Normal, CopyMessages.HardLinkFailedTryingSymbolic, sourcePath, destinationPath, failure);
            }
            else
            {
                return LinkFailed(failure);
            }
        }

        if (plan.Link is LinkAsked.Symbolic or LinkAsked.HardThenSymbolic)
        {
            LogMessage(MessageImportance.Normal, CopyMessages.CreatingSymbolicLink, sourcePath, destinationPath);
            string? failure = destinationInTheWay
                ? NameTaken("symlink")
                : TryCreateLinkAtomically(destinationPath, temporary => FileLinks.CreateSymbolicLink(temporary, sourcePath));
            if (failure is null)
            {
                MakeWritableLikeStock(destinationPath);
                return LinkOutcome.Linked;
            }

            return LinkFailed(failure);
        }

        return LinkOutcome.NotMade;

        LinkOutcome LinkFailed(string failure)
        {
            // The stock task says it will copy instead, and then, with ErrorIfLinkFails, fails without copying.
            LogMessage(MessageImportance.Normal, CopyMessages.LinkFailedCopyingInstead, sourcePath, destinationPath, failure);
            if (ErrorIfLinkFails)
            {
                LogError(CopyMessages.LinkFailed, sourcePath, destinationPath);
                return LinkOutcome.FailedWithError;
            }

            return LinkOutcome.NotMade;
        }
    }

    /// <summary>
    /// CopyOnWriteInsteadOfLinks on a volume that clones: a clone instead of the link asked for. False where the file
    /// system refused the clone even so (immutable, a swap file): the engine copied it, and the link replaces that copy.
    /// </summary>
    private bool TryCloneInsteadOfLink(string sourcePath, string destinationPath, EntryKind destination, PairPlan plan)
    {
        LogMessage(MessageImportance.Normal, CopyMessages.CopyingFile, sourcePath, destinationPath);
        CloneResult result;
        try
        {
            result = _engine.CloneOrCopy(sourcePath, destinationPath, _cancellation.Token, destination);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw FileLinks.WithDestinationPath(e, destinationPath);
        }

        if (result.Method != CloneMethod.Cloned && result.Reason != FallbackReason.EmptyFile)
        {
            ReportIfOurFault(result, sourcePath, destinationPath, linkedInstead: true); // the link asked for replaces the copy
            if (plan.ReplacesLinkToSource)
            {
                SayLinkKept(sourcePath, destinationPath, CopySummary.DescribeFallback(result.Reason, result.Detail));
            }

            return false;
        }

        _summary.AddClonedInsteadOfLink(result, sourcePath, destinationPath);
        if (plan.ReplacesLinkToSource)
        {
            _summary.CountReplacedLink(result);
            Log.LogMessage(MessageImportance.Normal, CopyOnWriteCodes.ReplacedLinkText(sourcePath, destinationPath));
        }

        return true;
    }

    /// <summary>Null where the two paths share a file system that clones (the volume catalog's cached answer); else why not.</summary>
    private static string? WhyNoClone(string sourcePath, string destinationPath)
    {
        string? sourceFolder = Path.GetDirectoryName(sourcePath);
        string? destinationFolder = Path.GetDirectoryName(destinationPath);
        if (string.IsNullOrEmpty(sourceFolder) || string.IsNullOrEmpty(destinationFolder))
        {
            return "the paths name no folder";
        }

        VolumeCatalog volumes = VolumeCatalog.Shared;
        try
        {
            VolumeLocation source = volumes.Locate(sourceFolder!);
            VolumeLocation destination = volumes.Locate(destinationFolder!);
            if (!CloneRule.SameFileSystem(source, destination))
            {
                return $"it is on another volume ({destination.Root}, {destination.FileSystem}) than its source ({source.Root}, {source.FileSystem})";
            }

            return volumes.CanClone(destinationFolder!) == true ? null : $"{destination.Root} ({destination.FileSystem}) cannot clone";
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return $"its volume could not be looked at ({e.Message})"; // no reason to fail a Copy: what was asked for stands
        }
    }

    /// <summary>
    /// Replaces a link to the source with a clone renamed over it, so nothing is written through the link; where the
    /// clone fails even so, the link stays and it is said. True when replaced.
    /// </summary>
    private bool ReplaceLinkWithClone(string sourcePath, string destinationPath, bool toSource)
    {
        // Cloned beside the link under a name of our own and renamed over it only when it is a clone: a byte copy (the
        // volume refused, or the catalog was wrong about it) would cost what the link saves, so the link then stays.
        string temporaryPath = AtomicFile.TemporaryPathBeside(destinationPath);
        CloneResult result;
        try
        {
            result = _engine.CloneOrCopy(sourcePath, temporaryPath, _cancellation.Token, EntryKind.Missing);
            if (result.Method != CloneMethod.Cloned)
            {
                AtomicFile.DeleteQuietly(temporaryPath);
                ReportIfOurFault(result, sourcePath, destinationPath, linkedInstead: true);
                SayLinkKept(sourcePath, destinationPath, CopySummary.DescribeFallback(result.Reason, result.Detail), toSource);
                return false;
            }

            AtomicFile.Replace(temporaryPath, destinationPath);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException)
        {
            AtomicFile.DeleteQuietly(temporaryPath);
            Log.LogMessage(MessageImportance.High, CopyOnWriteCodes.LinkNotReplacedText(sourcePath, destinationPath, e.Message, toSource));
            return false;
        }
        catch (OperationCanceledException)
        {
            AtomicFile.DeleteQuietly(temporaryPath);
            throw;
        }

        Interlocked.Exchange(ref _wroteAtLeastOneFile, 1);
        _summary.AddReplacedLink(result, sourcePath, destinationPath);
        Log.LogMessage(MessageImportance.Normal, CopyOnWriteCodes.ReplacedLinkText(sourcePath, destinationPath, toSource));
        return true;
    }

    /// <summary>The first output of the build that stays a link to its source although the setting is on, said once (<see cref="OncePerBuild"/>).</summary>
    private void SayLinkKept(string sourcePath, string destinationPath, string why, bool toSource = true)
    {
        if (OncePerBuild.First(BuildEngine, "Microsoft.Build.CopyOnWrite.LinkKept"))
        {
            Log.LogMessage(MessageImportance.High, CopyOnWriteCodes.LinkKeptText(sourcePath, destinationPath, why, toSource));
        }
    }

    /// <summary>A read-only result made writable, as the stock task does: through a link, that is the source itself.</summary>
    private static void MakeWritableLikeStock(string destinationPath)
    {
        if (IsReadOnly(destinationPath))
        {
            ClearReadOnly(destinationPath);
        }
    }

    /// <summary>Makes the link under a temporary name and renames it over the destination; returns the failure text or null.</summary>
    private string? TryCreateLinkAtomically(string destinationPath, Action<string> createLinkAt)
    {
        try
        {
            string temporaryPath = AtomicFile.WriteBeside(destinationPath, temporary =>
            {
                createLinkAt(temporary);
                return temporary;
            });

            // rename(2) between two names of one file does nothing and succeeds: the destination already was
            // this link, and the temporary name must not stay behind.
            if (File.Exists(temporaryPath) || FileLinks.IsSymbolicLink(new FileInfo(temporaryPath)))
            {
                File.Delete(temporaryPath);
            }

            return null;
        }
        catch (LinkCallException e)
        {
            return LinkCallFailed(e);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or PlatformNotSupportedException)
        {
            return e.Message;
        }
    }

    /// <summary>What the stock task's link call says over the destination it keeps: the name is taken, in its OS's words.</summary>
    private string NameTaken(string call) => RuntimeInformation.IsOSPlatform(OSPlatform.Windows)
        ? FileLinks.Win32Message(FileLinks.NameTakenWin32Error)
        : LinkCallFailed(new LinkCallException(call, FileLinks.FileExistsErrno));

    /// <summary>The stock task's reason for a failed link call off Windows, in MSBuild's words: the call and its errno.</summary>
    private string LinkCallFailed(LinkCallException e) => StockTexts.Format(Log, CopyMessages.LinkCallFailed, e.Call + "()", e.Errno);

    private enum LinkOutcome
    {
        NotMade,
        Linked,
        ClonedInstead,
        FailedWithError,
    }
}
