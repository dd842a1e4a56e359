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
/// Our Copy task against MSBuild's own (from the installed SDK), on the same sources, into an empty folder
/// each time (SkipUnchangedFiles=false, every other parameter at its default, so both copy in parallel).
/// </summary>
public class CopyTaskBenchmarks
{
    /// <summary>The file sets: name, then (count, size) groups.</summary>
    public static readonly IReadOnlyDictionary<string, (int Count, long Size)[]> Sets = new Dictionary<string, (int, long)[]>
    {
        ["2000 x 4 KiB"] = [(2000, 4 * Settings.KiB)],
        ["8 x 32 MiB"] = [(8, 32 * Settings.MiB)],
        ["mix"] = [(1000, 4 * Settings.KiB), (100, Settings.MiB), (4, 32 * Settings.MiB)],
    };

    /// <summary>What our task said it did, per file system and set (its one-line summary).</summary>
    public static readonly ConcurrentDictionary<string, string> OurSummaries = new();

    private readonly SilentBuildEngine _buildEngine = new();
    private ITaskItem[] _sources = [];
    private string _folder = string.Empty;
    private string _destination = string.Empty;

    [ParamsSource(nameof(FileSystems))]
    public string FileSystem { get; set; } = string.Empty;

    [ParamsSource(nameof(SetNames))]
    public string Set { get; set; } = string.Empty;

    public static IEnumerable<string> FileSystems => Settings.Available("xfs", "ext4");

    public static IEnumerable<string> SetNames => Sets.Keys;

    public static string Describe(string set)
        => string.Join(" + ", Sets[set].Select(g => $"{g.Count:N0} x {Settings.FormatSize(g.Size)}"));

    [GlobalSetup]
    public void GlobalSetup()
    {
        Machine.SampleLoad();
        _folder = Path.Combine(Settings.MountPoint(FileSystem), $"task-{Guid.NewGuid():N}");
        string sourceFolder = Path.Combine(_folder, "source");
        Directory.CreateDirectory(sourceFolder);
        var sources = new List<ITaskItem>();
        int seed = 1;
        foreach ((int count, long size) in Sets[Set])
        {
            for (int i = 0; i < count; i++)
            {
                string path = Path.Combine(sourceFolder, $"file-{Settings.FormatSize(size).Replace(" ", string.Empty)}-{i:0000}.bin");
                EngineBenchmarks.WriteRandomFile(path, size, seed++);
                sources.Add(new TaskItem(path));
            }
        }

        _sources = sources.ToArray();
        _destination = Path.Combine(_folder, "destination");
        Native.SyncFileSystem(_folder);
    }

    [IterationSetup]
    public void IterationSetup()
    {
        if (Directory.Exists(_destination))
        {
            Directory.Delete(_destination, recursive: true);
        }

        Directory.CreateDirectory(_destination);
        Native.SyncFileSystem(_folder);
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        Directory.Delete(_folder, recursive: true);
        Native.SyncFileSystem(Settings.MountPoint(FileSystem));
        Native.Trim(Settings.MountPoint(FileSystem));
    }

    [Benchmark(Baseline = true, Description = "stock Copy")]
    public void Stock()
    {
        var task = new Microsoft.Build.Tasks.Copy
        {
            BuildEngine = _buildEngine,
            SourceFiles = _sources,
            DestinationFolder = new TaskItem(_destination),
            SkipUnchangedFiles = false,
        };
        Check(task.Execute(), task.CopiedFiles);
    }

    [Benchmark(Description = "our Copy")]
    public void Ours()
    {
        var task = new Copy
        {
            BuildEngine = _buildEngine,
            SourceFiles = _sources,
            DestinationFolder = new TaskItem(_destination),
            SkipUnchangedFiles = false,
        };
        Check(task.Execute(), task.CopiedFiles);
        if (_buildEngine.Summary is string summary)
        {
            OurSummaries[$"{FileSystem}|{Set}"] = summary;
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
}
