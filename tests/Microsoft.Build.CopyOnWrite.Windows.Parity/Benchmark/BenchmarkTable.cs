using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity.Benchmark;

/// <summary>What a folder's volume is, as the table header states it; each text says "unknown (why)" when not found.</summary>
internal sealed record FolderFacts(string Folder, string FileSystem, string Version, string BlockRefcounting, string OsCopyFileClones);

/// <summary>One cell's times in microseconds, or why it has none (<see cref="Note"/> may also qualify times).</summary>
internal sealed record BenchmarkCell(IReadOnlyList<double> Microseconds, string? Note = null)
{
    public static BenchmarkCell Unavailable(string why) => new(Array.Empty<double>(), why);
}

/// <summary>One row: a folder, a size and a kind of source, every method's cell, and what our engine said it did.</summary>
internal sealed record BenchmarkRow(string Folder, long Size, SourceKind Source, IReadOnlyDictionary<CopyMethod, BenchmarkCell> Cells, string EngineDid);

/// <summary>Everything the Markdown report says.</summary>
/// <param name="Machine">Label and value lines for the header (OS build, runtime, the stock task's version...).</param>
internal sealed record BenchmarkReport(IReadOnlyList<(string Label, string Value)> Machine, IReadOnlyList<FolderFacts> Folders, IReadOnlyList<BenchmarkRow> Rows, int Rounds, bool Smoke);

/// <summary>
/// Writes the benchmark's Markdown: the machine, one line per folder with its file system, then per folder one
/// table, a row per size and source and a column per method. No Windows calls, so it is unit tested on Linux.
/// </summary>
internal static class BenchmarkTable
{
    public static string MethodHeader(CopyMethod method) => method switch
    {
        CopyMethod.FileCopy => "File.Copy",
        CopyMethod.Engine => "our engine",
        CopyMethod.OurTask => "our Copy task",
        CopyMethod.StockTask => "MSBuild's Copy task",
        CopyMethod.CopyOnWriteLibrary => "CopyOnWrite library",
        _ => throw new ArgumentOutOfRangeException(nameof(method), method, null),
    };

    public static string SourceText(SourceKind source) => source == SourceKind.Fresh ? "fresh" : "settled";

    public static string Write(BenchmarkReport report)
    {
        var text = new StringBuilder();
        text.Append("# Copy time per file on Windows: Microsoft.Build.CopyOnWrite beside File.Copy and MSBuild's Copy\n\n");
        if (report.Smoke)
        {
            text.Append("**Smoke run**: a few rounds without warm-up, to show the benchmark works end to end. Its times are not worth quoting.\n\n");
        }

        text.Append("| | |\n|---|---|\n");
        foreach ((string label, string value) in report.Machine)
        {
            text.Append("| ").Append(Escape(label)).Append(" | ").Append(Escape(value)).Append(" |\n");
        }

        text.Append("\n| folder | file system | version | block refcounting | OS CopyFile clones by itself |\n|---|---|---|---|---|\n");
        foreach (FolderFacts folder in report.Folders)
        {
            text.Append("| ").Append(Code(folder.Folder))
                .Append(" | ").Append(Escape(folder.FileSystem))
                .Append(" | ").Append(Escape(folder.Version))
                .Append(" | ").Append(Escape(folder.BlockRefcounting))
                .Append(" | ").Append(Escape(folder.OsCopyFileClones)).Append(" |\n");
        }

        text.Append('\n')
            .Append("Time per file: median [interquartile range] of ").Append(report.Rounds.ToString(CultureInfo.InvariantCulture))
            .Append(report.Rounds == 1 ? " round" : " rounds")
            .Append(", and ×: that median over File.Copy's in the same row (below 1 is faster). ")
            .Append("Fresh: the source was written with buffered writes and closed just before the copy, never flushed. ")
            .Append("Settled: written, flushed, and last written over a minute before. ")
            .Append("Each round times every source and method once, alternating fresh and settled; the destination is new and on the source's volume.\n");

        List<CopyMethod> methods = BenchmarkPlan.AllMethods.ToList();
        foreach (IGrouping<string, BenchmarkRow> folder in report.Rows.GroupBy(r => r.Folder))
        {
            FolderFacts? facts = report.Folders.FirstOrDefault(f => f.Folder == folder.Key);
            text.Append("\n## ").Append(Code(folder.Key));
            if (facts is not null)
            {
                text.Append(" (").Append(Escape(facts.FileSystem)).Append(')');
            }

            text.Append("\n\n| size | source | ").Append(string.Join(" | ", methods.Select(MethodHeader))).Append(" | our engine did |\n")
                .Append("|---:|---|").Append(string.Concat(methods.Select(_ => "---:|"))).Append("---|\n");
            foreach (BenchmarkRow row in folder.OrderBy(r => r.Size).ThenBy(r => r.Source))
            {
                BenchmarkSummary? reference = row.Cells.TryGetValue(CopyMethod.FileCopy, out BenchmarkCell? fileCopy) && fileCopy.Microseconds.Count > 0
                    ? BenchmarkSummary.Of(fileCopy.Microseconds)
                    : null;
                text.Append("| ").Append(SizeText(row.Size)).Append(" | ").Append(SourceText(row.Source));
                foreach (CopyMethod method in methods)
                {
                    string cell = row.Cells.TryGetValue(method, out BenchmarkCell? found)
                        ? CellText(found, method == CopyMethod.FileCopy ? null : reference)
                        : "not measured";
                    text.Append(" | ").Append(cell);
                }

                text.Append(" | ").Append(Escape(row.EngineDid)).Append(" |\n");
            }
        }

        return text.ToString();
    }

    /// <summary>"95 µs [90–101] ×0.84": median, interquartile range in the median's unit, ratio to the reference.</summary>
    public static string CellText(BenchmarkCell cell, BenchmarkSummary? reference)
    {
        if (cell.Microseconds.Count == 0)
        {
            return Escape(cell.Note ?? "no samples");
        }

        BenchmarkSummary summary = BenchmarkSummary.Of(cell.Microseconds);
        string text = $"{Time(summary.Median, summary.Median)} [{Number(summary.LowerQuartile, summary.Median)}–{Number(summary.UpperQuartile, summary.Median)}]";
        if (reference is BenchmarkSummary baseline && summary.RatioTo(baseline) is double ratio)
        {
            // Clones of large files are hundreds of times faster: keep two significant digits down there too.
            text += " ×" + ratio.ToString(ratio < 0.1 ? "0.000" : ratio < 10 ? "0.00" : "0.0", CultureInfo.InvariantCulture);
        }

        return cell.Note is null ? text : text + " (" + Escape(cell.Note) + ")";
    }

    /// <summary>A time in the unit its row's median reads best in: µs below a millisecond, ms from there on.</summary>
    /// <remarks>The thresholds sit where a median would round up to the next unit or digit, so no median reads
    /// "1000 µs" or "10.00 ms": three significant digits at most, whatever the value.</remarks>
    public static string Time(double microseconds, double median) => Number(microseconds, median) + (median < 999.5 ? " µs" : " ms");

    private static string Number(double microseconds, double median)
    {
        if (median < 999.5)
        {
            return microseconds.ToString(median < 9.95 ? "0.0" : "0", CultureInfo.InvariantCulture);
        }

        double milliseconds = microseconds / 1000;
        string format = median < 9_995 ? "0.00" : median < 99_950 ? "0.0" : "0";
        return milliseconds.ToString(format, CultureInfo.InvariantCulture);
    }

    /// <summary>The way of naming sizes: 0 B, 1 KiB, 64 KiB, 16 MiB; other sizes in bytes.</summary>
    public static string SizeText(long bytes)
    {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0)
        {
            return (bytes >> 20).ToString(CultureInfo.InvariantCulture) + " MiB";
        }

        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0)
        {
            return (bytes >> 10).ToString(CultureInfo.InvariantCulture) + " KiB";
        }

        return bytes.ToString(CultureInfo.InvariantCulture) + " B";
    }

    /// <summary>
    /// What the engine said over every timed call of a row, most frequent first: "cloned", or
    /// "copied: FileSystemCannotClone (NTFS)", or "cloned ×14, copied: FileSystemRefused ×1" when it changed its mind.
    /// </summary>
    public static string Outcomes(IEnumerable<string> saidPerCall)
    {
        List<(string Said, int Count)> counts = saidPerCall
            .GroupBy(s => s, StringComparer.Ordinal)
            .Select(g => (g.Key, g.Count()))
            .OrderByDescending(c => c.Item2)
            .ThenBy(c => c.Key, StringComparer.Ordinal)
            .ToList();
        return counts.Count switch
        {
            0 => "not measured",
            1 => counts[0].Said,
            _ => string.Join(", ", counts.Select(c => $"{c.Said} ×{c.Count}")),
        };
    }

    /// <summary>Table cells may not hold a pipe or a line break; everything else Markdown shows as written.</summary>
    public static string Escape(string text) => text.Replace("|", "\\|", StringComparison.Ordinal).Replace("\r", string.Empty, StringComparison.Ordinal).Replace("\n", " ", StringComparison.Ordinal);

    /// <summary>A path as code, so that its backslashes stay backslashes.</summary>
    private static string Code(string path) => "`" + Escape(path).Replace("`", "'", StringComparison.Ordinal) + "`";
}
