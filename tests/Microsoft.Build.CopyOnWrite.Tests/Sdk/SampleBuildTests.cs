using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// The sample solution built as a user builds it: our SDK from its package, imported by
/// &lt;Sdk Name="Microsoft.Build.CopyOnWrite" /&gt; with the version in global.json, on XFS (the README's case): the
/// run's one build of the 20-project sample, read by every test here. What btrfs and ext4 add is shown on a small
/// consumer (<see cref="CloneOrCopyByFileSystemBuildTests"/>).
/// </summary>
[TestClass]
public sealed class SampleBuildTests
{
    private static SampleWorkspace s_workspace = null!;
    private static BuildLog s_stockBuild = null!;
    private static TreeSnapshot s_stockOutputs = null!;
    private static BuildLog s_ourBuild = null!;
    private static TreeSnapshot s_ourOutputs = null!;
    private static BuildLog s_secondBuild = null!;
    private static TreeSnapshot s_outputsAfterSecondBuild = null!;

    /// <summary>
    /// Stock build first, then only bin/ and artifacts/ are deleted and our task rebuilds them from the
    /// same obj/: the compiler's outputs are identical, so any difference in the trees is the Copy task's. Our build is
    /// the user's `dotnet build`; the stock build and the second one, questions about our targets, build in this process.
    /// </summary>
    [ClassInitialize]
    public static void BuildTheSampleWithTheStockTaskThenWithOurs(TestContext context)
    {
        s_workspace = SampleWorkspace.CreateIn(LoopFileSystems.Xfs.NewFolder("sample"));
        s_stockBuild = s_workspace.BuildInProcess("-p:DisableCopyOnWrite=true");
        s_stockOutputs = s_workspace.Outputs();
        s_workspace.DeleteCopiedOutputs();
        s_ourBuild = s_workspace.Build();
        s_ourOutputs = s_workspace.Outputs();
        s_secondBuild = s_workspace.BuildInProcess();
        s_outputsAfterSecondBuild = s_workspace.Outputs();
    }

    [TestMethod]
    public void Our_task_runs_the_copies_of_every_project_and_says_what_it_did()
    {
        Assert.IsTrue(s_ourBuild.SummaryLines.Count >= 21, $"expected a summary line for the copies of each of the 21+ projects, got {s_ourBuild.SummaryLines.Count}:\n{s_ourBuild}");
        Assert.IsTrue(s_ourBuild.ClonedFiles + s_ourBuild.CopiedFiles >= s_ourBuild.CopyingLines.Count, "every file written is counted in a summary line");
        Assert.IsTrue(s_ourBuild.CopyingLines.Count > 100, $"the snowball copies hundreds of files, got {s_ourBuild.CopyingLines.Count}");
    }

    [TestMethod]
    public void On_XFS_our_build_clones_and_the_staged_artifacts_share_extents_with_their_sources()
    {
        Assert.IsTrue(s_ourBuild.ClonedFiles > 100, "expected the snowball's copies to be clones on XFS, got " + s_ourBuild.ClonedFiles + ":\n" + string.Join("\n", s_ourBuild.SummaryLines));
        string largestStagedFile = new DirectoryInfo(Path.Combine(s_workspace.SolutionFolder, "artifacts")).EnumerateFiles("*", SearchOption.AllDirectories).OrderByDescending(f => f.Length).First().FullName;
        SharedExtents.AssertAllShared(largestStagedFile, "a staged artifact cloned on XFS");
    }

    [TestMethod]
    public void DisableCopyOnWrite_brings_back_the_stock_task()
    {
        Assert.AreEqual(0, s_stockBuild.SummaryLines.Count, $"the stock task printed our summary:\n{s_stockBuild}");
        Assert.IsTrue(s_stockBuild.CopyingLines.Count > 100);
    }

    [TestMethod]
    public void The_outputs_are_identical_to_the_stock_tasks_in_files_bytes_times_and_modes()
    {
        Assert.IsTrue(s_stockOutputs.Files.Count > 100, $"the stock build produced only {s_stockOutputs.Files.Count} files");

        // deps.json and runtimeconfig.json are written into bin/ by the SDK's generator tasks, not by Copy, so
        // deleting bin/ between the two builds gives them (and their staged copies) new times. Their bytes
        // and modes are still compared; every copied file's time is checked against its source below.
        var differences = s_ourOutputs.DifferencesFrom(s_stockOutputs, timeNotCompared: path => path.EndsWith(".deps.json", System.StringComparison.Ordinal) || path.EndsWith(".runtimeconfig.json", System.StringComparison.Ordinal));

        Assert.AreEqual(0, differences.Count, "differences from the stock task's outputs:\n" + string.Join("\n", differences.Take(40)));
    }

    [TestMethod]
    public void Every_file_our_task_copied_has_its_sources_bytes_and_last_write_time_to_the_nanosecond()
    {
        var pairs = s_ourBuild.CopiedPairs;
        Assert.IsTrue(pairs.Count > 100, $"parsed only {pairs.Count} copies");

        foreach ((string source, string destination) in pairs.GroupBy(p => p.Destination).Select(g => g.Last()))
        {
            UnixFileFacts from = UnixFileFacts.Of(source);
            UnixFileFacts to = UnixFileFacts.Of(destination);
            Assert.AreEqual(from.ModifiedNanoseconds, to.ModifiedNanoseconds, $"{destination} does not carry the time of {source}");
            Assert.IsTrue(TestFiles.SameBytes(source, destination), $"{destination} differs from {source}");
        }
    }

    [TestMethod]
    public void A_second_build_with_nothing_changed_writes_nothing()
    {
        Assert.AreEqual(0, s_secondBuild.CopyingLines.Count, "files were copied again:\n" + string.Join("\n", s_secondBuild.CopyingLines.Take(20)));
        Assert.AreEqual(0, s_secondBuild.ClonedFiles + s_secondBuild.CopiedFiles);
        foreach ((string path, FileEntry before) in s_ourOutputs.Files)
        {
            Assert.AreEqual(before, s_outputsAfterSecondBuild.Files[path], $"{path} was rewritten (inode or time changed)");
        }
    }
}
