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
    /// <summary>
    /// The default tree on XFS (everything cloned), built once for the class: clean, as the README turns the summary on
    /// (-logger: with the argument the SDK publishes, read with -getProperty), at normal verbosity (the per-invocation
    /// lines) on two nodes with a binary log and SummaryFile=; then again, incrementally, at minimal verbosity.
    /// </summary>
    private sealed class DefaultTree
    {
        private static readonly System.Lazy<DefaultTree> Built = new(() => new DefaultTree());

        private DefaultTree()
        {
            Projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("summary"));
            Logger = Projects.SummaryLoggerArgument();
            Binlog = Path.Combine(Projects.Root, "build.binlog");
            SummaryFile = Path.Combine(Projects.Root, "summary.json");
            Clean = Projects.DotnetBuild("-v:n", "-m:2", $"-bl:{Binlog}", $"-logger:{Logger};SummaryFile={SummaryFile}");
            Incremental = Projects.Build("-v:m", $"-logger:{Logger}");
        }

        public static DefaultTree Shared => Built.Value;

        public SavingsProjects Projects { get; }

        public string Logger { get; }

        public string Binlog { get; }

        public string SummaryFile { get; }

        public string Clean { get; }

        public string Incremental { get; }
    }

    [TestMethod]
    public void Turned_on_with_the_argument_the_SDK_publishes_with_several_nodes_the_summary_adds_up_every_Copy_and_a_binlog_replay_prints_the_same()
    {
        DefaultTree tree = DefaultTree.Shared;
        SavingsProjects projects = tree.Projects;
        string logger = tree.Logger;
        StringAssert.StartsWith(logger, "Microsoft.Build.CopyOnWrite.Savings.CopyOnWriteSummaryLogger,");
        string binlog = tree.Binlog;
        string json = tree.SummaryFile;

        // As the README turns it on: -logger: with the argument the SDK publishes (-getProperty), on the command line.
        string output = tree.Clean;

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
        // The cross-volume build CrossVolumeDiagnosisTests read too (CrossVolumeBuild): projects on XFS, Lib's content on ext4.
        CrossVolumeBuild build = CrossVolumeBuild.Shared;
        string content = build.Content;
        SavingsProjects projects = build.Projects;
        string output = build.Output;
        string json = build.SummaryFile;

        var summary = SavingsProjects.LinesContaining(output, "CopyOnWrite build summary:");
        Assert.AreEqual(1, summary.Count, output);
        StringAssert.Contains(summary[0], "because source and destination are on different volumes");
        // The logger says it for the whole build ("in this build"): its count is the sum of the Copy tasks' data lines.
        var diagnosis = SavingsProjects.LinesContaining(output, "in this build were copied, not cloned, because they come from");
        Assert.AreEqual(1, diagnosis.Count, output);
        StringAssert.Contains(diagnosis[0], $"4 files (976.6 KiB) in this build were copied, not cloned, because they come from {content} on another volume than {projects.Root};");
        // At minimal verbosity (the build's file logger) the Copy tasks' own diagnoses do not show: only the logger's, on the console.
        StringAssert.Contains(build.MinimalOutput, "Lib.dll", "premise: the minimal log is the build's");
        Assert.AreEqual(0, SavingsProjects.LinesContaining(build.MinimalOutput, "were copied, not cloned").Count, "at minimal verbosity only the logger's build-wide diagnosis shows:\n" + build.MinimalOutput);

        // The data names the source's file system (ext4) and the destination's (XFS) each under its own name.
        using JsonDocument totals = JsonDocument.Parse(File.ReadAllText(json));
        JsonElement crossVolume = totals.RootElement.GetProperty("crossVolume").EnumerateArray().Single();
        Assert.AreEqual("ext4", crossVolume.GetProperty("sourceFileSystem").GetString());
        Assert.AreEqual(build.Ext4.MountPoint, crossVolume.GetProperty("sourceVolume").GetString());
        Assert.AreEqual("xfs", crossVolume.GetProperty("destinationFileSystem").GetString());
        Assert.AreEqual(build.Xfs.MountPoint, crossVolume.GetProperty("destinationVolume").GetString());
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
        // The class's tree: its clean build (at normal verbosity; the summary line is the same at any), then the incremental one.
        string clean = DefaultTree.Shared.Clean;
        string incremental = DefaultTree.Shared.Incremental;

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
        // The class's tree (already built: the solution's build below is incremental, and still counts both projects).
        SavingsProjects projects = DefaultTree.Shared.Projects;
        File.WriteAllText(Path.Combine(projects.Root, "Repo.slnx"), "<Solution><Project Path=\"App/App.csproj\" /><Project Path=\"Lib/Lib.csproj\" /></Solution>");
        SdkPackage.Dotnet(projects.Root, "restore", "-nr:false");

        ProcessResult onSolution = SdkPackage.TryDotnet(projects.Root, ["msbuild", "-nologo", "-getProperty:CopyOnWriteSummaryLogger"]);
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
