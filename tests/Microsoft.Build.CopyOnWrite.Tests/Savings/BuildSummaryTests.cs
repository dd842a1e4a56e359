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
    public void Turned_on_in_Directory_Build_rsp_with_several_nodes_the_summary_adds_up_every_Copy_and_a_binlog_replay_prints_the_same()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("summary"));
        string logger = projects.SummaryLoggerArgument();
        StringAssert.StartsWith(logger, "Microsoft.Build.CopyOnWrite.Savings.CopyOnWriteSummaryLogger,");
        string binlog = Path.Combine(projects.Root, "build.binlog");
        string json = Path.Combine(projects.Root, "summary.json");

        // Exactly the line the README tells users to put in Directory.Build.rsp (MSBuild expands %NUGET_PACKAGES%).
        File.WriteAllText(Path.Combine(projects.Root, "Directory.Build.rsp"),
            $"-logger:Microsoft.Build.CopyOnWrite.Savings.CopyOnWriteSummaryLogger,%NUGET_PACKAGES%/microsoft.build.copyonwrite/{SdkPackage.Version}/tools/net8.0/Microsoft.Build.CopyOnWrite.dll;SummaryFile={json}\n");
        string output = projects.Build("-v:n", "-m:2", $"-bl:{binlog}");
        File.Delete(Path.Combine(projects.Root, "Directory.Build.rsp"));

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
    public void The_summary_names_the_folders_of_files_copied_across_volumes_once_for_the_whole_build()
    {
        string content = LoopFileSystems.Ext4.NewFolder("content");
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("summary-crossvolume"), contentFolder: content);

        string output = projects.Build("-v:m", "-m:2", $"-logger:{projects.SummaryLoggerArgument()}");

        var summary = SavingsProjects.LinesContaining(output, "CopyOnWrite build summary:");
        Assert.AreEqual(1, summary.Count, output);
        StringAssert.Contains(summary[0], "because the source is on another volume than the destination");
        var diagnosis = SavingsProjects.LinesContaining(output, "were copied, not cloned, because they come from");
        Assert.AreEqual(1, diagnosis.Count, "at minimal verbosity only the logger's build-wide diagnosis shows:\n" + output);
        StringAssert.Contains(diagnosis[0], $"4 files (976.6 KiB) were copied, not cloned, because they come from {content} on another volume than {projects.Root};");
    }

    [GeneratedRegex(@"cloned (\d+) files?")]
    private static partial Regex ClonedCount();
}
