using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// What btrfs and ext4 add to the sample's build on XFS (<see cref="SampleBuildTests"/>), shown on a small consumer:
/// btrfs clones as well, ext4 copies and says why. What differs between file systems is the engine's answer, which
/// one project shows as well as twenty.
/// </summary>
[TestClass]
public sealed class CloneOrCopyByFileSystemBuildTests
{
    [TestMethod]
    public void On_btrfs_a_build_clones_and_the_output_shares_extents_with_its_source()
    {
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Btrfs.NewFolder("consumer"), PackageRoute.SdkElement);

        ProcessResult build = repository.TryBuildInProcess();

        repository.AssertOurCopyRan(build);
        var log = new BuildLog(build.Output);
        Assert.IsTrue(log.ClonedFiles >= 2, "the assembly from obj/ and the content file, cloned on btrfs:\n" + string.Join("\n", log.SummaryLines));
        SharedExtents.AssertAllShared(repository.CopiedContent, "the content file cloned on btrfs");
    }

    [TestMethod]
    public void On_ext4_a_build_copies_and_says_ext4_cannot_clone()
    {
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Ext4.NewFolder("consumer"), PackageRoute.SdkElement);

        ProcessResult build = repository.TryBuildInProcess();

        repository.AssertOurCopyRan(build);
        var log = new BuildLog(build.Output);
        Assert.AreEqual(0, log.ClonedFiles, string.Join("\n", log.SummaryLines));
        Assert.IsTrue(log.CopiedFiles >= 2, string.Join("\n", log.SummaryLines));
        Assert.IsTrue(log.SummaryLines.All(line => !line.Contains("copied", System.StringComparison.Ordinal) || line.Contains("because ext4 cannot clone", System.StringComparison.Ordinal)), string.Join("\n", log.SummaryLines));
        SharedExtents.AssertNoneShared(repository.CopiedContent, "a byte copy on ext4");
    }
}
