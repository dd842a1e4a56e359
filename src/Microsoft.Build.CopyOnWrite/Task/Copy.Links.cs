using System;
using System.IO;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

// UseHardlinksIfPossible and UseSymboliclinksIfPossible: tried before any clone or copy, as the stock task tries
// them, but made under a temporary name and renamed into place, so a failed link never leaves the destination
// half replaced.
public sealed partial class Copy
{
    private LinkOutcome TryLink(string sourcePath, string destinationPath, bool destinationInTheWay, CopyOptions options)
    {
        if (UseHardlinksIfPossible)
        {
            Log.LogMessage(MessageImportance.Normal, CopyMessages.CreatingHardLink, sourcePath, destinationPath);
            string? failure = destinationInTheWay
                ? FileLinks.LinkCallFailed("link", FileLinks.FileExistsErrno)
                : TryCreateLinkAtomically(destinationPath, temporary => FileLinks.CreateHardLink(sourcePath, temporary));
            if (failure is null)
            {
                MakeWritableLikeStock(destinationPath);
                return LinkOutcome.Linked;
            }

            if (options.UseSymbolicLinks)
            {
                Log.LogMessage(MessageImportance.Normal, CopyMessages.HardLinkFailedTryingSymbolic, sourcePath, destinationPath, failure);
            }
            else
            {
                return LinkFailed(failure);
            }
        }

        if (options.UseSymbolicLinks)
        {
            Log.LogMessage(MessageImportance.Normal, CopyMessages.CreatingSymbolicLink, sourcePath, destinationPath);
            string? failure = destinationInTheWay
                ? FileLinks.LinkCallFailed("symlink", FileLinks.FileExistsErrno)
                : TryCreateLinkAtomically(destinationPath, temporary => FileLinks.CreateSymbolicLink(temporary, sourcePath));
            if (failure is null)
            {
                MakeWritableLikeStock(destinationPath);
                return LinkOutcome.Linked;
            }

            return LinkFailed(failure);
        }

        return LinkOutcome.NotAsked;

        LinkOutcome LinkFailed(string failure)
        {
            // The stock task says it will copy instead, and then, with ErrorIfLinkFails, fails without copying.
            Log.LogMessage(MessageImportance.Normal, CopyMessages.LinkFailedCopyingInstead, sourcePath, destinationPath, failure);
            if (ErrorIfLinkFails)
            {
                LogError(CopyMessages.LinkFailedCode, CopyMessages.LinkFailed, sourcePath, destinationPath);
                return LinkOutcome.FailedWithError;
            }

            return LinkOutcome.NotAsked;
        }
    }

    /// <summary>
    /// Like the stock task, a read-only result is made writable; through a link that is the source itself
    /// (a hard link's shared inode, a symbolic link's target).
    /// </summary>
    private static void MakeWritableLikeStock(string destinationPath)
    {
        if (IsReadOnly(destinationPath))
        {
            ClearReadOnly(destinationPath);
        }
    }

    /// <summary>Makes the link under a temporary name and renames it over the destination; returns the failure text or null.</summary>
    private static string? TryCreateLinkAtomically(string destinationPath, Action<string> createLinkAt)
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
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or PlatformNotSupportedException)
        {
            return e.Message;
        }
    }

    private enum LinkOutcome
    {
        NotAsked,
        Linked,
        FailedWithError,
    }
}
