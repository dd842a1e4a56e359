using System;
using System.Collections.Generic;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// A drop-in replacement for MSBuild's Copy task (same parameters, outputs, codes, messages and incremental behaviour)
/// that clones where the file system can. No process-wide state: paths and environment are the project's, as -mt needs.
/// </summary>
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

    /// <summary>DestinationFolder's full path, against its project's folder (null without one or when it is no valid path).</summary>
    private string? _destinationFolderPath;
    private int _failures;
    // What the parameters and the project's environment ask of every pair: read once, in Execute.
    private CopyOptions _options;
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
    /// The project's CopyOnWriteMode and friends when <see cref="CopyTaskFactory"/> made the task (they were
    /// set in a project file); null when MSBuild loaded it directly and they come from -p: or the environment.
    /// </summary>
    internal CopyOnWriteSettings? Settings { get; set; }

    /// <summary>Set by <see cref="ReplaceLinksWithClones"/>: only a destination that is a link an earlier build made is replaced; nothing else is written.</summary>
    internal bool LinksOnly { get; set; }

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
        CopyOnWriteSettings settings = Settings ?? CopyOnWriteSettings.FromBuild(BuildEngine, _environment, out settingsProblem);
        _summary = new CopySummary(() => CopySources.For(settings.AcceptCopiesFrom, _environment, MSBuildHost.PathComparison));
        _options = new CopyOptions(
            new PairOptions(
                SkipUnchanged: SkipUnchangedFiles,
                FailIfNotIncremental: FailIfNotIncremental,
                HardLinks: UseHardlinksIfPossible,
                SymbolicLinks: _useSymboliclinksIfPossible ?? _environment("MSBuildUseSymboliclinksIfPossible") is not null,
                OverwriteReadOnly: OverwriteReadOnlyFiles || _environment("MSBUILDALWAYSOVERWRITEREADONLYFILES") is not null,
                CopyWithoutDelete: _environment("MSBUILDCOPYWITHOUTDELETE") == "1",
                CloneInsteadOfLinks: settings.InsteadOfLinks,
                LinksOnly: LinksOnly),
            AlwaysRetry: _environment("MSBUILDALWAYSRETRY") is not null,
            RetryAccessDenied: MSBuildHost.RetriesAccessDeniedByDefault(_environment));

        if (!TryPlanPairs(out List<CopyPair> pairs))
        {
            DestinationFiles = Array.Empty<ITaskItem>();
            return false;
        }

        if (pairs.Count > 0 && CloneEngines.SelectionFault is string engineFault)
        {
            EngineFaultWarning.ReportSelectionFault(Log, engineFault);
        }

        _failures = 0;
        InputOrderParallel.ForEach(GroupByDestination(pairs), DegreeOfParallelism(), RunGroup); // a method group: no frame between
        bool allSucceeded = _failures == 0;
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
        bool savingsOk = SavingsReport.Report(Log, BuildEngine, _summary, settings, settingsProblem);
        return allSucceeded && savingsOk && !_cancellation.IsCancellationRequested;
    }

    private bool ValidateParameters()
    {
        if (Retries < 0)
        {
            return LogErrorAndFail(CopyMessages.InvalidRetryCount, Retries);
        }

        if (RetryDelayMilliseconds < 0)
        {
            return LogErrorAndFail(CopyMessages.InvalidRetryDelay, RetryDelayMilliseconds);
        }

        if (DestinationFiles is null && DestinationFolder is null)
        {
            return LogErrorAndFail(CopyMessages.NoDestination, DestinationFilesName, DestinationFolderName);
        }

        if (DestinationFiles is not null && DestinationFolder is not null)
        {
            return LogErrorAndFail(CopyMessages.BothDestinations, DestinationFilesName, DestinationFolderName);
        }

        if (SourceFolders is not null && DestinationFiles is not null)
        {
            return LogErrorAndFail(CopyMessages.IncompatibleParameters, SourceFoldersName, DestinationFilesName);
        }

        if (DestinationFiles is not null && DestinationFiles.Length != (SourceFiles?.Length ?? 0))
        {
            return LogErrorAndFail(CopyMessages.CountMismatch, DestinationFiles.Length, SourceFiles?.Length ?? 0, DestinationFilesName, SourceFilesName);
        }

        if (ErrorIfLinkFails && !UseHardlinksIfPossible && !UseSymboliclinksIfPossible)
        {
            return LogErrorAndFail(CopyMessages.ErrorIfLinkFailsWithoutLink);
        }

        return true;
    }

    private readonly record struct CopyOptions(PairOptions Pair, bool AlwaysRetry, bool RetryAccessDenied);
}
