using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Microsoft.Build.CopyOnWrite.Measure;

// The same findings in three forms, the console's, measurement.md and measurement.json (chart.svg is Chart's): each
// reads the comparisons and notes from the other parts, so a number or a note is worded once for all of them.
internal sealed partial class MeasurementReport
{
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
            tool = "dotnet cow-measure",
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
                volumeRoot = v.Identity.Root,
                usedSpaceCaveat = v.Identity.UsedSpaceCaveat,
            }),
            baseline = Baseline.Label,
            notMeasured = _session.NotMeasured,
            notes = Notes().Select(n => n.Replace("**", string.Empty, StringComparison.Ordinal)),
            aggregates = _aggregates,
            builds = _builds.Select(b => b with { LogFile = Path.GetFileName(b.LogFile) }),
        };
        return ToolJson.Write(document);
    }

    private string CommandText()
    {
        var text = new StringBuilder("dotnet cow-measure ").Append(Quote(Display(_options.Target)));
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
}
