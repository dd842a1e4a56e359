using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// The sample built clean on XFS (the README's case) clones its copies; a small consumer shows what the other file systems
/// add: btrfs clones as well, ext4 copies and says why. The sample's clean build costs minutes; what differs between file
/// systems is the engine's answer, which one project shows as well as twenty.
/// </summary>
[TestClass]
public sealed class CloneCapableSampleBuildTests
{
    [TestMethod]
    public void On_XFS_the_sample_build_clones_and_outputs_share_extents_with_their_sources()
    {
        SampleWorkspace workspace = SampleWorkspace.CreateIn(LoopFileSystems.Xfs.NewFolder("sample"));

        BuildLog build = workspace.Build();

        Assert.IsTrue(build.ClonedFiles > 100, $"expected the snowball's copies to be clones on XFS, got {build.ClonedFiles}:\n" + string.Join("\n", build.SummaryLines));
        string largestStagedFile = LargestFileUnder(Path.Combine(workspace.SolutionFolder, "artifacts"));
        SharedExtents.AssertAllShared(largestStagedFile, "a staged artifact cloned on XFS");
    }

    [TestMethod]
    public void On_btrfs_a_build_clones_and_the_output_shares_extents_with_its_source()
    {
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Btrfs.NewFolder("consumer"), PackageRoute.SdkElement);

        ProcessResult build = repository.TryBuild();

        repository.AssertOurCopyRan(build);
        var log = new BuildLog(build.Output);
        Assert.IsTrue(log.ClonedFiles >= 2, "the assembly from obj/ and the content file, cloned on btrfs:\n" + string.Join("\n", log.SummaryLines));
        SharedExtents.AssertAllShared(repository.CopiedContent, "the content file cloned on btrfs");
    }

    [TestMethod]
    public void On_ext4_a_build_copies_and_says_ext4_cannot_clone()
    {
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Ext4.NewFolder("consumer"), PackageRoute.SdkElement);

        ProcessResult build = repository.TryBuild();

        repository.AssertOurCopyRan(build);
        var log = new BuildLog(build.Output);
        Assert.AreEqual(0, log.ClonedFiles, string.Join("\n", log.SummaryLines));
        Assert.IsTrue(log.CopiedFiles >= 2, string.Join("\n", log.SummaryLines));
        Assert.IsTrue(log.SummaryLines.All(line => !line.Contains("copied", System.StringComparison.Ordinal) || line.Contains("because ext4 cannot clone", System.StringComparison.Ordinal)), string.Join("\n", log.SummaryLines));
        SharedExtents.AssertNoneShared(repository.CopiedContent, "a byte copy on ext4");
    }

    private static string LargestFileUnder(string folder)
        => new DirectoryInfo(folder).EnumerateFiles("*", SearchOption.AllDirectories).OrderByDescending(f => f.Length).First().FullName;
}
