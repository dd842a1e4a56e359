using System.IO;
using System.Linq;
using System.Text.Json;
using System.Text.RegularExpressions;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Savings;

/// <summary>
/// The build-wide summary: CopyOnWriteSummaryLogger, turned on with the -logger: argument the SDK publishes,
/// adds up every Copy of every project across MSBuild nodes, and does the same on a binary log replay.
/// </summary>
[TestClass]
public sealed partial class BuildSummaryTests
{
    [TestMethod]
    public void Turned_on_with_the_argument_the_SDK_publishes_with_several_nodes_the_summary_adds_up_every_Copy_and_a_binlog_replay_prints_the_same()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("summary"));
        string logger = projects.SummaryLoggerArgument();
        StringAssert.StartsWith(logger, "Microsoft.Build.CopyOnWrite.Savings.CopyOnWriteSummaryLogger,");
        string binlog = Path.Combine(projects.Root, "build.binlog");
        string json = Path.Combine(projects.Root, "summary.json");

        // As the README turns it on: -logger: with the argument the SDK publishes (-getProperty), on the command line.
        string output = projects.Build("-v:n", "-m:2", $"-bl:{binlog}", $"-logger:{logger};SummaryFile={json}");

        // The per-invocation lines (normal verbosity) are the reference the build-wide total must match.
        var invocations = SavingsProjects.LinesContaining(output, "CopyOnWrite: cloned");
        int clonedByInvocations = invocations.Sum(line => int.Parse(ClonedCount().Match(line).Groups[1].Value));
        Assert.IsTrue(clonedByInvocations >= 6, "expected the two projects' copies to be cloned on XFS:\n" + output);
        var summary = SavingsProjects.LinesContaining(output, "CopyOnWrite build summary:");
        Assert.AreEqual(1, summary.Count, output);
        StringAssert.Contains(summary[0], $"cloned {clonedByInvocations} files");
        StringAssert.Contains(summary[0], "in 2 projects");

        using (JsonDocument totals = JsonDocument.Parse(File.ReadAllText(json)))
        {
            Assert.AreEqual(clonedByInvocations, totals.RootElement.GetProperty("cloned").GetProperty("files").GetInt32());
            Assert.AreEqual(0, totals.RootElement.GetProperty("copied").GetProperty("files").GetInt32());
        }

        ProcessResult replay = SdkPackage.Dotnet(projects.Root, "msbuild", binlog, "-nologo", "-noconlog", $"-logger:{logger}");
        var replayed = SavingsProjects.LinesContaining(replay.Output, "CopyOnWrite build summary:");
        Assert.AreEqual(1, replayed.Count, replay.Output);
        Assert.AreEqual(summary[0], replayed[0], "the replay of the binary log gives the same summary");
    }

    [TestMethod]
    public void The_summary_names_the_folders_and_each_side_s_file_system_of_files_copied_across_volumes_once_for_the_whole_build()
    {
        string content = LoopFileSystems.Ext4.NewFolder("content");
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("summary-crossvolume"), contentFolder: content);
        string json = Path.Combine(projects.Root, "summary.json");

        string output = projects.Build("-v:m", "-m:2", $"-logger:{projects.SummaryLoggerArgument()};SummaryFile={json}");

        var summary = SavingsProjects.LinesContaining(output, "CopyOnWrite build summary:");
        Assert.AreEqual(1, summary.Count, output);
        StringAssert.Contains(summary[0], "because source and destination are on different volumes");
        // The logger says it for the whole build ("in this build"): its count is the sum of the Copy tasks' data lines.
        var diagnosis = SavingsProjects.LinesContaining(output, "were copied, not cloned, because they come from");
        Assert.AreEqual(1, diagnosis.Count, "at minimal verbosity only the logger's build-wide diagnosis shows:\n" + output);
        StringAssert.Contains(diagnosis[0], $"4 files (976.6 KiB) in this build were copied, not cloned, because they come from {content} on another volume than {projects.Root};");

        // The data names the source's file system (ext4) and the destination's (XFS) each under its own name.
        using JsonDocument totals = JsonDocument.Parse(File.ReadAllText(json));
        JsonElement crossVolume = totals.RootElement.GetProperty("crossVolume").EnumerateArray().Single();
        Assert.AreEqual("ext4", crossVolume.GetProperty("sourceFileSystem").GetString());
        Assert.AreEqual(LoopFileSystems.Ext4.MountPoint, crossVolume.GetProperty("sourceVolume").GetString());
        Assert.AreEqual("xfs", crossVolume.GetProperty("destinationFileSystem").GetString());
        Assert.AreEqual(LoopFileSystems.Xfs.MountPoint, crossVolume.GetProperty("destinationVolume").GetString());
        Assert.AreEqual("Movable", crossVolume.GetProperty("sourceOrigin").GetString());
        Assert.IsFalse(crossVolume.GetProperty("accepted").GetBoolean());
        JsonElement because = totals.RootElement.GetProperty("copiedBecause").EnumerateArray().Single();
        Assert.AreEqual("DifferentVolumes", because.GetProperty("reason").GetString());
        CollectionAssert.AreEquivalent(new[] { "reason", "text", "files", "bytes" }, because.EnumerateObject().Select(field => field.Name).ToArray(),
            "no field of a cross-volume reason names a file system without saying whose");
    }

    [TestMethod]
    public void A_clean_build_says_what_cloning_did_not_write_and_a_build_with_nothing_to_copy_says_nothing_was_cloned_or_copied()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("summary-wording"));
        string logger = $"-logger:{projects.SummaryLoggerArgument()}";

        string clean = projects.Build("-v:m", logger);
        string incremental = projects.Build("-v:m", logger);

        string cleanSummary = SavingsProjects.LinesContaining(clean, "CopyOnWrite build summary:").Single();
        StringAssert.Matches(cleanSummary, NotWritten(), "bytes not written, not a gain over another Copy");
        Assert.IsFalse(cleanSummary.Contains("saved", System.StringComparison.Ordinal), cleanSummary);
        string incrementalSummary = SavingsProjects.LinesContaining(incremental, "CopyOnWrite build summary:").Single();
        StringAssert.Matches(incrementalSummary, NothingToDo());
        Assert.IsFalse(incrementalSummary.Contains("cloned 0", System.StringComparison.Ordinal) || incrementalSummary.Contains("(0 B)", System.StringComparison.Ordinal), incrementalSummary);
    }

    /// <summary>MSBuild refuses -getProperty on a solution (MSB1063); Directory.Build.props, where the SDK element is, answers.</summary>
    [TestMethod]
    public void In_a_solution_folder_getProperty_on_Directory_Build_props_gives_the_logger_argument_that_getProperty_on_the_solution_cannot()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("summary-solution"));
        SdkPackage.Dotnet(projects.Root, "new", "sln", "-n", "Repo");
        SdkPackage.Dotnet(projects.Root, "sln", "add", "App/App.csproj", "Lib/Lib.csproj");
        SdkPackage.Dotnet(projects.Root, "restore", "-nr:false");

        ProcessResult onSolution = ProcessRunner.Run("dotnet", ["msbuild", "-nologo", "-getProperty:CopyOnWriteSummaryLogger"], projects.Root, SdkPackage.BuildEnvironment);
        ProcessResult onProps = SdkPackage.Dotnet(projects.Root, "msbuild", "Directory.Build.props", "-nologo", "-getProperty:CopyOnWriteSummaryLogger");

        Assert.IsFalse(onSolution.Succeeded);
        StringAssert.Contains(onSolution.Output, "MSB1063");
        string logger = onProps.Output.Trim();
        Assert.AreEqual(projects.SummaryLoggerArgument(), logger, "the same argument as from a project");
        string output = SdkPackage.Dotnet(projects.Root, "build", "-nologo", "-nr:false", "-v:m", $"-logger:{logger}").Output;
        StringAssert.Contains(SavingsProjects.LinesContaining(output, "CopyOnWrite build summary:").Single(), "in 2 projects");
    }

    [GeneratedRegex(@"^CopyOnWrite build summary: cloned \d+ files \([\d.]+ [KM]?i?B\); \d+ Copy tasks in 2 projects\. The clones share their sources' storage: [\d.]+ [KM]?i?B not written, thanks to clones \(MSBuild's own Copy clones too where \.NET's File\.Copy does\)\.$")]
    private static partial Regex NotWritten();

    [GeneratedRegex(@"^CopyOnWrite build summary: \d+ files already up to date, nothing cloned or copied; \d+ Copy tasks in 2 projects\.$")]
    private static partial Regex NothingToDo();

    [GeneratedRegex(@"cloned (\d+) files?")]
    private static partial Regex ClonedCount();
}
