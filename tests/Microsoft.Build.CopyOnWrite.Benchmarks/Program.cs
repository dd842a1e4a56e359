using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.CompilerServices;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using Microsoft.Build.CopyOnWrite.Benchmarks.FreshProcess;
using Microsoft.Build.Locator;
using Perfolizer.Horology;

[assembly: System.Runtime.Versioning.SupportedOSPlatform("linux")]

namespace Microsoft.Build.CopyOnWrite.Benchmarks;

/// <summary>
/// Usage (as root, through build/benchmark.sh, which makes the file systems and sets COW_BENCH_XFS/BTRFS/EXT4):
///   Microsoft.Build.CopyOnWrite.Benchmarks [--out FILE] [--artifacts FOLDER] [--only engine|naming|task|calls|fresh|sample] [--smoke]
///     [--package NUPKG] [--rounds N] [--sample MEASUREMENT.JSON] [--samples FOLDER]
/// --package: the packed SDK for the fresh-process benchmark (which runs only with it); --sample: the measurement tool's
/// report of the sample's builds, summarised in the report; --samples: the repository's samples folder, for the sample's
/// builds with half the projects on each task (on XFS, with --package).
/// </summary>
internal static class Program
{
    private static int Main(string[] args)
    {
        // Before any MSBuild type is touched: MSBuild (and the stock Copy task) come from the installed SDK.
        MSBuildLocator.RegisterDefaults();
        return Run(args);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Run(string[] args)
    {
        string? output = null;
        string artifacts = Path.GetFullPath("BenchmarkDotNet.Artifacts");
        string only = "all";
        string? package = null;
        string? sampleMeasurement = null;
        string? samples = null;
        int? rounds = null;
        for (int i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--out" when i + 1 < args.Length: output = Path.GetFullPath(args[++i]); break;
                case "--artifacts" when i + 1 < args.Length: artifacts = Path.GetFullPath(args[++i]); break;
                case "--only" when i + 1 < args.Length && args[i + 1] is "engine" or "naming" or "task" or "calls" or "fresh" or "sample": only = args[++i]; break;
                case "--package" when i + 1 < args.Length: package = Path.GetFullPath(args[++i]); break;
                case "--sample" when i + 1 < args.Length: sampleMeasurement = Path.GetFullPath(args[++i]); break;
                case "--samples" when i + 1 < args.Length: samples = Path.GetFullPath(args[++i]); break;
                case "--rounds" when i + 1 < args.Length && int.TryParse(args[i + 1], out int n) && n > 0: rounds = n; i++; break;
                case "--smoke": Settings.Smoke = true; break;
                default:
                    Console.Error.WriteLine($"Unknown argument {args[i]}. Usage: [--out FILE] [--artifacts FOLDER] [--only engine|naming|task|calls|fresh|sample] [--smoke] [--package NUPKG] [--rounds N] [--sample MEASUREMENT.JSON] [--samples FOLDER]");
                    return 2;
            }
        }

        var mountPoints = new[] { "xfs", "btrfs", "ext4" }.Where(Settings.Has).ToDictionary(k => k, Settings.MountPoint);
        if (mountPoints.Count == 0)
        {
            Console.Error.WriteLine("No file system to run on: set COW_BENCH_XFS, COW_BENCH_BTRFS, COW_BENCH_EXT4 (build/benchmark.sh does).");
            return 2;
        }

        // A smoke run (CI's test of the harness, run from a test host that is itself a dotnet process) neither waits for
        // other dotnet processes to end nor writes 1 GiB to measure the disk: its numbers are not for quoting anyway.
        IReadOnlyList<string> otherDotnetAtStart = Machine.WaitForOtherDotnetProcesses(Settings.Smoke ? TimeSpan.Zero : TimeSpan.FromSeconds(30));
        DateTime started = DateTime.UtcNow;
        string loadAtStart = Machine.LoadAverages();
        IReadOnlyList<string> busiest = Machine.BusiestProcesses(6);
        double diskSpeed = Settings.Smoke ? double.NaN : Machine.HostDiskWriteMiBPerSecond("/var/tmp");
        IReadOnlyList<Probe.Finding> probes = Probe.Run(mountPoints.Keys);

        int warmups = Settings.Smoke ? 0 : 1;
        int iterations = Settings.Smoke ? 3 : 9; // 5 left a clone-vs-clone difference of a few microseconds a file at the mercy of one slow iteration
        IConfig config = MakeConfig(warmups, iterations, artifacts);

        // Section 5's 96 cases (2 file systems x 3 file counts x 2 sizes x 2 destinations x 2 loggers x 2 tasks) must fit in
        // about 10 minutes on a 2-core VM. Most cost little an iteration (a few calls of small files, or clones), so they get
        // more iterations than the other sections: a difference of a few microseconds a call needs more than 9 (the first
        // run's 15 still left Errors of 5-7 µs on a 30 µs call, with other builds loading the machine). Measured on this VM
        // (2 cores, virtio disk, load 4 from other work): 1+1+15 iterations a case took 72 s for the 96 cases, 28 s of it in
        // the timed calls, 23 s of those in the ext4 cases of 1 MiB files (which also flush the 16-200 MiB each iteration
        // wrote before the next). 2 warmups and 40 iterations are 2.5 times that, about 3 minutes here, leaving room for a
        // disk three times slower.
        int callsWarmups = Settings.Smoke ? 0 : 2;
        int callsIterations = Settings.Smoke ? 3 : 40;
        IConfig callsConfig = MakeConfig(callsWarmups, callsIterations, artifacts);

        Summary? engine = only is "all" or "engine" ? BenchmarkRunner.Run<EngineBenchmarks>(config) : null;
        IReadOnlyList<NamingRun> naming = only is "all" or "engine" or "naming" ? CloneNamingBenchmarks.Run(mountPoints, Settings.Smoke ? 3 : 30) : [];
        Summary? task = only is "all" or "task" && (mountPoints.ContainsKey("xfs") || mountPoints.ContainsKey("ext4"))
            ? BenchmarkRunner.Run<CopyTaskBenchmarks>(config)
            : null;
        Summary? calls = null;
        if (only is "all" or "calls" && (mountPoints.ContainsKey("xfs") || mountPoints.ContainsKey("ext4")))
        {
            try
            {
                calls = BenchmarkRunner.Run<CopyCallBenchmarks>(callsConfig);
            }
            finally
            {
                CopyCallBenchmarks.DeleteSources();
            }
        }

        int freshRounds = rounds ?? (Settings.Smoke ? 2 : 16); // at least 10; at 10, one run's whole-ms tick could move a 200-file median across its bar
        (IReadOnlyList<FreshRun> fresh, IReadOnlyList<FreshProbe> freshProbes) = only is "all" or "fresh" && package is not null
            ? FreshProcessBenchmarks.Run(package, mountPoints, freshRounds, typeof(FreshProcessLogger).Assembly.Location)
            : ([], []);
        IReadOnlyList<SampleCopyTime> sample = only is "all" or "sample" && sampleMeasurement is not null ? SampleBuilds.Read(sampleMeasurement, "xfs") : [];
        IReadOnlyList<SampleStep> sampleSteps = only is "all" or "sample" && sampleMeasurement is not null ? SampleBuilds.ReadSteps(sampleMeasurement, "xfs") : [];
        IReadOnlyList<SplitCopyCall> splitCalls = only is "all" or "sample" && samples is not null && package is not null && mountPoints.TryGetValue("xfs", out string? xfs)
            ? SampleSplitBuilds.Run(package, samples, xfs, Settings.Smoke ? 2 : 8, typeof(CopyCallLogger).Assembly.Location)
            : [];
        if (splitCalls.Count > 0)
        {
            Directory.CreateDirectory(artifacts);
            File.WriteAllLines(Path.Combine(artifacts, "sample-split-calls.tsv"),
                splitCalls.Select(c => string.Join('\t', c.Kind, c.Round, c.Variant, c.Project, c.Target, c.Occurrence, c.FirstInNode ? "first" : "later", c.Milliseconds.ToString("0.000", System.Globalization.CultureInfo.InvariantCulture))));
        }

        Assembly stockAssembly = typeof(Microsoft.Build.Tasks.Copy).Assembly;
        var facts = new RunFacts
        {
            Started = started,
            Finished = DateTime.UtcNow,
            JobDescription = JobDescription(warmups, iterations),
            CallsJobDescription = JobDescription(callsWarmups, callsIterations),
            Machine = Machine.Describe(mountPoints),
            LoadAtStart = loadAtStart,
            LoadAtEnd = Machine.LoadAverages(),
            BusiestAtStart = busiest,
            OtherDotnetAtStart = otherDotnetAtStart,
            OtherDotnetAtEnd = Machine.OtherDotnetProcesses(),
            HostDiskMiBPerSecond = diskSpeed,
            BenchmarkDotNetVersion = typeof(BenchmarkRunner).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0] ?? "?",
            StockTask = $"Microsoft.Build.Tasks.Copy from {stockAssembly.Location} (MSBuild {FileVersionInfo.GetVersionInfo(stockAssembly.Location).ProductVersion?.Split('+')[0]})",
            Probes = probes,
            Smoke = Settings.Smoke,
            Code = DescribeCode(),
            FreshRounds = freshRounds,
        };

        string markdown = Report.Build(engine, naming, task, calls, fresh, freshProbes, sample, sampleSteps, SampleSplitBuilds.Compare(splitCalls), facts);
        Console.WriteLine();
        Console.WriteLine(markdown);
        if (output is not null)
        {
            Directory.CreateDirectory(Path.GetDirectoryName(output)!);
            File.WriteAllText(output, markdown);
            Console.WriteLine($"Written to {output}");
        }

        Directory.CreateDirectory(artifacts);
        string raw = Path.Combine(artifacts, Report.RawFileName);
        File.WriteAllText(raw, Report.BuildRaw(engine, task, calls, fresh));
        Console.WriteLine($"Raw measurements written to {raw}");

        bool allMeasured = new[] { engine, task, calls }.OfType<Summary>().All(s => !s.HasCriticalValidationErrors && s.Reports.All(r => r.ResultStatistics is not null))
            && (only is not "calls" || calls is not null)
            && (calls is null || (calls.Reports.Length > 0 && CopyCallBenchmarks.FileSystems.All(CopyCallBenchmarks.LoggingChecks.ContainsKey)))
            && (only is not ("all" or "fresh") || fresh.Count > 0)
            && (only is not ("all" or "sample") || sample.Count > 0);
        return allMeasured ? 0 : 1;
    }

    /// <summary>
    /// One launch in this process, each iteration one invocation of the benchmark method (with its own setup before it,
    /// outside the measurement), every iteration kept.
    /// </summary>
    private static IConfig MakeConfig(int warmups, int iterations, string artifacts)
    {
        Job job = Job.Default
            .WithToolchain(new InProcessEmitToolchain(TimeSpan.FromHours(3), logOutput: true))
            .WithStrategy(RunStrategy.Throughput)
            .WithLaunchCount(1)
            .WithWarmupCount(warmups)
            .WithIterationCount(iterations)
            .WithInvocationCount(1)
            .WithUnrollFactor(1)
            .WithEvaluateOverhead(false)
            .WithOutlierMode(Perfolizer.Mathematics.OutlierDetection.OutlierMode.DontRemove)
            .WithId("cow");
        ManualConfig config = ManualConfig.CreateEmpty()
            .AddJob(job)
            .AddColumnProvider(DefaultColumnProviders.Instance)
            .AddColumn(StatisticColumn.Median, StatisticColumn.Min, StatisticColumn.Max)
            .AddLogger(ConsoleLogger.Default)
            .AddExporter(MarkdownExporter.GitHub)
            .WithSummaryStyle(SummaryStyle.Default.WithTimeUnit(TimeUnit.Millisecond))
            .WithArtifactsPath(artifacts)
            .WithOptions(ConfigOptions.DisableLogFile);

        // The smoke run checks that the harness runs, also from a Debug build (a test run's configuration): its numbers
        // are not for quoting, so BenchmarkDotNet need not refuse an assembly built without optimisations.
        return Settings.Smoke ? config.WithOptions(ConfigOptions.DisableOptimizationsValidator) : config;
    }

    private static string JobDescription(int warmups, int iterations)
        => $"launch 1, warmup {warmups}, iterations {iterations}, invocation count 1, unroll factor 1, overhead not evaluated, "
            + "no outlier removed (each case also runs once untimed first: BenchmarkDotNet's jitting stage)";

    /// <summary>The commit the task assembly was built from, and the src/ files that differed from it.</summary>
    private static string DescribeCode()
    {
        string? head = Native.Run("git", "log", "-1", "--format=%h %s")?.Trim();
        if (string.IsNullOrEmpty(head) || head.StartsWith("fatal", StringComparison.Ordinal))
        {
            return "unknown (not run from the git repository)";
        }

        string[] changed = (Native.Run("git", "status", "--porcelain", "--", "src") ?? string.Empty)
            .Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        return changed.Length == 0
            ? $"commit `{head}`, src/ unchanged"
            : $"commit `{head}` plus uncommitted changes in src/ at the time of the run (work in progress in a shared checkout): {string.Join(", ", changed.Select(c => $"`{c}`"))}";
    }
}
