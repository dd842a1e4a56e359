using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Microsoft.Build.CopyOnWrite.Measure.Forecast;

/// <summary>The forecast as a person reads it (console) and as a program reads it (--json).</summary>
internal static class ForecastReport
{
    private const int ProjectRows = 10;

    public static string Text(CopyForecast f)
    {
        var text = new StringBuilder();
        string tasks = f.OurCopyTasks == 0 ? "MSBuild's own" : f.OurCopyTasks == f.CopyTasks ? "Microsoft.Build.CopyOnWrite's" : $"{f.OurCopyTasks} of them Microsoft.Build.CopyOnWrite's";
        text.AppendLine($"Forecast from {f.BinaryLog}");
        text.AppendLine($"  build {(f.BuildSucceeded ? "succeeded" : "FAILED (the forecast covers what it copied before it stopped)")} in {Seconds(f.WallSeconds)} of wall time; {f.CopyTasks} Copy tasks ({tasks})");
        text.AppendLine();
        text.AppendLine("What cloning could give this build");
        var rows = new List<string[]>
        {
            new[] { "files written by Copy", $"{f.Written}", $"(and {f.Linked} linked, {f.SkippedUnchanged} skipped as up to date: no work for a clone)" },
            new[] { "already clones", $"{f.AlreadyCloned} files, {MiB(f.AlreadyClonedBytes)}", f.AlreadyCloned == 0 ? "none: no Copy of this build cloned" : AlreadyText(f) },
            new[] { "would clone", $"{f.Clonable} files, {MiB(f.ClonableBytes)}", "copied today; clones if source and destination were on one clone-capable volume, with our Copy" },
            new[] { $"  of them up to {FileSizeText.Format(CopyForecast.NoGainBytes - 1)}", $"{f.Small} files, {MiB(f.SmallBytes)}", "a clone saves them no time (docs/results/benchmarks.md), only disk space" },
            new[] { "not counted", $"{f.Empty + f.NotOnDisk + f.NotRegular} files", $"({f.Empty} empty, {f.NotOnDisk} no longer on disk, {f.NotRegular} not regular files)" },
            new[] { "time in Copy", MeasurementReport.Ms(f.CopyMilliseconds), $"summed over the {f.CopyTasks} tasks (MSBuild's performance summary adds up the same)" },
            new[] { "ceiling on time saved", $"{MeasurementReport.Ms(f.CopyWallMilliseconds)} of {Seconds(f.WallSeconds)} ({Percent(f.CopyWallMilliseconds / 1000, f.WallSeconds)})", "wall time while a Copy with files to clone ran: the Copy on the critical path lies within it" },
            new[] { "disk the copies take", MiB(f.OutputBytes), "what the copied outputs would stop taking as clones (each destination once; files already cloned take none and are not counted)" },
        };
        Align(text, rows);

        text.AppendLine();
        text.AppendLine("By volume, source -> destination");
        var pairs = new List<string[]> { new[] { "source", "destination", "files", "bytes", $"<= {FileSizeText.Format(CopyForecast.NoGainBytes - 1)}", "clones there today?" } };
        pairs.AddRange(f.PairsByGain.Select(p => new[]
        {
            Volume(p.Source) + (p.Where is null ? string.Empty : $" [{p.Where}]"),
            p.SameVolume ? "same volume" : Volume(p.Destination),
            $"{p.Files}",
            MiB(p.Bytes),
            $"{p.SmallFiles}",
            Today(p),
        }));
        Align(text, pairs);

        text.AppendLine();
        text.AppendLine($"Which move unlocks most: {Move(f)}");

        text.AppendLine();
        text.AppendLine(f.Projects.Count > ProjectRows ? $"Time in Copy by project (the {ProjectRows} longest of {f.Projects.Count})" : "Time in Copy by project");
        var projects = new List<string[]> { new[] { "project", "time in Copy", "tasks", "files to clone", "bytes" } };
        projects.AddRange(f.Projects.Take(ProjectRows).Select(p => new[] { p.Project, MeasurementReport.Ms(p.CopyMilliseconds), $"{p.CopyTasks}", $"{p.Files}", MiB(p.Bytes) }));
        Align(text, projects);
        return text.ToString();
    }

    /// <summary>The one line that says which move unlocks most, and how.</summary>
    public static string Move(CopyForecast f)
    {
        CopiesBetweenVolumes? best = f.BestMove;
        long total = f.ClonableBytes;
        if (best is null)
        {
            string within = string.Join(", ", f.Pairs.Select(p => Volume(p.Source)).Distinct());
            return total > 0
                ? $"none: all {MiB(total)} are copied within a volume that clones ({within}), by a Copy that does not clone there: our Copy would clone them."
                : f.AlreadyCloned > 0
                    ? $"none: the {MiB(f.AlreadyClonedBytes)} the build copied are clones already ({within}); our SDK would save no disk or time here, it adds knowing and reporting what cloned, Required on CI, and atomic replace."
                    : "none: the build copied nothing a clone could take over.";
        }

        string share = $"{MiB(best.Bytes)} of {MiB(total)}";
        if (best.SameVolume)
        {
            return best.Source.CanClone == false
                ? $"{share} are copied within {Volume(best.Source)}, which cannot clone: put the repository and its package cache on one {CloneCapable()}."
                : $"{share} are copied within {Volume(best.Source)}, which may not clone ({best.Source.Evidence}): check it, or use a {CloneCapable()}.";
        }

        string from = best.Where ?? Volume(best.Source);
        string onto = best.Destination.CanClone == true
            ? $"move it onto {Volume(best.Destination)}, beside the outputs"
            : $"{Volume(best.Destination)} cannot clone either ({best.Destination.Evidence}): put it and the repository on one {CloneCapable()}";
        string cannotMove = best.Where?.StartsWith("the .NET installation", StringComparison.Ordinal) == true
            ? " (the installation itself cannot move: install .NET on that volume, or put the outputs beside it)"
            : string.Empty;
        string packageHint = best.Where?.StartsWith("the NuGet package cache", StringComparison.Ordinal) == true && best.Destination.CanClone == true
            ? $" (NUGET_PACKAGES={System.IO.Path.Combine(best.Destination.MountPoint, ".nuget", "packages")}, then dotnet restore)"
            : string.Empty;
        return $"{share} come from {from} to {Volume(best.Destination)}: {onto}{packageHint}{cannotMove}.";
    }

    public static string Json(CopyForecast f)
        => JsonSerializer.Serialize(
            new
            {
                f.BinaryLog,
                f.BuildSucceeded,
                f.WallSeconds,
                f.CopyTasks,
                f.OurCopyTasks,
                filesWritten = f.Written,
                f.Linked,
                f.SkippedUnchanged,
                alreadyClones = new { files = f.AlreadyCloned, bytes = f.AlreadyClonedBytes },
                wouldClone = new { files = f.Clonable, bytes = f.ClonableBytes },
                noGain = new { atMostBytes = CopyForecast.NoGainBytes - 1, files = f.Small, bytes = f.SmallBytes },
                notCounted = new { empty = f.Empty, notOnDisk = f.NotOnDisk, notRegular = f.NotRegular },
                copyMilliseconds = f.CopyMilliseconds,
                ceilingMilliseconds = f.CopyWallMilliseconds,
                outputBytes = f.OutputBytes,
                pairs = f.PairsByGain.Select(p => new { source = p.Source, destination = p.Destination, p.Where, p.Files, p.Bytes, p.SmallFiles, p.SmallBytes, p.SameVolume, p.ClonesHere, p.AlreadyCloned, p.AlreadyClones }),
                bestMove = Move(f),
                projects = f.Projects,
            },
            ToolJson.Options);

    private static string Today(CopiesBetweenVolumes p) => p.AlreadyClones
        ? "yes, already: the build's Copy cloned them"
        : p.ClonesHere
        ? p.AlreadyCloned > 0 ? $"{p.AlreadyCloned} of {p.Files} already; the volume clones" : "the volume clones; the build's Copy copied"
        : p.SameVolume
            ? p.Source.CanClone == false ? $"no: {p.Source.FileSystem} cannot clone" : $"unknown ({p.Source.Evidence})"
            : "no: two volumes";

    /// <summary>Why files are clones already, and what our SDK adds where they are: no disk, no time.</summary>
    private static string AlreadyText(CopyForecast f)
        => (f.OurCopyTasks == f.CopyTasks ? "our Copy cloned them" : "the build's Copy cloned them (MSBuild's own Copy clones there: File.Copy on Linux and macOS, CopyFile on a Windows 11 24H2 Dev Drive)")
            + ": not written, thanks to clones, with or without our SDK; over MSBuild's own Copy our SDK saves no disk or time on them, and adds knowing what cloned, Required on CI, atomic replace";

    private static string Volume(BuildVolume v) => $"{v.MountPoint} ({v.FileSystem}{(OperatingSystem.IsLinux() ? ", dev " + v.Key : string.Empty)})";

    private static string CloneCapable()
        => OperatingSystem.IsWindows() ? "Dev Drive (ReFS)" : OperatingSystem.IsMacOS() ? "APFS volume" : "clone-capable volume (XFS with reflink, or btrfs)";

    private static void Align(StringBuilder text, List<string[]> rows)
    {
        int columns = rows.Max(r => r.Length);
        int[] widths = Enumerable.Range(0, columns).Select(c => rows.Max(r => c < r.Length ? r[c].Length : 0)).ToArray();
        foreach (string[] row in rows)
        {
            text.AppendLine(("  " + string.Join("  ", row.Select((cell, c) => c == row.Length - 1 ? cell : cell.PadRight(widths[c])))).TrimEnd());
        }
    }

    private static string MiB(long bytes) => MeasurementReport.MiB(bytes);

    private static string Seconds(double seconds) => string.Create(CultureInfo.InvariantCulture, $"{seconds:0.0} s");

    private static string Percent(double part, double whole) => whole > 0 ? string.Create(CultureInfo.InvariantCulture, $"{100 * part / whole:0.0}%") : "n/a";
}
