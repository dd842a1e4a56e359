using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Measure;

// The two comparisons the report keeps apart, and every aggregate in full, as rows rather than text, so that the
// console and Markdown render the same cells.
internal sealed partial class MeasurementReport
{
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

    private static string Versus(double value, double reference, Func<double, string> format, bool ratio = true)
    {
        if (double.IsNaN(value) || double.IsNaN(reference))
        {
            return "n/a";
        }

        string text = $"{format(value)} / {format(reference)}";
        return ratio && reference > 0 ? $"{text} ({(value / reference).ToString("0.00", CultureInfo.InvariantCulture)})" : text;
    }
}
