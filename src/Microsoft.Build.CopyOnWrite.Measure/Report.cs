using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

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

/// <summary>
/// The report: what each volume is, then the two comparisons kept apart - on each volume our Copy task against the
/// stock one (what the task brings there), and across volumes the same task (what the file system brings) - then
/// the notes a reader needs to read them right, the machine, the method and every number.
/// </summary>
internal sealed class MeasurementReport
{
    private readonly Options _options;
    private readonly Session _session;
    private readonly MachineInfo _machine;
    private readonly IReadOnlyList<MeasuredVolume> _volumes;
    private readonly List<BuildMeasurement> _builds;
    private readonly List<Aggregate> _aggregates;
    private readonly DateTime _when = DateTime.UtcNow;

    public MeasurementReport(Options options, Session session, MachineInfo machine, IReadOnlyList<MeasuredVolume> volumes, List<BuildMeasurement> builds)
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
                Stat.Of(g.Select(b => b.DiskUsedBytes is long d ? d : double.NaN)),
                Stat.Of(g.Select(b => (double)b.AddedApparentBytes)),
                Stat.Of(g.Select(b => b.FlushSecondsAfter ?? double.NaN))))
            .ToList();
    }

    internal IReadOnlyList<Aggregate> Aggregates => _aggregates;

    internal IReadOnlyList<string> Volumes => _volumes.Select(v => v.Label).ToList();

    internal string Title => $"Microsoft.Build.CopyOnWrite on {TargetName}: clean builds, median of {_options.Runs}";

    private string TargetName => Path.GetFileName(_options.Target.TrimEnd('/', '\\'));

    private static string[] Variants => [Builds.OurVariant, Builds.StockVariant];

    private IEnumerable<string> Kinds => _options.Incremental ? ["clean", "incremental"] : ["clean"];

    /// <summary>Across volumes, each is set against the first that cannot clone (else the first named).</summary>
    private MeasuredVolume Baseline => _volumes.FirstOrDefault(v => v.Identity.CanClone == false) ?? _volumes[0];

    private Aggregate? Find(string volume, string variant, string kind) => _aggregates.FirstOrDefault(a => a.Volume == volume && a.Variant == variant && a.Kind == kind);

    public void WriteAll(string folder)
    {
        File.WriteAllText(Path.Combine(folder, "measurement.md"), Markdown());
        File.WriteAllText(Path.Combine(folder, "measurement.json"), Json());
        File.WriteAllText(Path.Combine(folder, "chart.svg"), Chart.Svg(this));
    }

    /// <summary>What the tool prints at the end: the volumes, both comparisons, the notes.</summary>
    public string ConsoleText()
    {
        var text = new StringBuilder();
        text.AppendLine("Volumes");
        foreach (MeasuredVolume v in _volumes)
        {
            text.AppendLine($"  {v.Label}: {v.Identity.FileSystem}{DevDriveText(v)}, {CloneText(v)} ({v.Identity.CloneEvidence}); stock Copy task clones there: {YesNo(v.Identity.StockCopyClones)}; {v.Folder}");
        }

        text.AppendLine();
        foreach (string line in Table(EachVolumeRows(), plain: true))
        {
            text.AppendLine(line);
        }

        text.AppendLine();
        foreach (string line in Table(AcrossVolumesRows(), plain: true))
        {
            text.AppendLine(line);
        }

        foreach (string kind in Kinds)
        {
            text.AppendLine();
            text.AppendLine($"{(kind == "clean" ? "Clean" : "Incremental")} builds, median of {_options.Runs} (min – max in measurement.md)");
            foreach (string line in Table(AllRows(kind, spread: false), plain: true))
            {
                text.AppendLine(line);
            }
        }

        text.AppendLine();
        foreach (string note in Notes())
        {
            text.AppendLine("- " + note.Replace("**", string.Empty, StringComparison.Ordinal));
        }

        return text.ToString().TrimEnd();
    }

    private string Markdown()
    {
        var md = new StringBuilder();
        md.AppendLine($"# What copy-on-write saves: {TargetName}");
        md.AppendLine();
        md.AppendLine($"Measured on {_when:yyyy-MM-dd} with Microsoft.Build.CopyOnWrite {_session.PackageVersion} by its measurement tool:");
        md.AppendLine();
        md.AppendLine("```");
        md.AppendLine(CommandText());
        md.AppendLine("```");
        md.AppendLine();
        md.AppendLine("## Volumes");
        md.AppendLine();
        md.AppendLine("| Volume | Folder | File system | Can clone | How we know | Stock Copy task clones there |");
        md.AppendLine("| --- | --- | --- | --- | --- | --- |");
        foreach (MeasuredVolume v in _volumes)
        {
            md.AppendLine($"| {v.Label} | `{Display(v.Folder)}` ({v.Kind}) | {v.Identity.FileSystem}{DevDriveText(v)} | {YesNo(v.Identity.CanClone)} | {v.Identity.CloneEvidence} | {YesNo(v.Identity.StockCopyClones)} |");
        }

        md.AppendLine();
        md.AppendLine("## On each volume: our Copy task against the stock one");
        md.AppendLine();
        md.AppendLine("Clean builds, medians. The ratio is ours ÷ stock: below 1 ours takes less.");
        md.AppendLine();
        Table(EachVolumeRows(), plain: false).ForEach(line => md.AppendLine(line));
        md.AppendLine();
        md.AppendLine("## Across volumes: the same Copy task");
        md.AppendLine();
        md.AppendLine($"Clean builds, medians, against {Baseline.Label}. The ratio is this volume ÷ {Baseline.Label}: below 1 this volume takes less.");
        md.AppendLine();
        Table(AcrossVolumesRows(), plain: false).ForEach(line => md.AppendLine(line));
        md.AppendLine();
        md.AppendLine("## Reading these numbers");
        md.AppendLine();
        Notes().ToList().ForEach(note => md.AppendLine("- " + note));
        md.AppendLine();
        md.AppendLine("![Time in Copy, disk space and build time per volume](chart.svg)");
        md.AppendLine();
        md.AppendLine("## Machine");
        md.AppendLine();
        md.AppendLine("| | |");
        md.AppendLine("| --- | --- |");
        md.AppendLine($"| CPU | {_machine.Cpu}, {_machine.Cores} logical cores |");
        md.AppendLine($"| Memory | {_machine.Memory} |");
        md.AppendLine($"| OS | {_machine.OperatingSystem} |");
        md.AppendLine($"| .NET SDK | {_machine.DotnetSdk} (MSBuild {_machine.Msbuild}) |");
        md.AppendLine();
        md.AppendLine("## Method");
        md.AppendLine();
        md.AppendLine($"- On each volume the tool works in a folder of its own: the tree ({Display(_options.Root)}, without bin/, obj/ and .git/) is copied there with a package cache (`NUGET_PACKAGES`) of its own beside it, Microsoft.Build.CopyOnWrite {_session.PackageVersion} is installed in that cache, and the tree is restored once. The folder is removed at the end.");
        md.AppendLine("- Two Copy tasks: **copy-on-write** (ours, imported into every project) and **stock** (`-p:DisableCopyOnWrite=true`, MSBuild's own).");
        md.AppendLine($"- Each volume: one unmeasured warm-up build, then {_options.Runs} rounds; each round builds with both tasks (alternating which goes first), each a **clean build** (every file a build added is deleted first, as `git clean -fdx` after restore){(_options.Incremental ? $" followed by an **incremental build** ({(_options.Touch is null ? "nothing changed" : $"after touching `{_options.Touch}`")})" : string.Empty)}.");
        md.AppendLine($"- Every build is `dotnet build --no-restore -c {_options.Configuration} -v:n -clp:PerformanceSummary` in a fresh MSBuild process (no node reuse, no build server), with the default parallelism.");
        md.AppendLine("- **Build**: wall-clock time of the `dotnet build` process. **In Copy**: the `Copy` row of MSBuild's task performance summary (all Copy invocations, summed over nodes).");
        md.AppendLine("- **Cloned / copied**: for our task, exact counts from the build-wide summary logger's data file (`CopyOnWriteSummaryLogger`, `SummaryFile=`); for the stock task, the `Copying file from` lines and the sizes of those destinations (it cannot say whether `File.Copy` cloned).");
        md.AppendLine($"- **Flush after**: how long flushing the volume ({_session.Platform.FlushMethod}) took right after the build: the write-back still owed for what the build wrote. Byte copies land in the page cache, so part of their cost is paid here, after the Copy task returned; clones owe almost nothing. Not part of the build time.");
        md.AppendLine("- **Disk used**: the file system's used space after the build minus before it (each read after a flush, once it stops moving), so data shared by clones counts once. **Apparent size**: the sum of the sizes of the files the build created or rewrote (what byte copies would write).");
        md.AppendLine();
        foreach (string kind in Kinds)
        {
            md.AppendLine(kind == "clean" ? "## Clean builds" : "## Incremental builds");
            md.AppendLine();
            md.AppendLine("Median (min – max) over the runs.");
            md.AppendLine();
            Table(AllRows(kind, spread: true), plain: false).ForEach(line => md.AppendLine(line));
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
            md.AppendLine($"| {b.Volume} | {b.Variant} | {b.Kind} | {b.Run} | {b.WallSeconds:0.0} s | {Ms(b.CopyTaskMilliseconds)} | {b.FilesWritten} | {(b.DiskUsedBytes is long d ? MiB(d) : "n/a")} | {(b.LoadAverageBefore is double l ? l.ToString("0.00", CultureInfo.InvariantCulture) : "n/a")} |");
        }

        md.AppendLine();
        md.AppendLine("The JSON file beside this one has the same data, unrounded.");
        return md.ToString();
    }

    private string Json()
    {
        var document = new
        {
            tool = "dotnet-cow-measure",
            measuredUtc = _when,
            package = new { version = _session.PackageVersion },
            command = CommandText(),
            target = Display(_options.Target),
            root = Display(_options.Root),
            runs = _options.Runs,
            configuration = _options.Configuration,
            incremental = _options.Incremental,
            touch = _options.Touch,
            machine = _machine,
            volumes = _volumes.Select(v => new
            {
                label = v.Label,
                requested = v.Requested,
                folder = v.Folder,
                kind = v.Kind,
                dedicated = v.Dedicated,
                fileSystem = v.Identity.FileSystem,
                canClone = v.Identity.CanClone,
                cloneEvidence = v.Identity.CloneEvidence,
                stockCopyClones = v.Identity.StockCopyClones,
                devDrive = v.Identity.DevDrive,
                trustedDevDrive = v.Identity.TrustedDevDrive,
                volumeRoot = v.Identity.VolumeRoot,
                usedSpaceCaveat = v.Identity.UsedSpaceCaveat,
            }),
            baseline = Baseline.Label,
            notMeasured = _session.NotMeasured,
            notes = Notes().Select(n => n.Replace("**", string.Empty, StringComparison.Ordinal)),
            aggregates = _aggregates,
            builds = _builds.Select(b => b with { LogFile = Path.GetFileName(b.LogFile) }),
        };
        return JsonSerializer.Serialize(document, new JsonSerializerOptions
        {
            WriteIndented = true,
            PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
            NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
        });
    }

    /// <summary>Ours against stock on each volume, clean builds.</summary>
    private List<string[]> EachVolumeRows()
    {
        var rows = new List<string[]> { new[] { "On each volume", "build (ours / stock)", "in Copy (ours / stock)", "disk used (ours / stock)", "files cloned by ours" } };
        foreach (MeasuredVolume v in _volumes)
        {
            Aggregate? ours = Find(v.Label, Builds.OurVariant, "clean");
            Aggregate? stock = Find(v.Label, Builds.StockVariant, "clean");
            if (ours is null || stock is null)
            {
                continue;
            }

            rows.Add([
                v.Label,
                Versus(ours.WallSeconds.Median, stock.WallSeconds.Median, Seconds),
                Versus(ours.CopyMilliseconds.Median, stock.CopyMilliseconds.Median, Ms),
                Versus(ours.DiskUsedBytes.Median, stock.DiskUsedBytes.Median, MiB, ratio: false),
                ours.ClonedFiles.Count == 0 ? "?" : $"{ours.ClonedFiles.Median:0} of {ours.FilesWritten.Median:0}",
            ]);
        }

        return rows;
    }

    /// <summary>Each task on each volume against the same task on the baseline volume, clean builds.</summary>
    private List<string[]> AcrossVolumesRows()
    {
        MeasuredVolume baseline = Baseline;
        var rows = new List<string[]> { new[] { $"Across volumes (against {baseline.Label})", "Copy task", "build", "in Copy", "disk used" } };
        if (_volumes.Count < 2)
        {
            rows.Add(["(one volume measured: name a second --volume to compare file systems)", string.Empty, string.Empty, string.Empty, string.Empty]);
            return rows;
        }

        foreach (MeasuredVolume v in _volumes.Where(v => v != baseline))
        {
            foreach (string variant in Variants)
            {
                Aggregate? here = Find(v.Label, variant, "clean");
                Aggregate? there = Find(baseline.Label, variant, "clean");
                if (here is null || there is null)
                {
                    continue;
                }

                rows.Add([
                    $"{v.Label} vs {baseline.Label}",
                    variant,
                    Versus(here.WallSeconds.Median, there.WallSeconds.Median, Seconds),
                    Versus(here.CopyMilliseconds.Median, there.CopyMilliseconds.Median, Ms),
                    Versus(here.DiskUsedBytes.Median, there.DiskUsedBytes.Median, MiB, ratio: false),
                ]);
            }
        }

        return rows;
    }

    private List<string[]> AllRows(string kind, bool spread)
    {
        Func<Stat, Func<double, string>, string> show = spread ? (s, f) => s.Format(f) : (s, f) => s.Count == 0 ? "n/a" : f(s.Median);
        var rows = new List<string[]> { new[] { "Volume", "Copy task", "build", "in Copy", "Copy calls", "cloned", "copied", "disk used", "apparent size", "flush after" } };
        foreach (MeasuredVolume v in _volumes)
        {
            foreach (string variant in Variants)
            {
                if (Find(v.Label, variant, kind) is not Aggregate a)
                {
                    continue;
                }

                bool known = a.ClonedFiles.Count > 0;
                rows.Add([
                    v.Label,
                    variant,
                    show(a.WallSeconds, Seconds),
                    show(a.CopyMilliseconds, Ms),
                    $"{a.CopyCalls.Median:0}",
                    known ? $"{a.ClonedFiles.Median:0} ({MiB(a.ClonedBytes.Median)})" : "?",
                    known ? $"{a.FilesWritten.Median - a.ClonedFiles.Median:0} ({MiB(a.BytesWritten.Median - a.ClonedBytes.Median)})" : $"{a.FilesWritten.Median:0} ({MiB(a.BytesWritten.Median)}) written",
                    show(a.DiskUsedBytes, MiB),
                    MiB(a.AddedApparentBytes.Median),
                    show(a.FlushSeconds, s => $"{s:0.00} s"),
                ]);
            }
        }

        return rows;
    }

    /// <summary>What a reader must know to read the comparisons right, from what was measured here.</summary>
    internal IEnumerable<string> Notes()
    {
        List<MeasuredVolume> devDrives = _volumes.Where(v => v.Identity.DevDrive == true).ToList();
        if (devDrives.Count > 0)
        {
            string trust = string.Join("; ", devDrives.Select(v => $"{v.Label} is {(v.Identity.TrustedDevDrive == true ? "trusted" : "not trusted")}"));
            yield return "**On a Dev Drive, part of any gain over NTFS is the file system itself, not cloning**: ReFS handles metadata differently, and on a trusted Dev Drive Microsoft Defender scans in performance mode (after a file is opened, not before). "
                + $"What cloning adds shows in ours against stock on the same Dev Drive ({trust}).";
        }

        List<MeasuredVolume> stockClones = _volumes.Where(v => v.Identity.StockCopyClones == true).ToList();
        if (OperatingSystem.IsLinux())
        {
            yield return "**On Linux the stock Copy task clones too** wherever the file system can (XFS with reflink, btrfs): .NET's `File.Copy` tries FICLONE first. "
                + (stockClones.Count > 0
                    ? $"So on {string.Join(", ", stockClones.Select(v => v.Label))} ours against stock shows the difference between the two tasks (ours replaces files atomically and accounts for every file), not what cloning brings; what cloning brings shows across volumes."
                    : "None of the volumes measured here can clone, so neither task cloned.");
        }
        else if (OperatingSystem.IsMacOS())
        {
            yield return "**On macOS the stock Copy task clones too** on APFS: .NET's `File.Copy` tries clonefile first. So there ours against stock shows the difference between the two tasks, not what cloning brings; what cloning brings shows across volumes.";
        }
        else if (OperatingSystem.IsWindows())
        {
            yield return stockClones.Count > 0
                ? $"**On this Windows the stock Copy task clones too** on {string.Join(", ", stockClones.Select(v => v.Label))}: from Windows 11 24H2 (build {Platforms.WindowsPlatform.FirstBuildWhoseCopyFileClones}) CopyFile block-clones by itself on ReFS. So there ours against stock shows the difference between the two tasks, not what cloning brings."
                : "On this Windows the stock Copy task copies every byte (CopyFile block-clones by itself only from Windows 11 24H2): ours against stock on a volume that can clone is what cloning brings.";
        }

        yield return $"Across volumes the same Copy task runs on different file systems: the difference is the file system's, cloning included where it can clone. Ratios are against {Baseline.Label}.";
        foreach (MeasuredVolume v in _volumes.Where(v => !v.Dedicated))
        {
            yield return $"Disk used on {v.Label} is the whole file system's change during the build, and other programs write to it too: indicative only.{(v.Identity.UsedSpaceCaveat is string caveat ? " " + caveat + "." : string.Empty)}";
        }

        foreach ((string what, string why) in _session.NotMeasured)
        {
            yield return $"{what}: not measured here ({why}).";
        }

        if (_options.Runs < 3)
        {
            yield return $"{_options.Runs} run{(_options.Runs == 1 ? string.Empty : "s")} per volume and task: too few for a spread; differences of a few percent in build time are noise on a shared machine.";
        }
    }

    private string CommandText()
    {
        var text = new StringBuilder("dotnet-cow-measure ").Append(Quote(Display(_options.Target)));
        foreach (MeasuredVolume v in _volumes)
        {
            text.Append(" --volume ").Append(Quote(MeasuredVolume.LoopKinds.Contains(v.Requested) ? v.Requested : Display(v.Folder)));
        }

        text.Append(" --runs ").Append(_options.Runs);
        if (!_options.Incremental)
        {
            text.Append(" --no-incremental");
        }

        if (_options.Touch is not null)
        {
            text.Append(" --touch ").Append(Quote(_options.Touch));
        }

        if (_options.Root != (Directory.Exists(_options.Target) ? _options.Target : Path.GetDirectoryName(_options.Target)))
        {
            text.Append(" --root ").Append(Quote(Display(_options.Root)));
        }

        if (_options.Configuration != "Debug")
        {
            text.Append(" -c ").Append(_options.Configuration);
        }

        return text.ToString();
    }

    /// <summary>Rows as aligned plain text, or as a Markdown table.</summary>
    private static List<string> Table(List<string[]> rows, bool plain)
    {
        if (!plain)
        {
            var md = new List<string> { "| " + string.Join(" | ", rows[0]) + " |", "|" + string.Concat(rows[0].Select((_, i) => i < 2 ? " --- |" : " ---: |")) };
            md.AddRange(rows.Skip(1).Select(r => "| " + string.Join(" | ", r) + " |"));
            return md;
        }

        int[] widths = Enumerable.Range(0, rows[0].Length).Select(i => rows.Max(r => r[i].Length)).ToArray();
        return rows.Select(r => string.Join("  ", r.Select((cell, i) => i == 0 ? cell.PadRight(widths[i]) : cell.PadLeft(widths[i]))).TrimEnd()).ToList();
    }

    private static string Versus(double value, double reference, Func<double, string> format, bool ratio = true)
    {
        if (double.IsNaN(value) || double.IsNaN(reference))
        {
            return "n/a";
        }

        string text = $"{format(value)} / {format(reference)}";
        return ratio && reference > 0 ? $"{text} ({(value / reference).ToString("0.00", CultureInfo.InvariantCulture)})" : text;
    }

    private static string DevDriveText(MeasuredVolume v) => v.Identity.DevDrive switch
    {
        true => $" (Dev Drive, {(v.Identity.TrustedDevDrive == true ? "trusted" : "not trusted")})",
        _ => string.Empty,
    };

    private static string CloneText(MeasuredVolume v) => v.Identity.CanClone switch
    {
        true => "can clone",
        false => "cannot clone",
        null => "cloning unknown",
    };

    private static string YesNo(bool? value) => value switch { true => "yes", false => "no", null => "unknown" };

    private static string Quote(string text) => text.Contains(' ', StringComparison.Ordinal) ? $"\"{text}\"" : text;

    /// <summary>Paths under the current folder are shown relative to it, so a committed report names no machine's folders.</summary>
    private static string Display(string path)
    {
        string relative = Path.GetRelativePath(Environment.CurrentDirectory, path);
        return relative.StartsWith("..", StringComparison.Ordinal) || Path.IsPathRooted(relative) ? path : relative;
    }

    private static string Seconds(double seconds) => string.Create(CultureInfo.InvariantCulture, $"{seconds:0.0} s");

    public static string Ms(double milliseconds) => double.IsNaN(milliseconds) ? "n/a" : milliseconds >= 10_000 ? string.Create(CultureInfo.InvariantCulture, $"{milliseconds / 1000:0.0} s") : string.Create(CultureInfo.InvariantCulture, $"{milliseconds:0} ms");

    public static string MiB(double bytes) => double.IsNaN(bytes) ? "n/a" : string.Create(CultureInfo.InvariantCulture, $"{bytes / 1048576.0:0.0} MiB");
}
