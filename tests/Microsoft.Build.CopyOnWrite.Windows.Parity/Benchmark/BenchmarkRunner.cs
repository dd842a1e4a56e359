using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.Versioning;
using System.Text;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity.Benchmark;

/// <summary>
/// `--benchmark`: times one file's copy per call, every method side by side in each folder, and prints the Markdown
/// table (also to --out). Exit code 0 when every timed copy succeeded and arrived whole, 1 when one did not (its
/// cell says why), 2 for a bad command line.
/// </summary>
[SupportedOSPlatform("windows")]
internal sealed class BenchmarkRunner
{
    /// <summary>Far enough back that the engine's one-minute "recently written" rule cannot apply.</summary>
    private static readonly TimeSpan SettledAge = TimeSpan.FromMinutes(5);

    private readonly BenchmarkOptions _options;

    // One engine for the whole run, as one MSBuild node keeps one: what it learnt about a volume stays learnt.
    private readonly WindowsCloneEngine _engine = new(new WindowsNative(), new CloneCapabilityCache());
    private readonly Dictionary<(string Folder, long Size, SourceKind Source, CopyMethod Method), List<double>> _samples = new();
    private readonly Dictionary<(string Folder, long Size, SourceKind Source, CopyMethod Method), string> _failures = new();
    private readonly Dictionary<(string Folder, long Size, SourceKind Source), List<string>> _engineSaid = new();
    private readonly Dictionary<long, byte[]> _contents = new();
    private int _fresh;

    private BenchmarkRunner(BenchmarkOptions options)
    {
        _options = options;
        var random = new Random(2025);
        foreach (long size in BenchmarkOptions.Sizes)
        {
            var bytes = new byte[size];
            random.NextBytes(bytes); // incompressible, so no file system can shortcut a copy of zeros
            _contents[size] = bytes;
        }
    }

    public static int Run(string[] args)
    {
        BenchmarkOptions options;
        try
        {
            options = BenchmarkOptions.Parse(args);
        }
        catch (BenchmarkUsageException e)
        {
            Console.Error.WriteLine(e.Message);
            return 2;
        }

        // The table has µ, × and en dashes; without this, redirected output (CI logs, Wine) gets the OEM code page's "?".
        Console.OutputEncoding = new UTF8Encoding(encoderShouldEmitUTF8Identifier: false);
        return new BenchmarkRunner(options).Run();
    }

    private int Run()
    {
        var folders = new List<FolderFacts>();
        foreach (string folder in _options.Folders)
        {
            Directory.CreateDirectory(folder);
            folders.Add(BenchmarkMachine.Folder(folder));
            Console.WriteLine($"{folder}: {folders[^1].FileSystem} {folders[^1].Version}, block refcounting {folders[^1].BlockRefcounting}, OS CopyFile clones: {folders[^1].OsCopyFileClones}");
        }

        List<CopyMethod> timed = BenchmarkPlan.AllMethods.Where(m => m != CopyMethod.CopyOnWriteLibrary).ToList();
        foreach (string folder in _options.Folders)
        {
            string work = Path.Combine(folder, $"cow-bench-{Environment.ProcessId}");
            try
            {
                Directory.CreateDirectory(Path.Combine(work, "out"));
                Dictionary<long, string> settled = BenchmarkOptions.Sizes.ToDictionary(size => size, size => WriteSettled(work, size));
                var stopwatch = Stopwatch.StartNew();
                for (int round = _options.WarmUp ? -1 : 0; round < _options.Rounds; round++)
                {
                    foreach (long size in BenchmarkOptions.Sizes)
                    {
                        foreach ((SourceKind source, CopyMethod method) in BenchmarkPlan.Round(Math.Max(round, 0), timed))
                        {
                            Measure(folder, work, size, source, method, settled[size], record: round >= 0);
                        }
                    }

                    Console.WriteLine($"{folder}: {(round < 0 ? "warm-up round" : $"round {round + 1} of {_options.Rounds}")} done at {stopwatch.Elapsed.TotalSeconds:0.0} s");
                }
            }
            finally
            {
                WindowsTree.Delete(work);
            }
        }

        string table = BenchmarkTable.Write(new BenchmarkReport(BenchmarkMachine.Describe(_options), folders, Rows(), _options.Rounds, _options.Smoke));
        Console.WriteLine();
        Console.WriteLine(table);
        if (_options.Output is string output)
        {
            string? parent = Path.GetDirectoryName(Path.GetFullPath(output));
            if (parent is not null)
            {
                Directory.CreateDirectory(parent);
            }

            File.WriteAllText(output, table, new UTF8Encoding(encoderShouldEmitUTF8Identifier: false));
            Console.WriteLine($"wrote {output}");
        }

        Console.WriteLine(_failures.Count == 0 ? "benchmark: every timed copy arrived whole" : $"benchmark: {_failures.Count} cells failed; their cells say why");
        return _failures.Count == 0 ? 0 : 1;
    }

    private List<BenchmarkRow> Rows()
    {
        var rows = new List<BenchmarkRow>();
        foreach (string folder in _options.Folders)
        {
            foreach (long size in BenchmarkOptions.Sizes)
            {
                foreach (SourceKind source in BenchmarkPlan.AllSources)
                {
                    var cells = new Dictionary<CopyMethod, BenchmarkCell>();
                    foreach (CopyMethod method in BenchmarkPlan.AllMethods)
                    {
                        var key = (folder, size, source, method);
                        cells[method] = method == CopyMethod.CopyOnWriteLibrary
                            ? BenchmarkCell.Unavailable(BenchmarkMachine.LibraryUnavailable)
                            : _failures.TryGetValue(key, out string? failure)
                                ? BenchmarkCell.Unavailable(failure)
                                : new BenchmarkCell(_samples.TryGetValue(key, out List<double>? samples) ? samples : new List<double>());
                    }

                    string engineDid = BenchmarkTable.Outcomes(_engineSaid.TryGetValue((folder, size, source), out List<string>? said) ? said : Enumerable.Empty<string>());
                    rows.Add(new BenchmarkRow(folder, size, source, cells, engineDid));
                }
            }
        }

        return rows;
    }

    private string WriteSettled(string work, long size)
    {
        string path = Path.Combine(work, $"settled-{size}.bin");
        using (var stream = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.Read))
        {
            stream.Write(_contents[size]);
            stream.Flush(flushToDisk: true);
        }

        // Backdated instead of waited for: the data is already on disk, and the engine's only other test is this time.
        File.SetLastWriteTimeUtc(path, DateTime.UtcNow - SettledAge);
        return path;
    }

    /// <summary>Small buffered writes and a close, as a compiler leaves its output: the data may still be in the cache only.</summary>
    private string WriteFresh(string work, long size)
    {
        string path = Path.Combine(work, $"fresh-{_fresh++}.bin");
        using var stream = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.Read, bufferSize: 4096);
        byte[] bytes = _contents[size];
        for (int offset = 0; offset < bytes.Length; offset += 16384)
        {
            stream.Write(bytes, offset, Math.Min(16384, bytes.Length - offset));
        }

        return path;
    }

    private void Measure(string folder, string work, long size, SourceKind source, CopyMethod method, string settledPath, bool record)
    {
        var key = (folder, size, source, method);
        if (_failures.ContainsKey(key))
        {
            return; // a method that failed once is not timed again: its cell shows the first failure
        }

        string sourcePath = source == SourceKind.Fresh ? WriteFresh(work, size) : settledPath;
        string destination = Path.Combine(work, "out", $"{method}-{source}-{size}.bin");
        try
        {
            (double microseconds, string? said) = CopyOnce(method, sourcePath, destination);
            long arrived = new FileInfo(destination).Length;
            if (arrived != size)
            {
                throw new InvalidDataException($"the copy has {arrived} bytes, not {size}");
            }

            if (record)
            {
                Add(_samples, key, microseconds);
                if (said is not null)
                {
                    Add(_engineSaid, (folder, size, source), said);
                }
            }
        }
        catch (Exception e)
        {
            // Any failure, the engine's Win32Exception included, belongs in the table rather than ending the run.
            _failures[key] = $"failed: {e.GetType().Name}: {e.Message}";
            Console.WriteLine($"{folder}, {BenchmarkTable.SizeText(size)} {BenchmarkTable.SourceText(source)}, {BenchmarkTable.MethodHeader(method)}: {_failures[key]}");
        }
        finally
        {
            // Every timed copy makes a new file, as a clean build does, and fresh sources are used once.
            if (File.Exists(destination))
            {
                File.Delete(destination);
            }

            if (source == SourceKind.Fresh && File.Exists(sourcePath))
            {
                File.Delete(sourcePath);
            }
        }
    }

    /// <returns>The microseconds the call took, and for our engine what it says it did.</returns>
    private (double Microseconds, string? Said) CopyOnce(CopyMethod method, string source, string destination)
    {
        switch (method)
        {
            case CopyMethod.FileCopy:
                long start = Stopwatch.GetTimestamp();
                File.Copy(source, destination);
                return (Stopwatch.GetElapsedTime(start).TotalMicroseconds, null);
            case CopyMethod.Engine:
                start = Stopwatch.GetTimestamp();
                CloneResult result = _engine.CloneOrCopy(source, destination, CancellationToken.None);
                double elapsed = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
                string said = result.Method == CloneMethod.Cloned
                    ? "cloned"
                    : $"copied: {result.Reason}{(result.Detail is null ? string.Empty : $" ({result.Detail})")}";
                return (elapsed, said);
            case CopyMethod.OurTask:
                return (RunTask(new Copy(), source, destination), null);
            case CopyMethod.StockTask:
                return (RunTask(TaskDriver.CreateStockCopy(), source, destination), null);
            default:
                throw new InvalidOperationException($"{method} cannot be timed here");
        }
    }

    /// <summary>One Execute of a Copy task with one file; TaskDriver times Execute alone, not setting the parameters.</summary>
    private static double RunTask(object task, string source, string destination)
    {
        TaskRunResult result = TaskDriver.Run(task, new Dictionary<string, object?>
        {
            ["SourceFiles"] = new[] { new ParityItem(source) },
            ["DestinationFiles"] = new[] { new ParityItem(destination) },
        });
        if (!result.Success)
        {
            throw new InvalidOperationException($"{task.GetType().FullName} failed: {result.Exception ?? string.Join(" | ", result.Events.Where(e => e.Kind != "message"))}");
        }

        return result.ElapsedMilliseconds * 1000;
    }

    private static void Add<TKey, TValue>(Dictionary<TKey, List<TValue>> lists, TKey key, TValue value)
        where TKey : notnull
    {
        if (!lists.TryGetValue(key, out List<TValue>? list))
        {
            lists[key] = list = new List<TValue>();
        }

        list.Add(value);
    }
}
