using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>Median and spread of one quantity over the runs.</summary>
internal sealed record Stat(double Median, double Min, double Max, int Count)
{
    public static Stat Of(IEnumerable<double> values)
    {
        double[] sorted = values.Where(v => !double.IsNaN(v)).OrderBy(v => v).ToArray();
        if (sorted.Length == 0)
        {
            return new Stat(double.NaN, double.NaN, double.NaN, 0);
        }

        double median = sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
        return new Stat(median, sorted[0], sorted[^1], sorted.Length);
    }

    public string Format(Func<double, string> format) => Count == 0 ? "n/a" : Count == 1 || Min == Max ? format(Median) : $"{format(Median)} ({format(Min)} – {format(Max)})";
}

/// <summary>The medians of one (volume, variant, kind).</summary>
internal sealed record Aggregate(string Volume, string Variant, string Kind, Stat WallSeconds, Stat CopyMilliseconds, Stat CopyCalls, Stat ClonedFiles, Stat ClonedBytes, Stat FilesWritten, Stat BytesWritten, Stat DiskUsedBytes, Stat AddedApparentBytes, Stat FlushSeconds);

internal sealed class MeasurementReport
{
    private readonly Options _options;
    private readonly Session _session;
    private readonly MachineInfo _machine;
    private readonly List<(string Label, string FileSystem, string Description)> _volumes;
    private readonly List<BuildMeasurement> _builds;
    private readonly List<Aggregate> _aggregates;
    private readonly DateTime _when = DateTime.UtcNow;

    public MeasurementReport(Options options, Session session, MachineInfo machine, List<(string, string, string)> volumes, List<BuildMeasurement> builds)
    {
        _options = options;
        _session = session;
        _machine = machine;
        _volumes = volumes;
        _builds = builds;
        _aggregates = builds
            .GroupBy(b => (b.Volume, b.Variant, b.Kind))
            .Select(g => new Aggregate(g.Key.Volume, g.Key.Variant, g.Key.Kind,
                Stat.Of(g.Select(b => b.WallSeconds)),
                Stat.Of(g.Select(b => b.CopyTaskMilliseconds)),
                Stat.Of(g.Select(b => (double)b.CopyTaskCalls)),
                Stat.Of(g.Select(b => b.ClonedFiles is int f ? f : double.NaN)),
                Stat.Of(g.Select(b => b.ClonedBytes is long n ? n : double.NaN)),
                Stat.Of(g.Select(b => (double)b.FilesWritten)),
                Stat.Of(g.Select(b => (double)b.BytesWritten)),
                Stat.Of(g.Select(b => (double)b.DiskUsedBytes)),
                Stat.Of(g.Select(b => (double)b.AddedApparentBytes)),
                Stat.Of(g.Select(b => b.FlushSecondsAfter))))
            .ToList();
    }

    private string TargetName => Path.GetFileName(_options.Target.TrimEnd('/'));

    private IEnumerable<string> VolumeOrder => _volumes.Select(v => v.Label);

    private Aggregate? Find(string volume, string variant, string kind) => _aggregates.FirstOrDefault(a => a.Volume == volume && a.Variant == variant && a.Kind == kind);

    public void WriteAll(string folder)
    {
        File.WriteAllText(Path.Combine(folder, "measurement.md"), Markdown());
        File.WriteAllText(Path.Combine(folder, "measurement.json"), Json());
        File.WriteAllText(Path.Combine(folder, "chart.svg"), Chart.Svg(this));
    }

    internal IReadOnlyList<Aggregate> Aggregates => _aggregates;

    internal IReadOnlyList<string> Volumes => VolumeOrder.ToList();

    internal string Title => $"Microsoft.Build.CopyOnWrite on {TargetName}: clean builds, median of {_options.Runs}";

    /// <summary>The issue's bar: on XFS the clean build spends ≥5x less time in Copy and its outputs take ≥80% less disk than on ext4.</summary>
    public IEnumerable<string> BarLines()
    {
        Aggregate? xfs = Find("xfs", Builds.OurVariant, "clean");
        Aggregate? ext4 = Find("ext4", Builds.OurVariant, "clean");
        if (xfs is null || ext4 is null)
        {
            yield break;
        }

        double timeRatio = ext4.CopyMilliseconds.Median / Math.Max(1, xfs.CopyMilliseconds.Median);
        double diskSaving = 1 - xfs.DiskUsedBytes.Median / ext4.DiskUsedBytes.Median;
        yield return $"- Time in Copy, clean build: {Ms(xfs.CopyMilliseconds.Median)} on XFS vs {Ms(ext4.CopyMilliseconds.Median)} on ext4: **{timeRatio:0.0}x less** (bar: at least 5x) — **{(timeRatio >= 5 ? "met" : "NOT met")}**.";
        yield return $"- Disk space taken by the clean build's outputs: {MiB(xfs.DiskUsedBytes.Median)} on XFS vs {MiB(ext4.DiskUsedBytes.Median)} on ext4: **{diskSaving:0%} less** (bar: at least 80% less) — **{(diskSaving >= 0.8 ? "met" : "NOT met")}**.";
    }

    public string ConsoleTable()
    {
        var text = new StringBuilder();
        foreach (string kind in new[] { "clean", "incremental" })
        {
            text.AppendLine($"{(kind == "clean" ? "Clean builds" : "Incremental builds")} (median of {_options.Runs}; min–max in the Markdown report)");
            text.AppendLine($"{"volume",-7} {"variant",-14} {"build",9} {"in Copy",10} {"cloned",15} {"copied",15} {"disk used",11} {"flush",8}");
            foreach (string volume in VolumeOrder)
            {
                foreach (string variant in new[] { Builds.OurVariant, Builds.StockVariant })
                {
                    if (Find(volume, variant, kind) is not Aggregate a)
                    {
                        continue;
                    }

                    string cloned = a.ClonedFiles.Count == 0 ? "?" : $"{a.ClonedFiles.Median:0} ({MiB(a.ClonedBytes.Median)})";
                    string copied = a.ClonedFiles.Count == 0
                        ? $"{a.FilesWritten.Median:0} ({MiB(a.BytesWritten.Median)})"
                        : $"{a.FilesWritten.Median - a.ClonedFiles.Median:0} ({MiB(a.BytesWritten.Median - a.ClonedBytes.Median)})";
                    text.AppendLine($"{volume,-7} {variant,-14} {a.WallSeconds.Median,7:0.0} s {Ms(a.CopyMilliseconds.Median),10} {cloned,15} {copied,15} {MiB(a.DiskUsedBytes.Median),11} {a.FlushSeconds.Median,6:0.00} s");
                }
            }

            text.AppendLine();
        }

        foreach (string line in BarLines())
        {
            text.AppendLine(line.Replace("**", string.Empty, StringComparison.Ordinal));
        }

        return text.ToString();
    }

    private string Markdown()
    {
        var md = new StringBuilder();
        md.AppendLine($"# What copy-on-write saves: {TargetName}");
        md.AppendLine();
        md.AppendLine($"Measured on {_when:yyyy-MM-dd} with Microsoft.Build.CopyOnWrite {_session.PackageVersion} by the measurement tool in this repository:");
        md.AppendLine();
        md.AppendLine("```sh");
        md.AppendLine($"dotnet run -c Release --project src/Microsoft.Build.CopyOnWrite.Measure -- {Display(_options.Target)} --runs {_options.Runs}{string.Concat(_volumes.Select(v => " --volume " + v.Label))}{(_options.Touch is null ? string.Empty : " --touch " + _options.Touch)}{(_options.Root != (Directory.Exists(_options.Target) ? _options.Target : Path.GetDirectoryName(_options.Target)) ? " --root " + Display(_options.Root!) : string.Empty)}");
        md.AppendLine("```");
        md.AppendLine();
        List<string> bar = BarLines().ToList();
        if (bar.Count > 0)
        {
            md.AppendLine("## Against the bar (XFS vs ext4, our Copy task, clean build)");
            md.AppendLine();
            bar.ForEach(line => md.AppendLine(line));
            md.AppendLine();
        }

        md.AppendLine("![Time in Copy, disk space and build time per file system](chart.svg)");
        md.AppendLine();
        md.AppendLine("## Machine");
        md.AppendLine();
        md.AppendLine("| | |");
        md.AppendLine("| --- | --- |");
        md.AppendLine($"| CPU | {_machine.Cpu}, {_machine.Cores} logical cores |");
        md.AppendLine($"| Memory | {_machine.Memory} |");
        md.AppendLine($"| OS | {_machine.OperatingSystem}, kernel {_machine.Kernel} |");
        md.AppendLine($"| .NET SDK | {_machine.DotnetSdk} (MSBuild {_machine.Msbuild}) |");
        foreach ((string label, string fileSystem, string description) in _volumes)
        {
            md.AppendLine($"| Volume `{label}` | {description} (kernel type `{fileSystem}`) |");
        }

        md.AppendLine();
        md.AppendLine("## Method");
        md.AppendLine();
        md.AppendLine($"- The tree ({Display(_options.Root!)}, without bin/, obj/ and .git/) is copied onto each volume, with a package cache (`NUGET_PACKAGES`) of its own on the same volume, and restored once.");
        md.AppendLine("- Two variants: **copy-on-write** (our Copy task) and **stock** (`-p:DisableCopyOnWrite=true`, MSBuild's own Copy task). Note that on Linux the stock task's `File.Copy` itself tries `FICLONE` first, so the stock task clones too on XFS and btrfs; our task adds atomic replacement, the reasons and the accounting.");
        md.AppendLine($"- Each volume: one unmeasured warm-up build, then {_options.Runs} rounds; each round builds both variants (alternating which goes first), each as a **clean build** (every file a build added is deleted first, as `git clean -fdx` after restore) followed by an **incremental build** ({(_options.Touch is null ? "nothing changed" : $"after touching `{_options.Touch}`")}).");
        md.AppendLine($"- Every build is `dotnet build --no-restore -c {_options.Configuration} -v:n -clp:PerformanceSummary` in a fresh MSBuild process (no node reuse, no build server), with the default parallelism (`-m`).");
        md.AppendLine("- **Build**: wall-clock time of the `dotnet build` process. **In Copy**: the `Copy` row of MSBuild's task performance summary (all Copy invocations, summed over nodes).");
        md.AppendLine("- **Cloned / copied**: for our task, exact counts from the build-wide summary logger (`CopyOnWriteSummaryLogger`, which adds up the `CopyOnWrite data:` line of every Copy); for the stock task, the `Copying file from` lines and the sizes of those destinations (it cannot say whether `File.Copy` cloned).");
        md.AppendLine("- **Flush after**: how long `sync -f` of the volume took right after the build: the write-back the kernel still owed for what the build wrote. Byte copies land in the page cache, so much of their cost is paid here, after the Copy task has returned, rather than inside it; clones owe almost nothing. Not part of the build time.");
        md.AppendLine("- **Disk used**: the file system's used space (`statfs`, after `sync -f` and once it stops moving) after the build minus before it, so data shared by clones is counted once. On `here` the volume is shared with the rest of the machine, so this number is only indicative. **Apparent size**: the sum of the sizes of the files the build added.");
        md.AppendLine();
        foreach (string kind in new[] { "clean", "incremental" })
        {
            md.AppendLine(kind == "clean" ? "## Clean builds" : "## Incremental builds");
            md.AppendLine();
            md.AppendLine("Median (min – max) over the runs.");
            md.AppendLine();
            md.AppendLine("| Volume | Copy task | Build | In Copy | Copy calls | Files cloned | Files copied | Data cloned | Data copied | Disk used | Apparent size | Flush after |");
            md.AppendLine("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
            foreach (string volume in VolumeOrder)
            {
                foreach (string variant in new[] { Builds.OurVariant, Builds.StockVariant })
                {
                    if (Find(volume, variant, kind) is not Aggregate a)
                    {
                        continue;
                    }

                    bool known = a.ClonedFiles.Count > 0;
                    md.AppendLine($"| {volume} | {variant} | {a.WallSeconds.Format(s => $"{s:0.0} s")} | {a.CopyMilliseconds.Format(Ms)} | {a.CopyCalls.Median:0} | "
                        + $"{(known ? a.ClonedFiles.Format(v => $"{v:0}") : "?")} | {(known ? $"{a.FilesWritten.Median - a.ClonedFiles.Median:0}" : $"{a.FilesWritten.Median:0} (written)")} | "
                        + $"{(known ? a.ClonedBytes.Format(MiB) : "?")} | {(known ? MiB(a.BytesWritten.Median - a.ClonedBytes.Median) : MiB(a.BytesWritten.Median) + " (written)")} | "
                        + $"{a.DiskUsedBytes.Format(MiB)} | {a.AddedApparentBytes.Format(MiB)} | {a.FlushSeconds.Format(s => $"{s:0.00} s")} |");
                }
            }

            md.AppendLine();
        }

        md.AppendLine("## Every build");
        md.AppendLine();
        md.AppendLine("Load is the 1-minute load average just before the build: well above 0 means other work shared the processors, which inflates build times more than time in Copy.");
        md.AppendLine();
        md.AppendLine("| Volume | Copy task | Kind | Run | Build | In Copy | Files written | Disk used | Load |");
        md.AppendLine("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
        foreach (BuildMeasurement b in _builds)
        {
            md.AppendLine($"| {b.Volume} | {b.Variant} | {b.Kind} | {b.Run} | {b.WallSeconds:0.0} s | {Ms(b.CopyTaskMilliseconds)} | {b.FilesWritten} | {MiB(b.DiskUsedBytes)} | {b.LoadAverageBefore:0.00} |");
        }

        md.AppendLine();
        md.AppendLine("The JSON file beside this one has the same data, unrounded.");
        return md.ToString();
    }

    private string Json()
    {
        var document = new
        {
            tool = "Microsoft.Build.CopyOnWrite.Measure",
            measuredUtc = _when,
            package = new { version = _session.PackageVersion },
            target = Display(_options.Target),
            root = Display(_options.Root!),
            runs = _options.Runs,
            configuration = _options.Configuration,
            touch = _options.Touch,
            machine = _machine,
            volumes = _volumes.Select(v => new { label = v.Label, fileSystem = v.FileSystem, description = v.Description }),
            bar = BarLines().Select(l => l.Replace("**", string.Empty, StringComparison.Ordinal)),
            aggregates = _aggregates,
            builds = _builds.Select(b => b with { LogFile = Path.GetFileName(b.LogFile) }),
        };
        return JsonSerializer.Serialize(document, new JsonSerializerOptions { WriteIndented = true, PropertyNamingPolicy = JsonNamingPolicy.CamelCase, NumberHandling = System.Text.Json.Serialization.JsonNumberHandling.AllowNamedFloatingPointLiterals });
    }

    /// <summary>Paths inside the repository are shown relative to it, so a committed report names no machine's folders.</summary>
    private static string Display(string path)
    {
        string current = Environment.CurrentDirectory;
        string relative = Path.GetRelativePath(current, path);
        return relative.StartsWith("..", StringComparison.Ordinal) ? path : relative;
    }

    public static string Ms(double milliseconds) => double.IsNaN(milliseconds) ? "n/a" : milliseconds >= 10_000 ? $"{milliseconds / 1000:0.0} s" : $"{milliseconds:0} ms";

    public static string MiB(double bytes) => double.IsNaN(bytes) ? "n/a" : string.Create(CultureInfo.InvariantCulture, $"{bytes / 1048576.0:0.0} MiB");
}
