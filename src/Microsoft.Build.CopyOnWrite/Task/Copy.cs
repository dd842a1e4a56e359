using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// A drop-in replacement for MSBuild's Copy task: the same parameters, outputs, codes, messages and
/// incremental behaviour, but files are cloned (copy-on-write) where the file system can, replaced
/// atomically, and never written through links. What it did is summarised in one line per invocation.
/// </summary>
/// <remarks>This class is the MSBuild contract; how a file is cloned or copied is the engine's business (Cloning/).</remarks>
/// <remarks>
/// Process-wide state: none. Paths come from the items' FullPath (resolved against their project's directory by
/// MSBuild), never from the current directory; environment variables come from <see cref="ReadProjectEnvironment"/>
/// (Copy.Environment.cs), which is the project's TaskEnvironment in the multi-threaded flavour.
/// </remarks>
public sealed partial class Copy : Task, IIncrementalTask, ICancelableTask
{
    private const string DestinationFilesName = "DestinationFiles";
    private const string DestinationFolderName = "DestinationFolder";
    private const string SourceFilesName = "SourceFiles";
    private const string SourceFoldersName = "SourceFolders";

    private readonly CancellationTokenSource _cancellation = new();
    private readonly object _directoryLock = new();
    private readonly HashSet<string> _foldersKnownToExist = new(StringComparer.Ordinal);
    private readonly ICloneEngine _engine;
    private readonly Func<string, string?> _environment;
    private CopySummary _summary = new();
    private bool? _useSymboliclinksIfPossible;
    private int _wroteAtLeastOneFile;

    public Copy()
        : this(null, null)
    {
    }

    /// <param name="engine">The clone engine; null for this process's shared one.</param>
    /// <param name="environment">Reads environment variables; null for the project's (see Copy.Environment.cs).</param>
    internal Copy(ICloneEngine? engine, Func<string, string?>? environment)
    {
        _engine = engine ?? CloneEngines.Current;
        _environment = environment ?? ReadProjectEnvironment;
    }

    public ITaskItem[]? SourceFiles { get; set; }

    public ITaskItem[]? SourceFolders { get; set; }

    public ITaskItem? DestinationFolder { get; set; }

    [Output]
    public ITaskItem[]? DestinationFiles { get; set; }

    [Output]
    public ITaskItem[]? CopiedFiles { get; private set; }

    [Output]
    public bool WroteAtLeastOneFile => Volatile.Read(ref _wroteAtLeastOneFile) != 0;

    public int Retries { get; set; } = 10;

    public int RetryDelayMilliseconds { get; set; } = 1000;

    public bool UseHardlinksIfPossible { get; set; }

    /// <summary>When not set, MSBuildUseSymboliclinksIfPossible in the environment turns it on, as in the stock task.</summary>
    public bool UseSymboliclinksIfPossible
    {
        get => _useSymboliclinksIfPossible ?? false;
        set => _useSymboliclinksIfPossible = value;
    }

    public bool ErrorIfLinkFails { get; set; }

    public bool SkipUnchangedFiles { get; set; }

    public bool OverwriteReadOnlyFiles { get; set; }

    public bool FailIfNotIncremental { get; set; }

    /// <summary>What this invocation cloned, copied, linked and left alone (for tests and the build summary).</summary>
    internal CopySummary Summary => _summary;

    /// <summary>
    /// The project's CopyOnWriteMode and friends when <see cref="Savings.CopyTaskFactory"/> made the task (they were
    /// set in a project file); null when MSBuild loaded it directly and they come from -p: or the environment.
    /// </summary>
    internal Savings.CopyOnWriteSettings? Settings { get; set; }

    /// <summary>A CopyOnWrite property value the factory did not understand (reported as COW003), or null.</summary>
    internal string? SettingsProblem { get; set; }

    public void Cancel() => _cancellation.Cancel();

    public override bool Execute()
    {
        _summary = new CopySummary();
        _foldersKnownToExist.Clear(); // a task object run again may find its folders gone
        if ((SourceFiles is null || SourceFiles.Length == 0) && (SourceFolders is null || SourceFolders.Length == 0))
        {
            DestinationFiles = Array.Empty<ITaskItem>();
            CopiedFiles = Array.Empty<ITaskItem>();
            return true;
        }

        if (!ValidateParameters())
        {
            return false;
        }

        string? settingsProblem = SettingsProblem;
        Savings.CopyOnWriteSettings settings = Settings ?? Savings.CopyOnWriteSettings.FromBuild(BuildEngine, _environment, out settingsProblem);
        _summary = new CopySummary(() => Savings.CopySources.For(settings.AcceptCopiesFrom, _environment));
        var options = new CopyOptions(
            OverwriteReadOnlyFiles: OverwriteReadOnlyFiles || _environment("MSBUILDALWAYSOVERWRITEREADONLYFILES") is not null,
            UseSymbolicLinks: _useSymboliclinksIfPossible ?? _environment("MSBuildUseSymboliclinksIfPossible") is not null,
            AlwaysRetry: _environment("MSBUILDALWAYSRETRY") is not null,
            RetryAccessDenied: MSBuildHost.RetriesAccessDeniedByDefault(_environment),
            CopyWithoutDelete: _environment("MSBUILDCOPYWITHOUTDELETE") == "1");

        if (!TryPlanPairs(out List<CopyPair> pairs))
        {
            DestinationFiles = Array.Empty<ITaskItem>();
            return false;
        }

        bool allSucceeded = RunPairs(pairs, options);
        var copied = new List<ITaskItem>(pairs.Count);
        foreach (CopyPair pair in pairs)
        {
            if (pair.Succeeded)
            {
                copied.Add(pair.Destination);
            }
        }

        CopiedFiles = copied.ToArray();
        LogSummary();
        bool savingsOk = Savings.SavingsReport.Report(Log, BuildEngine, _summary, settings, settingsProblem);
        return allSucceeded && savingsOk && !_cancellation.IsCancellationRequested;
    }

    private bool ValidateParameters()
    {
        if (Retries < 0)
        {
            return LogErrorAndFail(CopyMessages.InvalidRetryCountCode, CopyMessages.InvalidRetryCount, Retries);
        }

        if (RetryDelayMilliseconds < 0)
        {
            return LogErrorAndFail(CopyMessages.InvalidRetryDelayCode, CopyMessages.InvalidRetryDelay, RetryDelayMilliseconds);
        }

        if (DestinationFiles is null && DestinationFolder is null)
        {
            return LogErrorAndFail(CopyMessages.NoDestinationCode, CopyMessages.NoDestination, DestinationFilesName, DestinationFolderName);
        }

        if (DestinationFiles is not null && DestinationFolder is not null)
        {
            return LogErrorAndFail(CopyMessages.BothDestinationsCode, CopyMessages.BothDestinations, DestinationFilesName, DestinationFolderName);
        }

        if (SourceFolders is not null && DestinationFiles is not null)
        {
            return LogErrorAndFail(CopyMessages.IncompatibleParametersCode, CopyMessages.IncompatibleParameters, SourceFoldersName, DestinationFilesName);
        }

        if (DestinationFiles is not null && DestinationFiles.Length != (SourceFiles?.Length ?? 0))
        {
            return LogErrorAndFail(CopyMessages.CountMismatchCode, CopyMessages.CountMismatch, DestinationFiles.Length, SourceFiles?.Length ?? 0, DestinationFilesName, SourceFilesName);
        }

        if (ErrorIfLinkFails && !UseHardlinksIfPossible && !UseSymboliclinksIfPossible)
        {
            return LogErrorAndFail(CopyMessages.ErrorIfLinkFailsWithoutLinkCode, CopyMessages.ErrorIfLinkFailsWithoutLink);
        }

        return true;
    }

    /// <summary>Pairs every source with its destination; with DestinationFolder, makes the destination items.</summary>
    private bool TryPlanPairs(out List<CopyPair> pairs)
    {
        pairs = new List<CopyPair>();
        ITaskItem[] sources = SourceFiles ?? Array.Empty<ITaskItem>();
        if (DestinationFiles is not null)
        {
            for (int i = 0; i < sources.Length; i++)
            {
                pairs.Add(new CopyPair(sources[i], DestinationFiles[i]));
            }

            return true;
        }

        var destinations = new List<ITaskItem>();
        string folder = DestinationFolder!.ItemSpec;
        string? folderPath = null;
        try
        {
            folderPath = ResolvePath(DestinationFolder);
        }
        catch (Exception e) when (IsBadPath(e))
        {
            // Each pair reports it (MSB3021) when it resolves its own destination, as the stock task does.
        }

        foreach (ITaskItem source in sources)
        {
            if (!TryAddFolderPair(source, null, source, folder, folderPath, Path.GetFileName(source.ItemSpec), pairs, destinations))
            {
                return false;
            }
        }

        foreach (ITaskItem sourceFolder in SourceFolders ?? Array.Empty<ITaskItem>())
        {
            // As the stock task: the folder's own name (of its full path, so "lib/." is "lib" and "lib/" is ""),
            // subfolders before the files of a folder, nothing at all for a folder that does not exist, and the
            // folder item's metadata (OriginalItemSpec included) on every generated destination.
            string folderSpec = sourceFolder.ItemSpec;
            string sourceFolderPath;
            try
            {
                sourceFolderPath = ResolvePath(sourceFolder);
            }
            catch (Exception e) when (IsBadPath(e))
            {
                return LogErrorAndFail(CopyMessages.UnableToCopyCode, CopyMessages.UnableToCopy, folderSpec, folder, e.Message);
            }

            if (!Directory.Exists(sourceFolderPath))
            {
                continue;
            }

            string folderName = Path.GetFileName(sourceFolderPath);
            foreach (string file in FilesDepthFirst(sourceFolderPath))
            {
                string relative = file.Substring(sourceFolderPath.Length).TrimStart(Path.DirectorySeparatorChar, Path.AltDirectorySeparatorChar);
                var source = new TaskItem(MSBuildEscaping.Escape(file));
                if (!TryAddFolderPair(source, file, sourceFolder, folder, folderPath, Path.Combine(folderName, relative), pairs, destinations))
                {
                    return false;
                }
            }
        }

        DestinationFiles = destinations.ToArray();
        return true;
    }

    /// <summary>
    /// Every file under <paramref name="folder"/> in the stock task's order: a folder's subfolders first (recursively,
    /// the last one listed first), then its own files in the order the file system lists them.
    /// </summary>
    private static IEnumerable<string> FilesDepthFirst(string folder)
    {
        foreach (string subfolder in Directory.EnumerateDirectories(folder).Reverse())
        {
            foreach (string file in FilesDepthFirst(subfolder))
            {
                yield return file;
            }
        }

        foreach (string file in Directory.EnumerateFiles(folder))
        {
            yield return file;
        }
    }

    /// <param name="sourcePath">The source's full path when we made the source item ourselves; else null (resolved from the item).</param>
    /// <param name="folderPath">DestinationFolder's full path (null when it is not a valid path).</param>
    private bool TryAddFolderPair(ITaskItem source, string? sourcePath, ITaskItem metadataSource, string folder, string? folderPath, string relativeDestination, List<CopyPair> pairs, List<ITaskItem> destinations)
    {
        TaskItem destination;
        try
        {
            destination = new TaskItem(MSBuildEscaping.Escape(Path.Combine(folder, relativeDestination)));
        }
        catch (ArgumentException e)
        {
            return LogErrorAndFail(CopyMessages.UnableToCopyCode, CopyMessages.UnableToCopy, source.ItemSpec, folder, e.Message);
        }

        metadataSource.CopyMetadataTo(destination);
        destinations.Add(destination);

        // The generated item's full path comes from DestinationFolder's, never from this process's current
        // directory (a TaskItem we make resolves against that, not against the project's directory).
        string? destinationPath = null;
        if (folderPath is not null)
        {
            try
            {
                destinationPath = Path.GetFullPath(Path.Combine(folderPath, relativeDestination));
            }
            catch (Exception e) when (IsBadPath(e))
            {
                // Reported by the pair itself.
            }
        }

        pairs.Add(new CopyPair(source, destination, sourcePath, destinationPath));
        return true;
    }

    /// <summary>
    /// Copies to different destinations run in parallel; copies to one destination (the same spec, as the stock
    /// task partitions) run in input order on one thread, so "last source wins" and "a repeated pair is handled
    /// once" hold as in the stock task.
    /// </summary>
    private bool RunPairs(List<CopyPair> pairs, CopyOptions options)
    {
        List<List<CopyPair>> byDestination = GroupByDestination(pairs);

        int failures = 0;
        void RunGroup(List<CopyPair> group)
        {
            string? previousSource = null;
            foreach (CopyPair pair in group)
            {
                if (_cancellation.IsCancellationRequested)
                {
                    Interlocked.Increment(ref failures);
                    return;
                }

                // The same pair as the one before it for this destination: not attempted again, and reported as
                // copied even when that attempt failed (what the stock task does).
                if (previousSource is not null && string.Equals(previousSource, pair.Source.ItemSpec, MSBuildHost.PathComparison))
                {
                    pair.Succeeded = Succeeded(pair);
                    continue;
                }

                previousSource = pair.Source.ItemSpec;
                pair.Succeeded = CopyOne(pair, options);
                if (!pair.Succeeded)
                {
                    Interlocked.Increment(ref failures);
                }
            }
        }

        InputOrderParallel.ForEach(byDestination, DegreeOfParallelism(), RunGroup);
        return failures == 0;
    }

    /// <summary>The pairs per destination spec, in the order each destination first appears.</summary>
    /// <remarks>A loop, not LINQ's GroupBy: that costs about 0.6 ms of first-use work in every MSBuild node (measured).</remarks>
    private static List<List<CopyPair>> GroupByDestination(List<CopyPair> pairs)
    {
        var groups = new List<List<CopyPair>>(pairs.Count);
        if (pairs.Count == 1)
        {
            groups.Add(pairs);
            return groups;
        }

        var groupOf = new Dictionary<string, List<CopyPair>>(pairs.Count, MSBuildHost.PathComparer);
        foreach (CopyPair pair in pairs)
        {
            if (!groupOf.TryGetValue(pair.Destination.ItemSpec, out List<CopyPair>? group))
            {
                group = new List<CopyPair>(1);
                groupOf.Add(pair.Destination.ItemSpec, group);
                groups.Add(group);
            }

            group.Add(pair);
        }

        return groups;
    }

    private int DegreeOfParallelism()
        => _environment("MSBUILDCOPYTASKPARALLELISM") == "1" ? 1 : Environment.ProcessorCount > 4 ? 6 : 4;

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
            return LogErrorAndFail(CopyMessages.UnableToCopyCode, CopyMessages.UnableToCopy, sourceSpec, destinationSpec, e.Message);
        }

        if (SkipUnchangedFiles && IsUnchanged(sourcePath, destinationPath, out long length))
        {
            Log.LogMessage(MessageImportance.Low, CopyMessages.DidNotCopyUnchanged, sourceSpec, destinationSpec, nameof(SkipUnchangedFiles), "true");
            _summary.AddUpToDate(length);
            return Succeeded(pair);
        }

        // Also when the destination is the source's own entry by another way (symlinked folder, bind mount):
        // replacing it would replace the source (new inode, owner-writable mode, a full copy on ext4). A destination
        // that is not there (most copies of a clean build) is no entry at all.
        EntryKind destination = UnixFiles.Probe(destinationPath, followLinks: false);
        if (string.Equals(sourcePath, destinationPath, MSBuildHost.PathComparison)
            || (destination != EntryKind.Missing && UnixFiles.AreOneDirectoryEntry(sourcePath, destinationPath)))
        {
            return Succeeded(pair); // copying a file onto itself: nothing to do, and nothing may be lost
        }

        if (FailIfNotIncremental)
        {
            // The stock task names the paths as written here, not their full forms.
            Log.LogError(CopyMessages.CopyingFile, sourceSpec, destinationSpec);
            return false;
        }

        return CopyWithRetries(sourceSpec, destinationSpec, sourcePath, destinationPath, destination, options) && Succeeded(pair);
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

    /// <param name="destination">What the destination was found to be just before (for the first attempt only: a retry looks again).</param>
    private bool CopyWithRetries(string sourceSpec, string destinationSpec, string sourcePath, string destinationPath, EntryKind destination, CopyOptions options)
    {
        for (int retry = 0; ; retry++)
        {
            try
            {
                return CopyOrLink(sourceSpec, destinationSpec, sourcePath, destinationPath, retry == 0 ? destination : EntryKind.Unknown, options);
            }
            catch (OperationCanceledException)
            {
                return false;
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
            {
                if (!IsRetryable(e, sourceSpec, destinationSpec, options))
                {
                    return LogErrorAndFail(CopyMessages.UnableToCopyCode, CopyMessages.UnableToCopy, sourceSpec, destinationSpec, e.Message);
                }

                if (retry < Retries)
                {
                    LogWarning(CopyMessages.RetryingCode, CopyMessages.Retrying, sourceSpec, destinationSpec, retry + 1, RetryDelayMilliseconds, e.Message, string.Empty);
                    if (_cancellation.Token.WaitHandle.WaitOne(RetryDelayMilliseconds))
                    {
                        return false; // cancelled while waiting: stop at once, the build is ending
                    }

                    continue;
                }

                if (Retries > 0)
                {
                    LogError(CopyMessages.ExceededRetriesCode, CopyMessages.ExceededRetries, sourceSpec, destinationSpec, Retries, string.Empty);
                }

                return LogErrorAndFail(CopyMessages.UnableToCopyCode, CopyMessages.UnableToCopy, sourceSpec, destinationSpec, e.Message);
            }
        }
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
            LogWarning(CopyMessages.AlwaysRetryGotErrorCode, CopyMessages.AlwaysRetryGotError, e.ToString(), sourceSpec, destinationSpec, e.HResult);
        }

        if (e is UnauthorizedAccessException)
        {
            if (options.AlwaysRetry)
            {
                LogWarning(CopyMessages.AlwaysRetryAccessDeniedCode, CopyMessages.AlwaysRetryAccessDenied);
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
    private bool CopyOrLink(string sourceSpec, string destinationSpec, string sourcePath, string destinationPath, EntryKind destination, CopyOptions options)
    {
        // The stock task's checks, in its order. A missing destination or a regular file is no folder; a regular
        // source is neither a folder nor missing; anything else is asked of .NET, as the stock task asks it.
        if (destination == EntryKind.Unknown && Directory.Exists(destinationPath))
        {
            return LogErrorAndFail(CopyMessages.DestinationIsFolderCode, CopyMessages.DestinationIsFolder, sourceSpec, destinationSpec);
        }

        if (UnixFiles.Probe(sourcePath, followLinks: true) != EntryKind.RegularFile)
        {
            if (Directory.Exists(sourcePath))
            {
                return LogErrorAndFail(CopyMessages.SourceIsFolderCode, CopyMessages.SourceIsFolder, sourceSpec);
            }

            if (!File.Exists(sourcePath))
            {
                return LogErrorAndFail(CopyMessages.SourceNotFoundCode, CopyMessages.SourceNotFound, sourceSpec);
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
                        Log.LogMessage(MessageImportance.Normal, CopyMessages.CreatingDirectory, Path.GetDirectoryName(destinationSpec));
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
            Log.LogMessage(MessageImportance.Low, CopyMessages.RemovingReadOnly, destinationSpec);
            ClearReadOnly(destinationPath);
        }

        // The stock task deletes an existing destination before linking or copying, except a read-only one and
        // with MSBUILDCOPYWITHOUTDELETE=1. Where it keeps it, its link call meets an existing file and fails (EEXIST).
        bool stockKeepsDestination = destinationExists && (options.CopyWithoutDelete || IsReadOnly(destinationPath));

        LinkOutcome link = TryLink(sourcePath, destinationPath, stockKeepsDestination, options);
        if (link == LinkOutcome.Linked)
        {
            _summary.AddLinked();
            Interlocked.Exchange(ref _wroteAtLeastOneFile, 1);
            return true;
        }

        if (link == LinkOutcome.FailedWithError)
        {
            return false;
        }

        Log.LogMessage(MessageImportance.Normal, CopyMessages.CopyingFile, sourcePath, destinationPath);

        // Where the stock task keeps an existing destination file (read-only, or MSBUILDCOPYWITHOUTDELETE=1), its
        // File.Copy opens it for writing and fails if this user cannot write it: fail the same way with the same
        // exception, which a rename over it would not notice. Where it deletes it first, the delete and our rename
        // need the same rights, so that is asked only if the clone fails (below), not for every existing destination
        // (an open for writing, fstatfs, two flocks and a close per overwritten file, strace).
        bool mayBeUnwritable = destinationIsFile && !destinationIsLink;
        if (mayBeUnwritable && stockKeepsDestination)
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
            result = _engine.CloneOrCopy(sourcePath, destinationPath, _cancellation.Token);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // The stock task's delete failed where our rename did (an immutable file, a folder this user cannot
            // write); its File.Copy then opened the file for writing: its exception when that fails too.
            if (mayBeUnwritable && !stockKeepsDestination)
            {
                FileLinks.ThrowIfNotWritable(destinationPath, create: false);
            }

            throw FileLinks.WithDestinationPath(e, destinationPath);
        }

        _summary.AddCloneResult(result, sourcePath, destinationPath);
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
            Log.LogMessage(MessageImportance.Low, CopyMessages.WrittenInPlace, destinationPath);
        }

        return true;
    }

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

    /// <summary>
    /// An item's full path. Items from the engine resolve a relative spec against their project's directory
    /// (their FullPath metadata), which is what the stock task gets from the current directory in a normal build
    /// and from TaskEnvironment in a multi-threaded one; this task never reads the process's current directory
    /// itself, so it is right in both. A spec that is no valid path fails as Path.GetFullPath fails.
    /// </summary>
    private static string ResolvePath(ITaskItem item)
    {
        string fullPath;
        try
        {
            fullPath = item.GetMetadata("FullPath");
        }
        catch (Exception e) when (e is InvalidOperationException or ArgumentException or NotSupportedException or PathTooLongException)
        {
            ThrowLikeGetFullPath(item.ItemSpec);
            throw;
        }

        if (string.IsNullOrEmpty(fullPath))
        {
            ThrowLikeGetFullPath(item.ItemSpec);
            throw new ArgumentException($"The path is empty: '{item.ItemSpec}'.");
        }

        return fullPath;
    }

    /// <summary>Throws the exception Path.GetFullPath gives for a bad path (the text the stock task's MSB3021 shows).</summary>
    private static void ThrowLikeGetFullPath(string path)
    {
        if (path.Length == 0 || path.IndexOf('\0') >= 0 || !Path.IsPathRooted(path))
        {
            Path.GetFullPath(path.Length == 0 ? path : Path.Combine(Path.DirectorySeparatorChar.ToString(), path));
        }
    }

    /// <summary>Path errors that no retry can fix (MSB3021 at once).</summary>
    private static bool IsBadPath(Exception e) => e is ArgumentException or NotSupportedException or PathTooLongException;

    private static bool IsReadOnly(string path) => (File.GetAttributes(path) & FileAttributes.ReadOnly) != 0;

    private static void ClearReadOnly(string path) => File.SetAttributes(path, File.GetAttributes(path) & ~FileAttributes.ReadOnly);

    private void LogSummary()
    {
        // Described only when a logger takes the line: at the console's default verbosity nobody does.
        MessageImportance importance = _summary.DidWork ? MessageImportance.Normal : MessageImportance.Low;
        if ((_summary.DidWork || _summary.UpToDateFiles > 0) && Log.LogsMessagesOfImportance(importance))
        {
            Log.LogMessage(importance, _summary.Describe());
        }
    }

    private bool LogErrorAndFail(string code, string format, params object[] arguments)
    {
        LogError(code, format, arguments);
        return false;
    }

    private void LogError(string code, string format, params object[] arguments)
        => Log.LogError(subcategory: null, errorCode: code, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0, message: format, messageArgs: arguments);

    private void LogWarning(string code, string format, params object[] arguments)
        => Log.LogWarning(subcategory: null, warningCode: code, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0, message: format, messageArgs: arguments);

    private enum LinkOutcome
    {
        NotAsked,
        Linked,
        FailedWithError,
    }

    private readonly record struct CopyOptions(bool OverwriteReadOnlyFiles, bool UseSymbolicLinks, bool AlwaysRetry, bool RetryAccessDenied, bool CopyWithoutDelete);

    private sealed class CopyPair
    {
        public CopyPair(ITaskItem source, ITaskItem destination, string? sourcePath = null, string? destinationPath = null)
        {
            Source = source;
            Destination = destination;
            SourcePath = sourcePath;
            DestinationPath = destinationPath;
        }

        public ITaskItem Source { get; }

        public ITaskItem Destination { get; }

        /// <summary>Full paths already known when planning (generated items); else resolved from the items.</summary>
        public string? SourcePath { get; }

        public string? DestinationPath { get; }

        public bool Succeeded { get; set; }
    }
}
