using System;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Windows.Parity.Benchmark;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.WindowsBenchmark;

/// <summary>The Windows benchmark's command line: what it accepts, and the message a wrong one gets.</summary>
[TestClass]
public sealed class BenchmarkOptionsTests
{
    [TestMethod]
    public void Two_folders_rounds_and_an_output_file_are_read_in_the_order_given()
    {
        BenchmarkOptions options = BenchmarkOptions.Parse(new[] { "--benchmark", "--folder", @"R:\bench", "--folder", @"C:\bench", "--rounds", "21", "--out", @"C:\out\table.md" });

        CollectionAssert.AreEqual(new[] { @"R:\bench", @"C:\bench" }, options.Folders.ToArray());
        Assert.AreEqual(21, options.Rounds);
        Assert.AreEqual(@"C:\out\table.md", options.Output);
        Assert.IsFalse(options.Smoke);
        Assert.IsTrue(options.WarmUp);
    }

    [TestMethod]
    public void Without_rounds_a_run_has_the_default_rounds_a_warm_up_and_no_output_file()
    {
        BenchmarkOptions options = BenchmarkOptions.Parse(new[] { "--folder", @"R:\bench", "--benchmark" });

        Assert.AreEqual(BenchmarkOptions.DefaultRounds, options.Rounds);
        Assert.AreEqual(21, options.Rounds);
        Assert.IsTrue(options.WarmUp);
        Assert.IsNull(options.Output);
    }

    [TestMethod]
    public void A_smoke_run_has_two_rounds_and_no_warm_up_unless_rounds_are_given()
    {
        BenchmarkOptions smoke = BenchmarkOptions.Parse(new[] { "--benchmark", "--smoke", "--folder", "Z:\\tmp" });
        BenchmarkOptions smokeWithRounds = BenchmarkOptions.Parse(new[] { "--benchmark", "--smoke", "--rounds", "5", "--folder", "Z:\\tmp" });

        Assert.AreEqual(2, smoke.Rounds);
        Assert.IsFalse(smoke.WarmUp);
        Assert.AreEqual(5, smokeWithRounds.Rounds);
        Assert.IsFalse(smokeWithRounds.WarmUp);
    }

    [TestMethod]
    public void The_sizes_are_the_six_the_issue_names()
    {
        CollectionAssert.AreEqual(new long[] { 0, 1024, 4096, 65536, 1048576, 16777216 }, BenchmarkOptions.Sizes.ToArray());
    }

    [TestMethod]
    public void No_folder_is_an_error_that_says_to_give_one_and_shows_the_usage()
    {
        var error = Assert.ThrowsExactly<BenchmarkUsageException>(() => BenchmarkOptions.Parse(new[] { "--benchmark", "--rounds", "3" }));

        StringAssert.StartsWith(error.Message, "give at least one --folder");
        StringAssert.Contains(error.Message, "usage: Microsoft.Build.CopyOnWrite.Windows.Parity.exe --benchmark --folder DIR");
    }

    [TestMethod]
    [DataRow("0")]
    [DataRow("-3")]
    [DataRow("x")]
    [DataRow("1.5")]
    [DataRow("1001")]
    [DataRow("99999999999")]
    public void Rounds_that_are_not_a_whole_number_from_1_to_1000_are_refused_quoting_the_value(string rounds)
    {
        var error = Assert.ThrowsExactly<BenchmarkUsageException>(() => BenchmarkOptions.Parse(new[] { "--benchmark", "--folder", "R:\\b", "--rounds", rounds }));

        StringAssert.StartsWith(error.Message, $"--rounds must be a whole number from 1 to 1000, not \"{rounds}\".");
    }

    [TestMethod]
    [DataRow("--folder")]
    [DataRow("--rounds")]
    [DataRow("--out")]
    public void An_option_at_the_end_without_its_value_is_refused_by_name(string option)
    {
        var error = Assert.ThrowsExactly<BenchmarkUsageException>(() => BenchmarkOptions.Parse(new[] { "--benchmark", "--folder", "R:\\b", option }));

        StringAssert.StartsWith(error.Message, $"{option} needs a value.");
    }

    [TestMethod]
    public void An_option_followed_by_another_option_is_missing_its_value_rather_than_taking_the_option_as_a_folder()
    {
        var error = Assert.ThrowsExactly<BenchmarkUsageException>(() => BenchmarkOptions.Parse(new[] { "--benchmark", "--folder", "--rounds", "3" }));

        StringAssert.StartsWith(error.Message, "--folder needs a value.");
    }

    [TestMethod]
    public void A_misspelt_option_is_named_in_the_error()
    {
        var error = Assert.ThrowsExactly<BenchmarkUsageException>(() => BenchmarkOptions.Parse(new[] { "--benchmark", "--folders", "R:\\b" }));

        StringAssert.StartsWith(error.Message, "unknown benchmark option \"--folders\".");
    }

    [TestMethod]
    public void The_same_folder_twice_differing_only_in_case_and_a_trailing_backslash_is_refused()
    {
        var error = Assert.ThrowsExactly<BenchmarkUsageException>(() => BenchmarkOptions.Parse(new[] { "--benchmark", "--folder", @"R:\Bench", "--folder", @"r:\bench\" }));

        StringAssert.StartsWith(error.Message, @"--folder r:\bench\ is given twice.");
    }

    [TestMethod]
    public void Options_without_the_benchmark_switch_are_refused()
    {
        var error = Assert.ThrowsExactly<BenchmarkUsageException>(() => BenchmarkOptions.Parse(new[] { "--folder", @"R:\bench" }));

        StringAssert.StartsWith(error.Message, "--benchmark is missing.");
    }
}
