using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>The sample built on XFS and btrfs clones its copies; on ext4 it copies them and says why.</summary>
[TestClass]
public sealed class CloneCapableSampleBuildTests
{
    [TestMethod]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void On_a_clone_capable_file_system_the_sample_build_clones_and_outputs_share_extents_with_their_sources(string kind)
    {
        SampleWorkspace workspace = SampleWorkspace.CreateIn(LoopFileSystems.Require(kind).NewFolder("sample"));

        BuildLog build = workspace.Build();

        Assert.IsTrue(build.ClonedFiles > 100, $"expected the snowball's copies to be clones on {kind}, got {build.ClonedFiles}:\n" + string.Join("\n", build.SummaryLines));
        string largestStagedFile = LargestFileUnder(Path.Combine(workspace.SolutionFolder, "artifacts"));
        SharedExtents.AssertAllShared(largestStagedFile, $"a staged artifact cloned on {kind}");
    }

    [TestMethod]
    public void On_ext4_the_sample_build_copies_and_says_ext4_cannot_clone()
    {
        SampleWorkspace workspace = SampleWorkspace.CreateIn(LoopFileSystems.Ext4.NewFolder("sample"));

        BuildLog build = workspace.Build();

        Assert.AreEqual(0, build.ClonedFiles);
        Assert.IsTrue(build.CopiedFiles > 100);
        Assert.IsTrue(build.SummaryLines.All(line => !line.Contains("copied", System.StringComparison.Ordinal) || line.Contains("because ext4 cannot clone", System.StringComparison.Ordinal)), string.Join("\n", build.SummaryLines));
        SharedExtents.AssertNoneShared(LargestFileUnder(Path.Combine(workspace.SolutionFolder, "artifacts")), "a byte copy on ext4");
    }

    private static string LargestFileUnder(string folder)
        => new DirectoryInfo(folder).EnumerateFiles("*", SearchOption.AllDirectories).OrderByDescending(f => f.Length).First().FullName;
}
