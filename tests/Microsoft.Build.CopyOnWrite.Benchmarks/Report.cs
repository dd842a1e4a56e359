using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using BenchmarkDotNet.Reports;
using Microsoft.Build.CopyOnWrite.Benchmarks.FreshProcess;

namespace Microsoft.Build.CopyOnWrite.Benchmarks;

/// <summary>One benchmark case's statistics, in milliseconds per measurement (BenchmarkDotNet's numbers).</summary>
internal sealed record Cell(double Median, double StdDev, double Error, IReadOnlyList<double> Values)
{
    private const double NanosecondsPerMillisecond = 1_000_000;

    public static Cell? From(BenchmarkReport report)
        => report.ResultStatistics is { } s
            ? new Cell(
                s.Median / NanosecondsPerMillisecond,
                s.StandardDeviation / NanosecondsPerMillisecond,
                s.ConfidenceInterval.Margin / NanosecondsPerMillisecond,
                s.OriginalValues.Select(v => v / NanosecondsPerMillisecond).ToList())
            : null;
}

/// <summary>Everything the Markdown report says besides the measurements.</summary>
internal sealed class RunFacts
{
    public required DateTime Started { get; init; }

    public required DateTime Finished { get; init; }

    public required string JobDescription { get; init; }

    public required IReadOnlyList<string> Machine { get; init; }

    public required string LoadAtStart { get; init; }

    public required string LoadAtEnd { get; init; }

    public required IReadOnlyList<string> BusiestAtStart { get; init; }

    public required IReadOnlyList<string> OtherDotnetAtStart { get; init; }

    public required IReadOnlyList<string> OtherDotnetAtEnd { get; init; }

    public required double HostDiskMiBPerSecond { get; init; }

    public required string BenchmarkDotNetVersion { get; init; }

    public required string StockTask { get; init; }

    public required IReadOnlyList<Probe.Finding> Probes { get; init; }

    public required bool Smoke { get; init; }

    /// <summary>Which source was measured: the commit, and whether src/ had uncommitted changes.</summary>
    public required string Code { get; init; }

    /// <summary>The job of section 5 (one Copy call), which runs more iterations than the others.</summary>
    public string CallsJobDescription { get; init; } = string.Empty;

    /// <summary>Rounds of the fresh-process benchmark.</summary>
    public int FreshRounds { get; init; }
}

/// <summary>Builds docs/results/benchmarks.md from the two BenchmarkDotNet summaries, the fresh-process runs and the sample's builds.</summary>
internal static class Report
{
    private static readonly string[] EngineFileSystems = ["xfs", "btrfs", "ext4"];
    private static readonly string[] TaskFileSystems = ["xfs", "ext4"];

    private static readonly Dictionary<string, string> FileSystemTitles = new()
    {
        ["xfs"] = "XFS (mkfs.xfs -m reflink=1)",
        ["btrfs"] = "btrfs",
        ["ext4"] = "ext4 (cannot clone)",
    };

    public static string Build(Summary? engine, IReadOnlyList<NamingRun> naming, Summary? task, Summary? calls, IReadOnlyList<FreshRun> fresh, IReadOnlyList<FreshProbe> probes, IReadOnlyList<SampleCopyTime> sample, IReadOnlyList<SampleStep> sampleSteps, IReadOnlyList<SplitComparison> sampleSplit, RunFacts facts)
    {
        var md = new StringBuilder();
        md.AppendLine("# Benchmarks");
        md.AppendLine();
        md.AppendLine($"Made by `build/benchmark.sh` on {facts.Started:yyyy-MM-dd} ({facts.Started:HH:mm}-{facts.Finished:HH:mm} UTC, "
            + $"{(facts.Finished - facts.Started).TotalMinutes:0} minutes), with BenchmarkDotNet {facts.BenchmarkDotNetVersion}. "
            + "Numbers are medians of BenchmarkDotNet's measured iterations; \"sd\" is their standard deviation and "
            + "\"noise\" is BenchmarkDotNet's Error (half the 99.9% confidence interval of the mean).");
        if (facts.Smoke)
        {
            md.AppendLine();
            md.AppendLine("**SMOKE RUN (`--smoke`): few sizes and iterations, to check the harness. Do not quote these numbers.**");
        }

        md.AppendLine();
        AppendMachine(md, facts);
        if (engine is not null)
        {
            AppendEngine(md, engine, facts);
        }

        if (naming.Count > 0)
        {
            AppendNaming(md, naming);
        }

        if (task is not null)
        {
            AppendTask(md, task);
        }

        if (fresh.Count > 0)
        {
            FreshProcessReport.Append(md, fresh, probes, naming, facts.FreshRounds);
        }

        if (sample.Count > 0)
        {
            FreshProcessReport.AppendSample(md, sample, sampleSteps, sampleSplit, "xfs");
        }

        if (calls is not null)
        {
            AppendCalls(md, calls, facts);
        }

        md.AppendLine("## Raw measurements");
        md.AppendLine();
        md.AppendLine($"Every measured iteration (no outlier removed) and every fresh-process run: `{RawFileName}` in the run's artifacts folder (`artifacts/benchmarks/` by default), which the same command writes.");
        md.AppendLine();
        return md.ToString();
    }

    /// <summary>The raw measurements' file, beside BenchmarkDotNet's own artifacts: data, not part of the report in docs/.</summary>
    public const string RawFileName = "raw-measurements.md";

    /// <summary>Every measured iteration of the BenchmarkDotNet benchmarks and every timed fresh-process run, in ms.</summary>
    public static string BuildRaw(Summary? engine, Summary? task, Summary? calls, IReadOnlyList<FreshRun> fresh)
    {
        var md = new StringBuilder();
        md.AppendLine("# Benchmarks: raw measurements");
        md.AppendLine();
        AppendRaw(md, engine, task, calls);
        if (fresh.Count > 0)
        {
            FreshProcessReport.AppendRaw(md, fresh);
        }

        if (CopyCallBenchmarks.OurSummaries.Count > 0)
        {
            md.AppendLine("## What our task said, per case of section 5");
            md.AppendLine();
            md.AppendLine("| case | our summary line |");
            md.AppendLine("|---|---|");
            foreach ((string key, string said) in CopyCallBenchmarks.OurSummaries.OrderBy(pair => pair.Key, StringComparer.Ordinal))
            {
                md.AppendLine($"| {key.Replace("|", " ", StringComparison.Ordinal)} | {said.Replace("|", "\\|", StringComparison.Ordinal)} |");
            }

            md.AppendLine();
        }

        return md.ToString();
    }

    private static void AppendMachine(StringBuilder md, RunFacts facts)
    {
        md.AppendLine("## Machine");
        md.AppendLine();
        foreach (string line in facts.Machine)
        {
            md.AppendLine($"- {line}");
        }

        md.AppendLine(double.IsNaN(facts.HostDiskMiBPerSecond)
            ? "- Host disk: not measured (smoke run)."
            : $"- Host disk, sequential write of 1 GiB + fsync at the start: {facts.HostDiskMiBPerSecond:0} MiB/s.");
        md.AppendLine($"- Loop file systems: sparse image files under /var/tmp, made and mounted (`mount -o loop`) by the script, unmounted at the end.");
        md.AppendLine($"- Stock task: {facts.StockTask}.");
        md.AppendLine($"- Code measured: {facts.Code}.");
        md.AppendLine($"- BenchmarkDotNet {facts.BenchmarkDotNetVersion}, in-process toolchain; job: {facts.JobDescription}.");
        // What the machine was doing is stated from what was measured, not assumed: the load includes this script's own
        // builds (a fresh-process case is itself a dotnet msbuild on both cores), so only the other processes say "shared".
        md.AppendLine($"- Load average (1, 5, 15 min) at the start `{facts.LoadAtStart}`, at the end `{facts.LoadAtEnd}`"
            + (Machine.LoadRange is { } load ? $"; 1-minute load at the start of each of the {load.Count} benchmark cases: {load.Min:0.0} to {load.Max:0.0}, on {Environment.ProcessorCount} cores" : string.Empty)
            + $". Other dotnet/MSBuild/compiler processes alive (not this run's; at the start, counted {(facts.Smoke ? "at once (smoke run)" : "after waiting up to 30 s for the script's own to exit")}): {facts.OtherDotnetAtStart.Count} at the start, {facts.OtherDotnetAtEnd.Count} at the end"
            + (facts.OtherDotnetAtStart.Count + facts.OtherDotnetAtEnd.Count > 0
                ? $" ({string.Join("; ", facts.OtherDotnetAtStart.Concat(facts.OtherDotnetAtEnd).Distinct().Select(p => $"`{p}`"))}): **other work shared the machine**, so absolute times are pessimistic and noisy"
                : "; the load is this run's own work (its fresh MSBuild processes use both cores)")
            + ". The ratios compare methods measured side by side in the same run.");
        if (facts.BusiestAtStart.Count > 0)
        {
            md.AppendLine($"- Busiest processes at the start (ps: %CPU over each process's life, elapsed, name): {string.Join("; ", facts.BusiestAtStart.Select(p => $"`{p}`"))}.");
        }

        md.AppendLine();
    }

    private static void AppendEngine(StringBuilder md, Summary summary, RunFacts facts)
    {
        Dictionary<(string Fs, long Size, string Method), Cell?> cells = summary.Reports.ToDictionary(
            r => ((string)r.BenchmarkCase.Parameters["FileSystem"], (long)r.BenchmarkCase.Parameters["Size"], r.BenchmarkCase.Descriptor.WorkloadMethod.Name),
            Cell.From);
        md.AppendLine("## 1. Clone engine vs File.Copy vs byte copy");
        md.AppendLine();
        md.AppendLine($"One measurement: one source file put at {EngineBenchmarks.Copies} distinct destinations in the same folder, by");
        md.AppendLine("- **engine**: our `LinuxCloneEngine.CloneOrCopy` (ioctl FICLONE into a new unnamed file (O_TMPFILE) in the destination's folder, "
            + "sendfile when it cannot clone, File.Copy's metadata, then linkat to the destination's name; "
            + "an empty source's new destination is created at its name with O_EXCL),");
        md.AppendLine("- **File.Copy**: `System.IO.File.Copy(source, destination, overwrite: true)`,");
        md.AppendLine("- **byte copy**: FileStream read/write through a 1 MiB buffer (FileStream's own buffer off), never clones.");
        md.AppendLine();
        md.AppendLine($"Times are **milliseconds per {EngineBenchmarks.Copies} files** (median, sd). Before each measurement, outside it, the destinations are deleted "
            + "and the file system is flushed (syncfs), so no measurement pays for writeback left by the one before; nothing is flushed inside a "
            + "measurement, as in a build. The source is the same random-content file for all three methods.");
        md.AppendLine();
        md.AppendLine("**Note: .NET's File.Copy itself tries FICLONE on Linux (since .NET 7), so on XFS and btrfs File.Copy also clones**; "
            + "the \"File.Copy / engine\" column compares two clones there, and two byte copies on ext4. What each method did, checked before the run "
            + "on a 1 MiB file with filefrag (does the destination share extents with the source):");
        md.AppendLine();
        md.AppendLine("| file system | engine said | engine's copy shares extents | File.Copy's copy shares extents | byte copy's copy shares extents |");
        md.AppendLine("|---|---|---|---|---|");
        foreach (Probe.Finding probe in facts.Probes)
        {
            md.AppendLine($"| {probe.FileSystem} | {probe.EngineSaid} | {YesNo(probe.EngineShares)} | {YesNo(probe.FileCopyShares)} | {YesNo(probe.ByteCopyShares)} |");
        }

        md.AppendLine();
        var slowdowns = new Slowdowns();
        var bar16 = new List<string>();
        bool bar16Met = true;
        foreach (string fs in EngineFileSystems.Where(f => cells.Keys.Any(k => k.Fs == f)))
        {
            md.AppendLine($"### {FileSystemTitles[fs]}");
            md.AppendLine();
            md.AppendLine("| size | engine (ms / 50) | File.Copy (ms / 50) | byte copy (ms / 50) | byte copy / engine | File.Copy / engine | engine − File.Copy (ms) | noise (ms) | engine slower than File.Copy beyond noise? |");
            md.AppendLine("|---:|---:|---:|---:|---:|---:|---:|---:|---|");
            foreach (long size in cells.Keys.Where(k => k.Fs == fs).Select(k => k.Size).Distinct().OrderBy(s => s))
            {
                Cell? e = cells.GetValueOrDefault((fs, size, nameof(EngineBenchmarks.Engine)));
                Cell? f = cells.GetValueOrDefault((fs, size, nameof(EngineBenchmarks.FileCopy)));
                Cell? b = cells.GetValueOrDefault((fs, size, nameof(EngineBenchmarks.ByteCopy)));
                (string difference, string noise, string verdict) = slowdowns.Compare(f, e, $"{fs} {Settings.FormatSize(size)}", "ms");

                if (size == 16 * Settings.MiB && fs is "xfs" or "btrfs")
                {
                    double? ratio = Ratio(b, e);
                    bar16.Add($"{fs}: byte copy / engine = {RatioText(ratio)} (byte copy {Median(b)} ms, engine {Median(e)} ms per 50)");
                    bar16Met &= ratio >= 30;
                }

                md.AppendLine($"| {Settings.FormatSize(size)} | {Both(e)} | {Both(f)} | {Both(b)} | {RatioText(Ratio(b, e))} | {RatioText(Ratio(f, e))} | {difference} | {noise} | {verdict} |");
            }

            md.AppendLine();
        }

        md.AppendLine("### Bars");
        md.AppendLine();
        if (bar16.Count > 0)
        {
            md.AppendLine($"- At 16 MiB on XFS and btrfs the clone is at least 30x faster than the byte copy: **{(bar16Met ? "met" : "NOT met")}**. {string.Join("; ", bar16)}.");
        }

        md.AppendLine(slowdowns.BeyondNoise.Count == 0
            ? "- At no size is the engine slower than File.Copy by more than the noise (noise: the larger of the two methods' BenchmarkDotNet Error): **met**."
            : $"- At no size is the engine slower than File.Copy by more than the noise (noise: the larger of the two methods' BenchmarkDotNet Error): **NOT met** at {string.Join("; ", slowdowns.BeyondNoise)}.");
        md.AppendLine(slowdowns.BeyondSd.Count == 0
            ? "- Stricter reading (noise = the larger of the two standard deviations): the engine is nowhere slower than File.Copy beyond it."
            : $"- Stricter reading (noise = the larger of the two standard deviations): the engine is slower than File.Copy beyond it at {string.Join("; ", slowdowns.BeyondSd)}.");
        md.AppendLine();
    }

    /// <summary>Section 1's last part: the engine's per-file time against File.Copy's, taken apart at the one step they do differently.</summary>
    private static void AppendNaming(StringBuilder md, IReadOnlyList<NamingRun> naming)
    {
        int rounds = naming.Select(r => r.Round).Distinct().Count();
        md.AppendLine("### Where a clone's time goes: making the new file and naming it");
        md.AppendLine();
        md.AppendLine($"{CloneNamingBenchmarks.Files} files of {Settings.FormatSize(CloneNamingBenchmarks.Size)} (the fresh-process set of section 3) cloned from one source into one folder, "
            + "one batch per method, the destinations deleted and the file system flushed before each batch, outside it; "
            + $"{rounds} rounds, the order of the methods reversed every other round, after one untimed round. Besides the engine and File.Copy, "
            + "the same syscalls with nothing around them (open the source, statx, create, FICLONE, fchmod, futimens) made two ways: "
            + "**clone at its name** creates the new file at the destination's name (O_CREAT|O_EXCL), as File.Copy does; "
            + "**clone unnamed, then named** creates it with no name in the destination's folder (O_TMPFILE) and gives it its name when complete "
            + "(linkat), as the engine does, so that a reader, a crash or a kill never finds half a file at the destination's name. "
            + "Their difference is what that guarantee costs. **Microseconds per file**, median (min – max):");
        md.AppendLine();
        md.AppendLine("| file system | engine | File.Copy | clone at its name | clone unnamed, then named | engine − File.Copy | unnamed, then named − at its name | that, over 200 files (ms) |");
        md.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|");
        foreach (string fs in EngineFileSystems.Where(f => naming.Any(r => r.FileSystem == f)))
        {
            string Cell(string method)
            {
                double[] all = naming.Where(r => r.FileSystem == fs && r.Method == method).Select(r => r.MicrosecondsPerFile).ToArray();
                return all.Length == 0 ? "n/a" : $"{Ms(FreshProcessReport.Median(all))} ({Ms(all.Min())} – {Ms(all.Max())})";
            }

            double engineMinusFileCopy = CloneNamingBenchmarks.Median(naming, fs, CloneNamingBenchmarks.Engine) - CloneNamingBenchmarks.Median(naming, fs, CloneNamingBenchmarks.FileCopy);
            double namingCost = CloneNamingBenchmarks.NamingCost(naming, fs);
            md.AppendLine($"| {fs} | {Cell(CloneNamingBenchmarks.Engine)} | {Cell(CloneNamingBenchmarks.FileCopy)} | {Cell(CloneNamingBenchmarks.AtItsName)} | {Cell(CloneNamingBenchmarks.UnnamedThenNamed)} | "
                + $"{Signed(engineMinusFileCopy)} | {Signed(namingCost)} | {Signed(namingCost * 200 / 1000)} |");
        }

        md.AppendLine();
    }

    private static void AppendTask(StringBuilder md, Summary summary)
    {
        Dictionary<(string Fs, string Set, string Method), Cell?> cells = summary.Reports.ToDictionary(
            r => ((string)r.BenchmarkCase.Parameters["FileSystem"], (string)r.BenchmarkCase.Parameters["Set"], r.BenchmarkCase.Descriptor.WorkloadMethod.Name),
            Cell.From);
        md.AppendLine("## 2. Our Copy task vs MSBuild's Copy task");
        md.AppendLine();
        md.AppendLine("Both tasks run in this process through the task object model (an IBuildEngine that drops messages), on the same source files, "
            + "into an empty destination folder each time (`DestinationFolder`, `SkipUnchangedFiles=false`, every other parameter at its default, "
            + "so both copy in parallel). Before each measurement, outside it, the destination folder is deleted and recreated and the file "
            + "system flushed. Times are **milliseconds per task execution** (median, sd). \"stock / ours\" above 1 means ours is faster. "
            + "On XFS the stock task's File.Copy clones too (see the note in section 1).");
        md.AppendLine();
        md.AppendLine("| file system | files | stock Copy (ms) | our Copy (ms) | stock / ours | ours − stock (ms) | noise (ms) | ours slower beyond noise? | what our task said |");
        md.AppendLine("|---|---|---:|---:|---:|---:|---:|---|---|");
        var slowdowns = new Slowdowns();
        foreach (string fs in TaskFileSystems.Where(f => cells.Keys.Any(k => k.Fs == f)))
        {
            foreach (string set in CopyTaskBenchmarks.Sets.Keys.Where(s => cells.ContainsKey((fs, s, nameof(CopyTaskBenchmarks.Ours)))))
            {
                Cell? stock = cells.GetValueOrDefault((fs, set, nameof(CopyTaskBenchmarks.Stock)));
                Cell? ours = cells.GetValueOrDefault((fs, set, nameof(CopyTaskBenchmarks.Ours)));
                (string difference, string noise, string verdict) = slowdowns.Compare(stock, ours, $"{fs} {CopyTaskBenchmarks.Describe(set)}", "ms");

                string said = CopyTaskBenchmarks.OurSummaries.TryGetValue($"{fs}|{set}", out string? s) ? s.Replace("|", "\\|") : "(no summary line)";
                md.AppendLine($"| {fs} | {CopyTaskBenchmarks.Describe(set)} | {Both(stock)} | {Both(ours)} | {RatioText(Ratio(stock, ours))} | {difference} | {noise} | {verdict} | {said} |");
            }
        }

        md.AppendLine();
        md.AppendLine("### Bar");
        md.AppendLine();
        md.AppendLine(slowdowns.BeyondNoise.Count == 0
            ? "- Parallel copying at least as fast as the stock task (thousands of small files, a few large ones, a mix; XFS and ext4), i.e. ours nowhere slower than the stock task beyond the noise: **met**."
            : $"- Parallel copying at least as fast as the stock task (thousands of small files, a few large ones, a mix; XFS and ext4): **NOT met** at {string.Join("; ", slowdowns.BeyondNoise)}.");
        md.AppendLine(slowdowns.BeyondSd.Count == 0
            ? "- Stricter reading (noise = the larger of the two standard deviations): ours is nowhere slower than the stock task beyond it."
            : $"- Stricter reading (noise = the larger of the two standard deviations): ours is slower than the stock task beyond it at {string.Join("; ", slowdowns.BeyondSd)}.");
        md.AppendLine();
    }

    /// <summary>Section 5: one Copy call in a warm process, by file count, size, destination and logging.</summary>
    private static void AppendCalls(StringBuilder md, Summary summary, RunFacts facts)
    {
        Dictionary<(string Fs, int Files, long Size, string Destination, string Logging, string Method), Cell?> cells = summary.Reports.ToDictionary(
            r => ((string)r.BenchmarkCase.Parameters["FileSystem"], (int)r.BenchmarkCase.Parameters["Files"], (long)r.BenchmarkCase.Parameters["Size"],
                (string)r.BenchmarkCase.Parameters["Destination"], (string)r.BenchmarkCase.Parameters["Logging"], r.BenchmarkCase.Descriptor.WorkloadMethod.Name),
            Cell.From);
        const double MicrosecondsPerMillisecond = 1000;
        int[] fileCounts = cells.Keys.Select(k => k.Files).Distinct().Order().ToArray();
        long[] sizes = cells.Keys.Select(k => k.Size).Distinct().Order().ToArray();
        string[] destinations = [CopyCallBenchmarks.NewDestination, CopyCallBenchmarks.ExistingDestination];

        // Per call, in microseconds: an iteration timed CallsPerIteration(files) calls.
        Cell? PerCall(string fs, int files, long size, string destination, string logging, string method)
            => cells.GetValueOrDefault((fs, files, size, destination, logging, method)) is Cell c
                ? Scale(c, MicrosecondsPerMillisecond / CopyCallBenchmarks.CallsPerIteration(files))
                : null;

        md.AppendLine("## 5. One Copy call in a warm process: ours against the stock task, by files, size, destination and logging");
        md.AppendLine();
        md.AppendLine("Both tasks run in this process, as MSBuild runs a task: a new task object with its parameters set (`SourceFiles`, `DestinationFolder`, "
            + "`SkipUnchangedFiles=false`, every other parameter at its default), then `Execute`, which alone is timed. Sources: files of random content "
            + "made once per file system, count and size, shared by every case. Destination **new**: an empty folder, deleted, recreated and the file "
            + "system flushed before each measurement, outside it; **existing**: the files a previous copy left there, given timestamps one hour older "
            + "than their sources' before each measurement (the file system flushed too), so both tasks overwrite every file.");
        md.AppendLine();
        md.AppendLine("Logging is real: the build engine implements IBuildEngine10, and its EngineServices tells the task which importances its loggers "
            + "take, which is what `Log.LogsMessagesOfImportance` asks and what `Log.LogMessage` checks before it makes a message. **normal**: the loggers "
            + "take normal and high importance only (a user's `-v:n` console); **low**: they take every message (a binary log, `-v:d` or any logger MSBuild "
            + "does not know makes MSBuild ask for them all), and task inputs are logged. The engine makes the text of every message it takes and keeps it "
            + "(on the task's thread, under a lock; MSBuild's loggers format on a thread of their own, so this slightly overstates the cost of "
            + "messages for the task that logs more).");
        md.AppendLine();
        string calls = string.Join(", ", fileCounts.Select(f => $"{CopyCallBenchmarks.CallsPerIteration(f)} for {Plural(f, "file")}"));
        md.AppendLine($"A call of one small file takes a fraction of a millisecond, so one measurement times several calls one after another, each into a destination "
            + $"folder of its own ({calls}), and the numbers are **microseconds per call** (median of the measurements divided by the calls in each, sd likewise). "
            + $"Job: {facts.CallsJobDescription}. \"ours / stock\" below 1 means ours is faster; \"noise\" is the larger of the two tasks' BenchmarkDotNet Error, per call. "
            + "On XFS the stock task's File.Copy clones too (see the note in section 1).");
        md.AppendLine();
        if (CopyCallBenchmarks.LoggingChecks.Count > 0)
        {
            md.AppendLine("Check of the two logging levels, before the first case on each file system (our task copying one file, with an engine that also "
                + "reads what no logger takes): " + string.Join("; ", CopyCallBenchmarks.LoggingChecks.OrderBy(c => c.Key).Select(c => $"{c.Key}: {c.Value}")) + ".");
            md.AppendLine();
        }

        md.AppendLine("| file system | files | size | destination | logging | stock Copy (µs per call) | our Copy (µs per call) | ours / stock | ours − stock (µs) | noise (µs) | ours slower beyond noise? | messages taken per call (stock → ours) |");
        md.AppendLine("|---|---:|---:|---|---|---:|---:|---:|---:|---:|---|---:|");
        var slowdowns = new Slowdowns();
        int cases = 0;
        foreach (string fs in TaskFileSystems.Where(f => cells.Keys.Any(k => k.Fs == f)))
        {
            foreach (int files in fileCounts)
            {
                foreach (long size in sizes)
                {
                    foreach (string destination in destinations)
                    {
                        foreach (string logging in LoggingBuildEngine.Levels)
                        {
                            if (!cells.ContainsKey((fs, files, size, destination, logging, nameof(CopyCallBenchmarks.Ours))))
                            {
                                continue;
                            }

                            Cell? stock = PerCall(fs, files, size, destination, logging, nameof(CopyCallBenchmarks.Stock));
                            Cell? ours = PerCall(fs, files, size, destination, logging, nameof(CopyCallBenchmarks.Ours));
                            string name = $"{fs} {files} x {Settings.FormatSize(size)} {destination} {logging}";
                            (string difference, string noise, string verdict) = slowdowns.Compare(stock, ours, name, "µs", RatioText(Ratio(ours, stock)));

                            string key = CopyCallBenchmarks.Key(fs, files, size, destination, logging);
                            md.AppendLine($"| {fs} | {files} | {Settings.FormatSize(size)} | {destination} | {logging} | {Both(stock)} | {Both(ours)} | {RatioText(Ratio(ours, stock))} | "
                                + $"{difference} | {noise} | {verdict} | {Messages(key + "|" + nameof(CopyCallBenchmarks.Stock))} → {Messages(key + "|" + nameof(CopyCallBenchmarks.Ours))} |");
                            cases++;
                        }
                    }
                }
            }
        }

        md.AppendLine();
        md.AppendLine("### Where ours is slower");
        md.AppendLine();
        md.AppendLine($"- Beyond the noise (the larger of the two tasks' BenchmarkDotNet Error): {(slowdowns.BeyondNoise.Count == 0 ? "nowhere" : $"{slowdowns.BeyondNoise.Count} of {cases} cases, marked in the table's \"ours slower beyond noise?\" column")}.");
        md.AppendLine(slowdowns.BeyondSd.Count == 0
            ? "- Stricter reading (noise = the larger of the two standard deviations): nowhere."
            : $"- Stricter reading (noise = the larger of the two standard deviations): {string.Join("; ", slowdowns.BeyondSd)}.");
        md.AppendLine($"- The raw measurements ({RawFileName}, with the summary line our task wrote in each case) are per measurement, that is per {string.Join(", ", fileCounts.Select(f => $"{Plural(CopyCallBenchmarks.CallsPerIteration(f), "call")} of {Plural(f, "file")}"))}.");
        md.AppendLine();
    }

    private static string Plural(int count, string noun) => count == 1 ? $"1 {noun}" : $"{count} {noun}s";

    private static Cell Scale(Cell cell, double factor)
        => new(cell.Median * factor, cell.StdDev * factor, cell.Error * factor, cell.Values.Select(v => v * factor).ToList());

    private static string Messages(string key)
        => CopyCallBenchmarks.Logged.TryGetValue(key, out (double Messages, double Characters) logged) ? logged.Messages.ToString("0.#", CultureInfo.InvariantCulture) : "n/a";

    private static void AppendRaw(StringBuilder md, Summary? engine, Summary? task, Summary? calls)
    {
        md.AppendLine("## Raw measurements");
        md.AppendLine();
        md.AppendLine("<details><summary>Every measured iteration, in ms (BenchmarkDotNet, no outlier removed)</summary>");
        md.AppendLine();
        md.AppendLine("| benchmark | parameters | iterations (ms) |");
        md.AppendLine("|---|---|---|");
        foreach (Summary summary in new[] { engine, task, calls }.OfType<Summary>())
        {
            foreach (BenchmarkReport report in summary.Reports)
            {
                string parameters = string.Join(", ", report.BenchmarkCase.Parameters.Items.Select(p => $"{p.Name}={(p.Value is long l ? Settings.FormatSize(l) : p.Value)}"));
                Cell? cell = Cell.From(report);
                string values = cell is null ? "failed" : string.Join(", ", cell.Values.Select(Ms));
                md.AppendLine($"| {report.BenchmarkCase.Descriptor.WorkloadMethodDisplayInfo} | {parameters} | {values} |");
            }
        }

        md.AppendLine();
        md.AppendLine("</details>");
    }

    private static double? Ratio(Cell? numerator, Cell? denominator)
        => numerator is null || denominator is null || denominator.Median <= 0 ? null : numerator.Median / denominator.Median;

    private static string RatioText(double? ratio) => ratio switch
    {
        null => "n/a",
        >= 10 => $"{ratio:0}x",
        _ => $"{ratio:0.00}x",
    };

    private static string Both(Cell? cell) => cell is null ? "failed" : $"{Ms(cell.Median)} (sd {Ms(cell.StdDev)})";

    private static string Median(Cell? cell) => cell is null ? "n/a" : Ms(cell.Median);

    /// <summary>
    /// Candidates against their baselines, measured side by side: per pair the difference of the medians, the noise (the
    /// larger of the two BenchmarkDotNet Errors) and whether the candidate is slower beyond it ("n/a" where either was not
    /// measured); and, for the bars, where it is slower beyond the noise and beyond the larger standard deviation (the
    /// stricter reading).
    /// </summary>
    private sealed class Slowdowns
    {
        public List<string> BeyondNoise { get; } = new();

        public List<string> BeyondSd { get; } = new();

        /// <param name="name">How the bars name the pair.</param>
        /// <param name="unit">The unit of the numbers (the cells' own).</param>
        /// <param name="extra">Said after the difference where the candidate is slower beyond the noise (e.g. the ratio).</param>
        public (string Difference, string Noise, string Verdict) Compare(Cell? baseline, Cell? candidate, string name, string unit, string? extra = null)
        {
            if (baseline is null || candidate is null)
            {
                return ("n/a", "n/a", "n/a");
            }

            double difference = candidate.Median - baseline.Median;
            double error = Math.Max(baseline.Error, candidate.Error);
            double sd = Math.Max(baseline.StdDev, candidate.StdDev);
            if (difference > error)
            {
                BeyondNoise.Add($"{name} (+{Ms(difference)} {unit}{(extra is null ? string.Empty : ", " + extra)}, noise {Ms(error)} {unit})");
            }

            if (difference > sd)
            {
                BeyondSd.Add($"{name} (+{Ms(difference)} {unit}, larger sd {Ms(sd)} {unit})");
            }

            return (Signed(difference), Ms(error), difference > error ? "**yes**" : "no");
        }
    }

    private static string Signed(double value) => (value >= 0 ? "+" : "−") + Ms(Math.Abs(value));

    private static string YesNo(bool value) => value ? "yes" : "no";

    public static string Ms(double value) => value switch
    {
        >= 100 => value.ToString("0", CultureInfo.InvariantCulture),
        >= 10 => value.ToString("0.0", CultureInfo.InvariantCulture),
        >= 1 => value.ToString("0.00", CultureInfo.InvariantCulture),
        _ => value.ToString("0.000", CultureInfo.InvariantCulture),
    };
}
