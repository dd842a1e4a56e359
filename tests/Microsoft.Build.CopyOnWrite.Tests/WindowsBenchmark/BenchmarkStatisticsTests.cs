using System;
using Microsoft.Build.CopyOnWrite.Windows.Parity.Benchmark;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.WindowsBenchmark;

/// <summary>The Windows benchmark's median, quartiles and ratios, on samples whose answers are worked out by hand.</summary>
[TestClass]
public sealed class BenchmarkStatisticsTests
{
    private const double Exact = 1e-9;

    [TestMethod]
    public void An_odd_count_has_the_middle_sample_as_its_median_whatever_the_order_given()
    {
        BenchmarkSummary summary = BenchmarkSummary.Of(new double[] { 5, 1, 3 });

        Assert.AreEqual(3, summary.Count);
        Assert.AreEqual(1, summary.Min, Exact);
        Assert.AreEqual(3, summary.Median, Exact);
        Assert.AreEqual(5, summary.Max, Exact);
    }

    [TestMethod]
    public void Four_samples_interpolate_the_median_and_quartiles_between_neighbours()
    {
        BenchmarkSummary summary = BenchmarkSummary.Of(new double[] { 4, 1, 3, 2 });

        Assert.AreEqual(1.75, summary.LowerQuartile, Exact);
        Assert.AreEqual(2.5, summary.Median, Exact);
        Assert.AreEqual(3.25, summary.UpperQuartile, Exact);
        Assert.AreEqual(1.5, summary.InterquartileRange, Exact);
    }

    [TestMethod]
    public void Eleven_samples_put_the_quartiles_halfway_between_the_third_and_fourth_and_the_eighth_and_ninth()
    {
        var samples = new double[] { 110, 10, 100, 20, 90, 30, 80, 40, 70, 50, 60 };

        BenchmarkSummary summary = BenchmarkSummary.Of(samples);

        Assert.AreEqual(35, summary.LowerQuartile, Exact);
        Assert.AreEqual(60, summary.Median, Exact);
        Assert.AreEqual(85, summary.UpperQuartile, Exact);
    }

    [TestMethod]
    public void One_outlier_moves_the_maximum_but_not_the_median_or_the_quartiles()
    {
        BenchmarkSummary steady = BenchmarkSummary.Of(new double[] { 10, 11, 12, 13, 14 });
        BenchmarkSummary withOutlier = BenchmarkSummary.Of(new double[] { 10, 11, 12, 13, 5000 });

        Assert.AreEqual(steady.Median, withOutlier.Median, Exact);
        Assert.AreEqual(steady.LowerQuartile, withOutlier.LowerQuartile, Exact);
        Assert.AreEqual(steady.UpperQuartile, withOutlier.UpperQuartile, Exact);
        Assert.AreEqual(5000, withOutlier.Max, Exact);
    }

    [TestMethod]
    public void A_single_sample_is_its_own_median_and_has_no_spread()
    {
        BenchmarkSummary summary = BenchmarkSummary.Of(new double[] { 7 });

        Assert.AreEqual(7, summary.Min, Exact);
        Assert.AreEqual(7, summary.Median, Exact);
        Assert.AreEqual(7, summary.Max, Exact);
        Assert.AreEqual(0, summary.InterquartileRange, Exact);
    }

    [TestMethod]
    public void No_samples_or_a_non_number_cannot_be_summarised()
    {
        Assert.ThrowsExactly<ArgumentException>(() => BenchmarkSummary.Of(Array.Empty<double>()));
        Assert.ThrowsExactly<ArgumentException>(() => BenchmarkSummary.Of(new[] { 1, double.NaN }));
        Assert.ThrowsExactly<ArgumentException>(() => BenchmarkSummary.Of(new[] { double.PositiveInfinity }));
    }

    [TestMethod]
    public void The_ratio_is_this_median_over_the_reference_median()
    {
        BenchmarkSummary clone = BenchmarkSummary.Of(new double[] { 40, 50, 60 });
        BenchmarkSummary fileCopy = BenchmarkSummary.Of(new double[] { 190, 200, 900 });

        Assert.AreEqual(0.25, clone.RatioTo(fileCopy)!.Value, Exact);
        Assert.AreEqual(4, fileCopy.RatioTo(clone)!.Value, Exact);
    }

    [TestMethod]
    public void There_is_no_ratio_to_a_reference_whose_median_is_zero()
    {
        BenchmarkSummary some = BenchmarkSummary.Of(new double[] { 3 });
        BenchmarkSummary zero = BenchmarkSummary.Of(new double[] { 0, 0, 1 });

        Assert.IsNull(some.RatioTo(zero));
    }

    [TestMethod]
    public void A_quantile_fraction_outside_zero_to_one_is_refused()
    {
        Assert.ThrowsExactly<ArgumentOutOfRangeException>(() => BenchmarkSummary.Quantile(new double[] { 1, 2 }, 1.5));
        Assert.ThrowsExactly<ArgumentOutOfRangeException>(() => BenchmarkSummary.Quantile(Array.Empty<double>(), 0.5));
    }
}
