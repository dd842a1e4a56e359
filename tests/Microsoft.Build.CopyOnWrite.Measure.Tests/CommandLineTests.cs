using System.CommandLine;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests;

/// <summary>The command line's validation, parsed in-process (nothing is run).</summary>
[TestClass]
public sealed class CommandLineTests
{
    [TestMethod]
    [DataRow("--runs", "0", "--runs takes a number of at least 1")]
    [DataRow("--loop-size", "100", "--loop-size takes a number of MiB, at least 512")]
    [DataRow("--package-dir", "/no/such/folder", "--package-dir /no/such/folder: no such folder")]
    [DataRow("--root", "/no/such/folder", "--root /no/such/folder: no such folder")]
    public void An_out_of_range_or_missing_option_value_is_a_parse_error_that_names_it(string option, string value, string message)
    {
        string folder = TestScratch.NewFolder("target");

        ParseResult result = CommandLine.Create((_, _) => 0).Parse([folder, "--volume", folder, option, value]);

        Assert.AreEqual(1, result.Errors.Count, string.Join("; ", result.Errors.Select(e => e.Message)));
        StringAssert.Contains(result.Errors[0].Message, message);
    }

    [TestMethod]
    public void A_path_outside_the_root_it_is_copied_from_is_a_parse_error()
    {
        string root = TestScratch.NewFolder("root");
        string elsewhere = TestScratch.NewFolder("elsewhere");

        ParseResult result = CommandLine.Create((_, _) => 0).Parse([elsewhere, "--volume", root, "--root", root]);

        Assert.AreEqual(1, result.Errors.Count);
        StringAssert.Contains(result.Errors[0].Message, "is not inside --root");
    }

    [TestMethod]
    public void Volumes_are_taken_in_the_order_given_and_the_defaults_fill_the_rest()
    {
        string folder = TestScratch.NewFolder("target");
        Options? bound = null;

        int exitCode = CommandLine.Create((options, _) => { bound = options; return 0; }).Parse([folder, "--volume", "/mnt/a", "--volume", "xfs"]).Invoke();

        Assert.AreEqual(0, exitCode);
        CollectionAssert.AreEqual(new[] { "/mnt/a", "xfs" }, bound!.Volumes.ToArray());
        Assert.AreEqual(3, bound.Runs);
        Assert.IsTrue(bound.Incremental);
        Assert.AreEqual("Debug", bound.Configuration);
        Assert.AreEqual(folder, bound.Root);
    }

    [TestMethod]
    [DataRow("doctor", " doctor [<FOLDER>...] [options]")]
    [DataRow("predict", " predict <BINLOG> [options]")]
    [DataRow("verify", " verify [<PROJECT>] [options]")]
    public void A_subcommands_help_shows_its_own_usage_without_the_measuring_PATH(string subcommand, string usage)
    {
        var output = new System.IO.StringWriter();

        int exitCode = CommandLine.For([subcommand, "--help"], (_, _) => 0).Parse([subcommand, "--help"]).Invoke(new InvocationConfiguration { Output = output });

        Assert.AreEqual(0, exitCode);
        StringAssert.Contains(output.ToString(), usage, "(the program name before it is the test host's here)");
        Assert.IsFalse(output.ToString().Contains("<PATH>"), output.ToString());
    }
}
