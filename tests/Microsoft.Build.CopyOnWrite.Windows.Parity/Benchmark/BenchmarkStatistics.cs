using System;
using System.Collections.Generic;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity.Benchmark;

/// <summary>Where a cell's times lie: its median and the spread around it.</summary>
/// <remarks>Quartiles interpolate linearly between order statistics (the "inclusive" rule: Excel's QUARTILE.INC,
/// numpy's default), so a handful of rounds still gives a usable spread and 4 samples are not reported as 2.</remarks>
internal readonly record struct BenchmarkSummary(int Count, double Min, double LowerQuartile, double Median, double UpperQuartile, double Max)
{
    public double InterquartileRange => UpperQuartile - LowerQuartile;

    /// <exception cref="ArgumentException">No samples, or one that is not a finite number.</exception>
    public static BenchmarkSummary Of(IEnumerable<double> samples)
    {
        double[] sorted = samples.ToArray();
        if (sorted.Length == 0)
        {
            throw new ArgumentException("a summary needs at least one sample", nameof(samples));
        }

        if (sorted.Any(s => double.IsNaN(s) || double.IsInfinity(s)))
        {
            throw new ArgumentException("samples must be finite numbers", nameof(samples));
        }

        Array.Sort(sorted);
        return new BenchmarkSummary(sorted.Length, sorted[0], Quantile(sorted, 0.25), Quantile(sorted, 0.5), Quantile(sorted, 0.75), sorted[^1]);
    }

    /// <summary>The <paramref name="fraction"/> quantile of already sorted samples.</summary>
    public static double Quantile(IReadOnlyList<double> sorted, double fraction)
    {
        if (sorted.Count == 0 || fraction < 0 || fraction > 1)
        {
            throw new ArgumentOutOfRangeException(nameof(fraction), "needs samples and a fraction from 0 to 1");
        }

        double position = fraction * (sorted.Count - 1);
        int below = (int)Math.Floor(position);
        int above = Math.Min(below + 1, sorted.Count - 1);
        return sorted[below] + ((position - below) * (sorted[above] - sorted[below]));
    }

    /// <summary>
    /// This median over the reference's (below 1: faster than the reference). Null when the reference median is
    /// not above zero, where a ratio would be infinite or meaningless.
    /// </summary>
    public double? RatioTo(BenchmarkSummary reference) => reference.Median > 0 ? Median / reference.Median : null;
}
