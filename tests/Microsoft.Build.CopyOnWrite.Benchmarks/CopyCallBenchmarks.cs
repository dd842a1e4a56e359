using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using BenchmarkDotNet.Attributes;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite.Benchmarks;

/// <summary>
/// One Copy call as a build makes it, ours against MSBuild's own: <c>Execute</c> of a task object whose
/// parameters are set, for 1, 20 or 200 files of 1 KiB or 1 MiB, into an empty destination folder ("new") or over
/// the files a previous copy left there with other timestamps ("existing", <c>SkipUnchangedFiles=false</c>, so both
/// tasks overwrite them), with a build engine whose loggers take low-importance messages or only normal and high
/// ones (<see cref="LoggingBuildEngine"/>).
/// </summary>
/// <remarks>
/// One call of 1 file takes a fraction of a millisecond, too little for one timed call per iteration to mean much
/// (a timer tick, a context switch). So an iteration times <see cref="CallsPerIteration"/> calls one after another,
/// each a new task object into a destination folder of its own, all prepared before the iteration, outside it; the
/// report divides by that number (<see cref="Report"/>, section 5).
/// </remarks>
public class CopyCallBenchmarks
{
    public const string NewDestination = "new";
    public const string ExistingDestination = "existing";

    /// <summary>What our task said it did, per case (its one-line summary, when its loggers took it).</summary>
    public static readonly ConcurrentDictionary<string, string> OurSummaries = new();

    /// <summary>Messages a call had the loggers take, per case and task (the last iteration's, per call).</summary>
    public static readonly ConcurrentDictionary<string, (double Messages, double Characters)> Logged = new();

    /// <summary>The check that the engine's logging level reaches our task, per file system (made once, before its first case).</summary>
    public static readonly ConcurrentDictionary<string, string> LoggingChecks = new();

    private static readonly ConcurrentDictionary<(string FileSystem, int Files, long Size), (string Folder, ITaskItem[] Items)> SourceSets = new();

    private LoggingBuildEngine _buildEngine = null!;
    private ITaskItem[] _sources = [];
    private string _root = string.Empty;
    private string[] _destinations = [];
    private Microsoft.Build.Tasks.Copy[] _stockTasks = [];
    private Copy[] _ourTasks = [];

    [ParamsSource(nameof(FileSystems))]
    public string FileSystem { get; set; } = string.Empty;

    [ParamsSource(nameof(FileCounts))]
    public int Files { get; set; }

    [ParamsSource(nameof(Sizes))]
    public long Size { get; set; }

    [ParamsSource(nameof(Destinations))]
    public string Destination { get; set; } = string.Empty;

    [ParamsSource(nameof(LoggingLevels))]
    public string Logging { get; set; } = string.Empty;

    public static IEnumerable<string> FileSystems => Settings.Available("xfs", "ext4");

    /// <summary>The smoke run keeps 1 and 20 files of 1 KiB (with both destinations and both loggers).</summary>
    public static IEnumerable<int> FileCounts => Settings.Smoke ? [1, 20] : [1, 20, 200];

    public static IEnumerable<long> Sizes => Settings.Smoke ? [Settings.KiB] : [Settings.KiB, Settings.MiB];

    public static IEnumerable<string> Destinations => [NewDestination, ExistingDestination];

    public static IEnumerable<string> LoggingLevels => LoggingBuildEngine.Levels;

    /// <summary>
    /// Calls timed together in one iteration: about a millisecond or more of work per iteration for the small
    /// calls, one call where a call alone takes milliseconds (200 files).
    /// </summary>
    public static int CallsPerIteration(int files) => files switch
    {
        <= 1 => 16,
        <= 20 => 4,
        _ => 1,
    };

    public static string Key(string fileSystem, int files, long size, string destination, string logging)
        => $"{fileSystem}|{files}|{size}|{destination}|{logging}";

    private string CaseKey => Key(FileSystem, Files, Size, Destination, Logging);

    [GlobalSetup]
    public void GlobalSetup()
    {
        Machine.SampleLoad();
        string mountPoint = Settings.MountPoint(FileSystem);
        LoggingChecks.GetOrAdd(FileSystem, _ => CheckLogging(mountPoint));
        _sources = SourceSets.GetOrAdd((FileSystem, Files, Size), key => MakeSources(mountPoint, key.Files, key.Size)).Items;
        _buildEngine = new LoggingBuildEngine(Logging);
        _root = Path.Combine(mountPoint, $"calls-{Guid.NewGuid():N}");
        _destinations = Enumerable.Range(0, CallsPerIteration(Files)).Select(i => Path.Combine(_root, $"destination-{i:00}")).ToArray();
        _stockTasks = new Microsoft.Build.Tasks.Copy[_destinations.Length];
        _ourTasks = new Copy[_destinations.Length];
        foreach (string destination in _destinations)
        {
            Directory.CreateDirectory(destination);
            if (Destination == ExistingDestination)
            {
                // The previous copy: the files as a build leaves them, in place before the first iteration.
                foreach (ITaskItem source in _sources)
                {
                    File.Copy(source.ItemSpec, Path.Combine(destination, Path.GetFileName(source.ItemSpec)));
                }
            }
        }

        Native.SyncFileSystem(_root);
    }

    [IterationSetup]
    public void IterationSetup()
    {
        if (Destination == NewDestination)
        {
            foreach (string destination in _destinations)
            {
                Directory.Delete(destination, recursive: true);
                Directory.CreateDirectory(destination);
            }
        }
        else
        {
            // The state a previous copy of older sources left: the same names, other timestamps. The call before
            // this iteration gave the files the sources' times; give them older ones again (and put back a missing one).
            foreach (string destination in _destinations)
            {
                foreach (ITaskItem source in _sources)
                {
                    string path = Path.Combine(destination, Path.GetFileName(source.ItemSpec));
                    if (!File.Exists(path))
                    {
                        File.Copy(source.ItemSpec, path);
                    }

                    File.SetLastWriteTimeUtc(path, File.GetLastWriteTimeUtc(source.ItemSpec) - TimeSpan.FromHours(1));
                }
            }
        }

        for (int i = 0; i < _destinations.Length; i++)
        {
            _stockTasks[i] = new Microsoft.Build.Tasks.Copy
            {
                BuildEngine = _buildEngine,
                SourceFiles = _sources,
                DestinationFolder = new TaskItem(_destinations[i]),
                SkipUnchangedFiles = false,
            };
            _ourTasks[i] = new Copy
            {
                BuildEngine = _buildEngine,
                SourceFiles = _sources,
                DestinationFolder = new TaskItem(_destinations[i]),
                SkipUnchangedFiles = false,
            };
        }

        _buildEngine.Clear();
        Native.SyncFileSystem(_root);
    }

    [IterationCleanup(Target = nameof(Stock))]
    public void StockIterationCleanup() => KeepWhatWasLogged(nameof(Stock));

    [IterationCleanup(Target = nameof(Ours))]
    public void OursIterationCleanup()
    {
        KeepWhatWasLogged(nameof(Ours));
        OurSummaries[CaseKey] = _ourTasks[^1].Summary.Describe();
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        Directory.Delete(_root, recursive: true);
        Native.SyncFileSystem(Settings.MountPoint(FileSystem));
        if (!Settings.Smoke)
        {
            Native.Trim(Settings.MountPoint(FileSystem));
        }
    }

    /// <summary>Deletes the source files the cases shared (after the last case).</summary>
    public static void DeleteSources()
    {
        foreach ((string folder, _) in SourceSets.Values)
        {
            Directory.Delete(folder, recursive: true);
        }

        SourceSets.Clear();
    }

    [Benchmark(Baseline = true, Description = "stock Copy")]
    public void Stock()
    {
        foreach (Microsoft.Build.Tasks.Copy task in _stockTasks)
        {
            Check(task.Execute(), task.CopiedFiles);
        }
    }

    [Benchmark(Description = "our Copy")]
    public void Ours()
    {
        foreach (Copy task in _ourTasks)
        {
            Check(task.Execute(), task.CopiedFiles);
        }
    }

    private void Check(bool succeeded, ITaskItem[]? copied)
    {
        if (!succeeded || copied?.Length != _sources.Length)
        {
            throw new InvalidOperationException(
                $"The task failed or copied {copied?.Length ?? 0} of {_sources.Length} files: {_buildEngine.FirstError ?? "no error logged"}");
        }
    }

    private void KeepWhatWasLogged(string method)
        => Logged[CaseKey + "|" + method] = ((double)_buildEngine.Taken / _destinations.Length, (double)_buildEngine.TakenCharacters / _destinations.Length);

    private static (string Folder, ITaskItem[] Items) MakeSources(string mountPoint, int files, long size)
    {
        string folder = Path.Combine(mountPoint, $"calls-sources-{files}x{size}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(folder);
        var items = new ITaskItem[files];
        for (int i = 0; i < files; i++)
        {
            string path = Path.Combine(folder, $"file-{i:000}.bin");
            EngineBenchmarks.WriteRandomFile(path, size, seed: 1000 + i);
            items[i] = new TaskItem(path);
        }

        Native.SyncFileSystem(folder);
        return (folder, items);
    }

    /// <summary>
    /// Before the first case on a file system: our task copies one file with each engine, which this time also makes
    /// the text of messages its loggers do not take. With "normal" its data line (low importance) must not even be
    /// sent; with "low" it must be taken. Throws otherwise: the levels would not be what the report says they are.
    /// </summary>
    private static string CheckLogging(string mountPoint)
    {
        string folder = Path.Combine(mountPoint, $"calls-check-{Guid.NewGuid():N}");
        Directory.CreateDirectory(folder);
        try
        {
            string source = Path.Combine(folder, "source.bin");
            EngineBenchmarks.WriteRandomFile(source, Settings.KiB, seed: 5);
            var found = new List<string>();
            foreach (string logging in LoggingBuildEngine.Levels)
            {
                var engine = new LoggingBuildEngine(logging, inspectEverything: true);
                var task = new Copy { BuildEngine = engine, SourceFiles = [new TaskItem(source)], DestinationFolder = new TaskItem(Path.Combine(folder, logging)) };
                if (!task.Execute())
                {
                    throw new InvalidOperationException($"The logging check's copy failed: {engine.FirstError ?? "no error logged"}");
                }

                bool expected = logging == "low";
                if ((engine.DataLines > 0) != expected)
                {
                    throw new InvalidOperationException(
                        $"With logging \"{logging}\" our task's data line was {(expected ? "not received" : "received")} ({engine.DataLines} data lines, "
                        + $"{engine.Taken} messages taken, {engine.Dropped} sent below the loggers' importance): the build engine does not do what the report says.");
                }

                found.Add($"`{logging}`: {engine.DataLines} data line{(engine.DataLines == 1 ? string.Empty : "s")} received, {engine.Taken} message{(engine.Taken == 1 ? string.Empty : "s")} taken, {engine.Dropped} sent below the loggers' importance");
            }

            return string.Join("; ", found);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }
}
