using System;
using System.Collections.Generic;
using System.Linq;

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
