using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Benchmarks.FreshProcess;

/// <summary>Sections 3 and 4 of docs/results/benchmarks.md: fresh-process Copies and the sample's builds, against their bars.</summary>
internal static class FreshProcessReport
{
    private static readonly string[] FileSystems = ["xfs", "btrfs", "ext4"];

    /// <summary>The bar for ours / stock (medians of the "Copy" row) per set and file system.</summary>
    public static double Bar(string set, string fs) => set.StartsWith("1 x", StringComparison.Ordinal) ? 1.2 : fs == "ext4" ? 0.8 : 1.0;

    public static void Append(StringBuilder md, IReadOnlyList<FreshRun> runs, IReadOnlyList<FreshProbe> probes, IReadOnlyList<NamingRun> naming, int rounds)
    {
        md.AppendLine("## 3. A fresh MSBuild process: one Copy, ours against the stock task");
        md.AppendLine();
        md.AppendLine("What every MSBuild node pays on its first Copy. Each measurement is a new `dotnet msbuild copy.proj -nr:false -v:m -clp:PerformanceSummary` "
            + "process building a project whose one target copies the set's files into an empty folder on the file system under test; the project "
            + "imports the packed SDK (Sdk.props/Sdk.targets from the .nupkg, as a user gets it), and `-p:DisableCopyOnWrite=true` brings back the "
            + "stock task. The time is the **\"Copy\" row of the task performance summary** (MSBuild's own timing of the task, in whole ms). "
            + $"{rounds} rounds; each round runs every case once per variant, the variant that goes first alternating from round to round. "
            + "Before each run, outside it, the destination folder is deleted and the file system flushed (syncfs). "
            + "Where the time goes comes from one more, untimed, run per case and variant before the rounds, with a logger in the measured process "
            + "(the build runs inside it): it reads System.Runtime.JitInfo when it handles the Copy task's start and finish (a little after each: "
            + "MSBuild hands events to loggers on its own thread, so that window is approximate) and when the build ends (the whole process). "
            + "The timed runs have no such logger: MSBuild would create every low-importance message for a logger it does not know. "
            + "JIT time is wall time spent compiling and grows with the machine's load; method counts do not.");
        md.AppendLine();
        md.AppendLine("| file system | files | stock Copy (ms) | our Copy (ms) | ours / stock | bar | met? | paired: ours − stock per round (ms, median) | rounds ours slower / level / faster (sign test p) | JIT while Copy ran: methods, ms (stock → ours) | JIT in the process: methods (stock → ours) | our task assembly |");
        md.AppendLine("|---|---|---:|---:|---:|---:|---|---:|---|---:|---:|---|");
        var misses = new List<string>();
        foreach (string fs in FileSystems.Where(f => runs.Any(r => r.FileSystem == f)))
        {
            foreach ((string set, int files, _) in FreshProcessBenchmarks.Sets)
            {
                List<FreshRun> stock = Of(runs, fs, set, FreshProcessBenchmarks.Stock);
                List<FreshRun> ours = Of(runs, fs, set, FreshProcessBenchmarks.Ours);
                if (stock.Count == 0 || ours.Count == 0)
                {
                    continue;
                }

                double stockMs = Median(stock.Select(r => r.CopyMilliseconds));
                double oursMs = Median(ours.Select(r => r.CopyMilliseconds));
                double ratio = stockMs > 0 ? oursMs / stockMs : double.PositiveInfinity;
                double bar = Bar(set, fs);
                bool met = ratio <= bar;
                FreshProbe? stockProbe = probes.FirstOrDefault(p => p.FileSystem == fs && p.Set == set && p.Variant == FreshProcessBenchmarks.Stock);
                FreshProbe? oursProbe = probes.FirstOrDefault(p => p.FileSystem == fs && p.Set == set && p.Variant == FreshProcessBenchmarks.Ours);
                double stockJit = stockProbe?.JitMethods ?? double.NaN;
                double oursJit = oursProbe?.JitMethods ?? double.NaN;
                double stockCopyJit = stockProbe?.CopyJitMethods ?? double.NaN;
                double oursCopyJit = oursProbe?.CopyJitMethods ?? double.NaN;
                double stockJitMs = stockProbe?.CopyJitMilliseconds ?? double.NaN;
                double oursJitMs = oursProbe?.CopyJitMilliseconds ?? double.NaN;
                string assemblies = oursProbe is null ? "n/a" : ShortAssembly(oursProbe.TaskAssembly);
                Paired paired = Pair(stock, ours);
                md.AppendLine($"| {fs} | {set} | {Spread(stock.Select(r => r.CopyMilliseconds))} | {Spread(ours.Select(r => r.CopyMilliseconds))} | "
                    + $"{ratio:0.00}x | ≤ {bar:0.0}x | {(met ? "met" : "**NOT met**")} | {Signed(paired.MedianDifference, "0.0")} | {paired.Describe()} | {stockCopyJit:0}, {Report.Ms(stockJitMs)} → {oursCopyJit:0}, {Report.Ms(oursJitMs)} | {stockJit:0} → {oursJit:0} | {assemblies} |");
                if (!met)
                {
                    double extra = oursMs - stockMs;
                    List<FreshRun> stockEmpty = Of(runs, fs, FreshProcessBenchmarks.NoFiles, FreshProcessBenchmarks.Stock);
                    List<FreshRun> oursEmpty = Of(runs, fs, FreshProcessBenchmarks.NoFiles, FreshProcessBenchmarks.Ours);
                    double oursEmptyMs = Median(oursEmpty.Select(r => r.CopyMilliseconds));
                    double stockEmptyMs = Median(stockEmpty.Select(r => r.CopyMilliseconds));
                    string beforeAnyFile = stockEmpty.Count == 0 || oursEmpty.Count == 0 ? string.Empty
                        : $" With no file to copy (the same process, a Copy of an empty item list: loading and running the task) ours takes "
                          + $"{Report.Ms(oursEmptyMs)} ms against {Report.Ms(stockEmptyMs)} ms ({Signed(oursEmptyMs - stockEmptyMs, "0.0")} ms).";
                    double perFile = CloneNamingBenchmarks.Median(naming, fs, CloneNamingBenchmarks.Engine) - CloneNamingBenchmarks.Median(naming, fs, CloneNamingBenchmarks.FileCopy);
                    string copiesThemselves = double.IsNaN(perFile) ? string.Empty
                        : $" The copies themselves, in a warm process (section 1, \"Where a clone's time goes\"): the engine takes {Signed(perFile, "0.0")} µs a file against "
                          + $"File.Copy on {fs} in this run, {(perFile >= 0 ? "+" : "−")}{Report.Ms(Math.Abs(perFile * files / 1000))} ms over {files} file{(files == 1 ? string.Empty : "s")}.";
                    string byRound = $" Round by round (each round runs both): ours − stock {Signed(paired.MedianDifference, "0.0")} ms (median); "
                        + $"ours slower / level / faster in {paired.Describe()} of {paired.Rounds} rounds.";
                    double extraJitMs = oursJitMs - stockJitMs;
                    double rest = extra - extraJitMs;
                    misses.Add($"{fs}, {set}: ours {Report.Ms(oursMs)} ms against {Report.Ms(stockMs)} ms ({ratio:0.00}x, bar {bar:0.0}x). "
                        + $"The JIT while Copy ran: {Signed(oursCopyJit - stockCopyJit, "0")} methods, {Signed(extraJitMs, "0.0")} ms "
                        + $"({Signed(oursJit - stockJit, "0")} methods in the whole process). "
                        + $"The rest, {Signed(rest, "0.0")} ms, is not compilation: {Signed(rest / files, "0.000")} ms per file over {files} file{(files == 1 ? string.Empty : "s")} "
                        + "(loading, the copies themselves and their messages; section 2 has the per-file work of both tasks in a warm process)." + copiesThemselves + beforeAnyFile + byRound);
                }
            }
        }

        md.AppendLine();
        md.AppendLine("### Bars");
        md.AppendLine();
        md.AppendLine("- One file: ours at most 1.2x the stock task's time in Copy; 200 files: at most 1.0x on XFS and btrfs, at most 0.8x on ext4 (medians).");
        md.AppendLine("- The verdict is the bar's: the ratio of the two medians. The paired columns read the same runs another way: each round runs "
            + "both variants back to back, so a round's difference is free of what drifts between rounds; a sign test p near 1 means the rounds "
            + "do not say which task is faster, a p below 0.05 that they do. The \"Copy\" row is in whole milliseconds, so near 10 ms one tick is 10 %.");
        if (misses.Count == 0)
        {
            md.AppendLine("- **Met** everywhere.");
        }
        else
        {
            md.AppendLine("- **Missed**, and where the time goes (medians, ours minus stock):");
            foreach (string miss in misses)
            {
                md.AppendLine($"  - {miss}");
            }
        }

        double[] loads = runs.Select(r => r.LoadBefore).Where(l => !double.IsNaN(l)).ToArray();
        if (loads.Length > 0)
        {
            md.AppendLine($"- 1-minute load average before each run: {loads.Min():0.0} to {loads.Max():0.0} (median {Median(loads):0.0}), on {Environment.ProcessorCount} cores.");
        }

        AppendManyCalls(md, runs);
        md.AppendLine();
    }

    /// <summary>The sample's shape (many calls of a few files) with MSBuild's default logging and with every message created.</summary>
    private static void AppendManyCalls(StringBuilder md, IReadOnlyList<FreshRun> runs)
    {
        string[] sets = [FreshProcessBenchmarks.ManyCalls, FreshProcessBenchmarks.ManyCallsVerbose];
        if (!sets.All(set => Of(runs, "xfs", set, FreshProcessBenchmarks.Ours).Count > 0 && Of(runs, "xfs", set, FreshProcessBenchmarks.Stock).Count > 0))
        {
            return;
        }

        md.AppendLine();
        md.AppendLine("### The sample's shape: many calls in one process, and what verbose logging costs");
        md.AppendLine();
        md.AppendLine($"One fresh process making {FreshProcessBenchmarks.ManyCalls.Replace(" x 16 KiB", " files of 16 KiB", StringComparison.Ordinal)} each on XFS "
            + "(the sample's clean build: 84 calls, 565 files), in the same alternating rounds; no bar of its own. Once as above, once with "
            + "`-flp:v=diag;logfile=...` added: a logger that takes every message makes MSBuild create the low-importance ones, as a binary log "
            + "(`-bl`), `-v:d` or any logger it does not know do - the measurement tool's summary logger (section 4) among them. The log lines "
            + "are those of the diagnostic log: what each task had MSBuild create and write.");
        md.AppendLine();
        List<FreshRun> emptyStock = Of(runs, "xfs", FreshProcessBenchmarks.NoFiles, FreshProcessBenchmarks.Stock);
        List<FreshRun> emptyOurs = Of(runs, "xfs", FreshProcessBenchmarks.NoFiles, FreshProcessBenchmarks.Ours);
        if (emptyStock.Count > 0 && emptyOurs.Count > 0)
        {
            md.AppendLine($"A Copy of no file at all in a fresh process (an empty item list: MSBuild loads the task, sets its parameters and runs it), on XFS: "
                + $"stock {Spread(emptyStock.Select(r => r.CopyMilliseconds))} ms, ours {Spread(emptyOurs.Select(r => r.CopyMilliseconds))} ms. "
                + "What a node pays for the task before any file work.");
            md.AppendLine();
        }

        md.AppendLine("| logging | stock Copy (ms) | our Copy (ms) | ours / stock | ours − stock (ms) | paired: ours − stock per round (ms, median) | rounds ours slower / level / faster (sign test p) | diagnostic log lines (stock → ours) |");
        md.AppendLine("|---|---:|---:|---:|---:|---:|---|---:|");
        foreach (string set in sets)
        {
            List<FreshRun> stock = Of(runs, "xfs", set, FreshProcessBenchmarks.Stock);
            List<FreshRun> ours = Of(runs, "xfs", set, FreshProcessBenchmarks.Ours);
            double stockMs = Median(stock.Select(r => r.CopyMilliseconds));
            double oursMs = Median(ours.Select(r => r.CopyMilliseconds));
            string lines = set == FreshProcessBenchmarks.ManyCallsVerbose
                ? $"{Median(stock.Where(r => r.LogLines is not null).Select(r => (double)r.LogLines!.Value)):0} → {Median(ours.Where(r => r.LogLines is not null).Select(r => (double)r.LogLines!.Value)):0}"
                : "n/a";
            string logging = set == FreshProcessBenchmarks.ManyCalls ? "`-v:m` (a user's default)" : "`-v:m` + diagnostic file logger";
            Paired paired = Pair(stock, ours);
            md.AppendLine($"| {logging} | {Spread(stock.Select(r => r.CopyMilliseconds))} | {Spread(ours.Select(r => r.CopyMilliseconds))} | "
                + $"{oursMs / stockMs:0.00}x | {Signed(oursMs - stockMs, "0.0")} | {Signed(paired.MedianDifference, "0.0")} | {paired.Describe()} | {lines} |");
        }

        md.AppendLine();
    }

    public static void AppendSample(StringBuilder md, IReadOnlyList<SampleCopyTime> sample, IReadOnlyList<SampleStep> steps, IReadOnlyList<SplitComparison> split, string volume)
    {
        md.AppendLine($"## 4. The sample's builds on {volume.ToUpperInvariant()}: time in Copy, ours against the stock task");
        md.AppendLine();
        md.AppendLine("`samples/Snowball` (21 projects) built by the measurement tool (`src/Microsoft.Build.CopyOnWrite.Measure`, `dotnet build` in a fresh "
            + "MSBuild process per build, the stock task with `-p:DisableCopyOnWrite=true`); the time is the sum of the \"Copy\" rows of every "
            + "node's task performance summary. Its own report, with every build, is written beside this one (artifacts/benchmarks/sample/).");
        md.AppendLine();
        md.AppendLine("| build | runs | stock Copy (ms) | our Copy (ms) | ours / stock | bar | met? |");
        md.AppendLine("|---|---:|---:|---:|---:|---|---|");
        foreach (string kind in sample.Select(s => s.Kind).Distinct())
        {
            SampleCopyTime? stock = sample.FirstOrDefault(s => s.Kind == kind && s.Variant == SampleBuilds.StockVariant);
            SampleCopyTime? ours = sample.FirstOrDefault(s => s.Kind == kind && s.Variant == SampleBuilds.OurVariant);
            if (stock is null || ours is null)
            {
                continue;
            }

            double ratio = ours.Median / stock.Median;
            md.AppendLine($"| {kind} | {ours.Runs} | {Report.Ms(stock.Median)} ({Report.Ms(stock.Min)} – {Report.Ms(stock.Max)}) | "
                + $"{Report.Ms(ours.Median)} ({Report.Ms(ours.Min)} – {Report.Ms(ours.Max)}) | {ratio:0.00}x | ≤ 1.0x | {(ratio <= 1.0 ? "met" : "**NOT met**")} |");
        }

        md.AppendLine();
        md.AppendLine("Every build of the measurement tool has its summary logger attached (for ours and for the stock task alike: it counts what ours "
            + "cloned), loaded from the assembly the SDK names in CopyOnWriteSummaryLogger (the precompiled one for this MSBuild). MSBuild does not "
            + "know that logger, so it creates every low-importance message in both variants, and ours logs more of them than the stock task (two "
            + "per call: the summary line, which the console logger also writes at `-v:n`, and the data line; and a line per file copied rather "
            + "than cloned). Section 3's \"sample's shape\" table measures the same effect in one process, with MSBuild's default logging and with a "
            + "diagnostic file logger; docs/precompiled-task.md (\"What a node's first Copy costs now\") what the report lines cost per call.");
        md.AppendLine();
        AppendSampleSplit(md, split);
        if (steps.Count == 0)
        {
            return;
        }

        md.AppendLine("Where the time goes, from the same builds' performance summaries (medians over the runs, ms): the targets that run Copy in "
            + "the sample (with their other tasks), ResolveAssemblyReference (a task neither variant changes: slower too means the whole build "
            + "was slower, not only Copy) and the whole build.");
        md.AppendLine();
        md.AppendLine("| build | step | stock | ours | ours − stock |");
        md.AppendLine("|---|---|---:|---:|---:|");
        foreach (SampleStep step in steps)
        {
            md.AppendLine($"| {step.Kind} | {step.Step} | {Report.Ms(step.StockMedian)} | {Report.Ms(step.OursMedian)} | {(step.OursMedian >= step.StockMedian ? "+" : "−")}{Report.Ms(Math.Abs(step.OursMedian - step.StockMedian))} |");
        }

        md.AppendLine();
    }

    private static void AppendSampleSplit(StringBuilder md, IReadOnlyList<SplitComparison> split)
    {
        if (split.Count == 0)
        {
            return;
        }

        md.AppendLine("### The same builds with half the projects on each task");
        md.AppendLine();
        md.AppendLine("One build's time in Copy moves from one build to the next by more than the difference sought (the ranges above). So the "
            + "sample is also built with the stock task in every other project (`DisableCopyOnWrite=true` set per project) and ours in the "
            + "rest, the halves swapped from one build to the next: both tasks run in the same MSBuild processes at the same moments, and "
            + "what drifts falls on both alike. The builds are the measurement tool's (`dotnet build` of the solution in a fresh MSBuild process, "
            + "`-v:n`, the summary logger attached), clean then incremental (Lib01 touched). A logger in the build times every Copy call from "
            + "its TaskStarted to its TaskFinished event (both stamped by the node that ran it); each call (project, target, order) is "
            + "compared with itself in the builds where the other task ran it: mean against mean. \"Per build\" adds those means up over "
            + "the calls compared; each node's first Copy, which loads the task, is set apart.");
        md.AppendLine();
        md.AppendLine("| build | builds | calls compared | stock (ms per build) | ours (ms per build) | ours / stock | bar | met? | ours slower in | median difference per call | each node's first Copy, stock → ours (ms, median; n) |");
        md.AppendLine("|---|---:|---:|---:|---:|---:|---|---|---:|---:|---|");
        foreach (SplitComparison c in split)
        {
            double ratio = c.OursPerBuild / c.StockPerBuild;
            md.AppendLine($"| {c.Kind} | {c.Builds} | {c.CallsCompared} | {Report.Ms(c.StockPerBuild)} | {Report.Ms(c.OursPerBuild)} | {ratio:0.00}x | ≤ 1.0x | {(ratio <= 1.0 ? "met" : "**NOT met**")} | "
                + $"{c.OursSlower} of {c.CallsCompared} | {Signed(c.MedianDifference * 1000, "0")} µs | "
                + $"{Report.Ms(Median(c.StockFirstInNode))} ({c.StockFirstInNode.Count}) → {Report.Ms(Median(c.OursFirstInNode))} ({c.OursFirstInNode.Count}) |");
        }

        md.AppendLine();
        md.AppendLine("By target (the same calls; ms per build):");
        md.AppendLine();
        md.AppendLine("| build | target | calls compared | stock | ours | ours − stock |");
        md.AppendLine("|---|---|---:|---:|---:|---:|");
        foreach (SplitComparison c in split)
        {
            foreach ((string target, int calls, double stock, double ours) in c.ByTarget)
            {
                md.AppendLine($"| {c.Kind} | {target} | {calls} | {Report.Ms(stock)} | {Report.Ms(ours)} | {Signed(ours - stock, "0.00")} |");
            }
        }

        md.AppendLine();
    }

    public static void AppendRaw(StringBuilder md, IReadOnlyList<FreshRun> runs)
    {
        md.AppendLine("<details><summary>Every timed fresh-process run: Copy (ms) and the 1-minute load before it</summary>");
        md.AppendLine();
        md.AppendLine("| file system | files | variant | Copy (ms) by round | load by round |");
        md.AppendLine("|---|---|---|---|---|");
        foreach (IGrouping<(string FileSystem, string Set, string Variant), FreshRun> runsOfCase in runs
            .GroupBy(r => (r.FileSystem, r.Set, r.Variant))
            .OrderBy(g => Array.IndexOf(FileSystems, g.Key.FileSystem)).ThenBy(g => g.Key.Set).ThenBy(g => g.Key.Variant))
        {
            List<FreshRun> ordered = runsOfCase.OrderBy(r => r.Round).ToList();
            md.AppendLine($"| {runsOfCase.Key.FileSystem} | {runsOfCase.Key.Set} | {runsOfCase.Key.Variant} | {string.Join(", ", ordered.Select(r => r.CopyMilliseconds.ToString("0", System.Globalization.CultureInfo.InvariantCulture)))} | "
                + $"{string.Join(", ", ordered.Select(r => r.LoadBefore.ToString("0.0", System.Globalization.CultureInfo.InvariantCulture)))} |");
        }

        md.AppendLine();
        md.AppendLine("</details>");
        md.AppendLine();
    }

    /// <summary>
    /// Each round runs both variants back to back, so a round's difference is free of what drifts between rounds (load,
    /// writeback). The sign test asks how likely so lopsided a count of slower and faster rounds is if neither task is.
    /// </summary>
    private readonly record struct Paired(double MedianDifference, int Slower, int Level, int Faster)
    {
        public int Rounds => Slower + Level + Faster;

        /// <summary>Two-sided sign test over the rounds that differ.</summary>
        public double SignTestP
        {
            get
            {
                int n = Slower + Faster;
                int k = Math.Min(Slower, Faster);
                double tail = 0;
                for (int i = 0; i <= k; i++)
                {
                    tail += Math.Exp(LogChoose(n, i) - (n * Math.Log(2)));
                }

                return Math.Min(1, 2 * tail);
            }
        }

        public string Describe() => $"{Slower} / {Level} / {Faster} (p {SignTestP:0.00})";

        private static double LogChoose(int n, int k)
        {
            double sum = 0;
            for (int i = 1; i <= k; i++)
            {
                sum += Math.Log(n - k + i) - Math.Log(i);
            }

            return sum;
        }
    }

    private static Paired Pair(IReadOnlyList<FreshRun> stock, IReadOnlyList<FreshRun> ours)
    {
        var stockByRound = stock.GroupBy(r => r.Round).ToDictionary(g => g.Key, g => g.First().CopyMilliseconds);
        double[] differences = ours.Where(r => stockByRound.ContainsKey(r.Round)).Select(r => r.CopyMilliseconds - stockByRound[r.Round]).ToArray();
        return new Paired(Median(differences), differences.Count(d => d > 0), differences.Count(d => d == 0), differences.Count(d => d < 0));
    }

    private static List<FreshRun> Of(IReadOnlyList<FreshRun> runs, string fs, string set, string variant)
        => runs.Where(r => r.FileSystem == fs && r.Set == set && r.Variant == variant).ToList();

    internal static double Median(IEnumerable<double> values)
    {
        double[] sorted = values.OrderBy(v => v).ToArray();
        return sorted.Length == 0 ? double.NaN : sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
    }

    private static string Spread(IEnumerable<double> values)
    {
        double[] all = values.ToArray();
        return $"{Report.Ms(Median(all))} ({Report.Ms(all.Min())} – {Report.Ms(all.Max())})";
    }

    private static string Signed(double value, string format) => (value >= 0 ? "+" : "−") + Math.Abs(value).ToString(format, System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>The package-relative path of our task assembly, e.g. tools/multithreaded/net10.0/net10.0-linux-x64 (precompiled) or .../net10.0 (IL).</summary>
    private static string ShortAssembly(string path)
    {
        int tools = path.IndexOf("/tools/", StringComparison.Ordinal);
        string relative = tools >= 0 ? path[(tools + 1)..] : path;
        return "`" + relative.Replace("/Microsoft.Build.CopyOnWrite.dll", string.Empty, StringComparison.Ordinal) + "`";
    }
}
