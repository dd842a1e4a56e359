using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Windows.Parity.Benchmark;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.WindowsBenchmark;

/// <summary>The order in which a benchmark round times its cells: interleaved, never in blocks.</summary>
[TestClass]
public sealed class BenchmarkPlanTests
{
    private static readonly IReadOnlyList<CopyMethod> Timed = new[] { CopyMethod.FileCopy, CopyMethod.Engine, CopyMethod.OurTask, CopyMethod.StockTask };

    [TestMethod]
    public void Every_round_times_each_source_and_method_exactly_once()
    {
        for (int round = 0; round < 9; round++)
        {
            var order = BenchmarkPlan.Round(round, Timed);

            var expected = Timed.SelectMany(m => BenchmarkPlan.AllSources.Select(s => (s, m))).OrderBy(p => p).ToList();
            CollectionAssert.AreEqual(expected, order.OrderBy(p => p).ToList(), $"round {round}");
        }
    }

    [TestMethod]
    public void Fresh_and_settled_alternate_within_a_round_and_swap_which_goes_first_between_rounds()
    {
        var even = BenchmarkPlan.Round(0, Timed).Select(p => p.Source).ToList();
        var odd = BenchmarkPlan.Round(1, Timed).Select(p => p.Source).ToList();

        CollectionAssert.AreEqual(Enumerable.Range(0, 8).Select(i => i % 2 == 0 ? SourceKind.Fresh : SourceKind.Settled).ToList(), even);
        CollectionAssert.AreEqual(Enumerable.Range(0, 8).Select(i => i % 2 == 0 ? SourceKind.Settled : SourceKind.Fresh).ToList(), odd);
    }

    [TestMethod]
    public void Each_method_takes_its_turn_first_over_as_many_rounds_as_there_are_methods()
    {
        var firsts = Enumerable.Range(0, Timed.Count).Select(round => BenchmarkPlan.Round(round, Timed)[0].Method).ToList();

        CollectionAssert.AreEquivalent(Timed.ToList(), firsts);
        Assert.AreEqual(CopyMethod.Engine, BenchmarkPlan.Round(1, Timed)[0].Method);
        Assert.AreEqual(BenchmarkPlan.Round(0, Timed)[0].Method, BenchmarkPlan.Round(Timed.Count, Timed)[0].Method);
    }

    [TestMethod]
    public void A_method_is_timed_on_both_sources_back_to_back_so_their_comparison_shares_the_moment()
    {
        var order = BenchmarkPlan.Round(3, Timed);

        for (int i = 0; i < order.Count; i += 2)
        {
            Assert.AreEqual(order[i].Method, order[i + 1].Method);
            Assert.AreNotEqual(order[i].Source, order[i + 1].Source);
        }
    }

    [TestMethod]
    public void The_table_has_a_column_for_every_method_including_the_library_that_may_not_restore()
    {
        CollectionAssert.AreEqual(
            new[] { CopyMethod.FileCopy, CopyMethod.Engine, CopyMethod.OurTask, CopyMethod.StockTask, CopyMethod.CopyOnWriteLibrary },
            BenchmarkPlan.AllMethods.ToArray());
    }

    [TestMethod]
    public void A_negative_round_is_refused()
    {
        Assert.ThrowsExactly<ArgumentOutOfRangeException>(() => BenchmarkPlan.Round(-1, Timed));
    }
}
