using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>The Linux engine on real file systems: clones where they can, copies and says why where they cannot.</summary>
[TestClass]
public sealed class LinuxCloneEngineTests
{
    private const int OneMiB = 1 << 20;

    private static LinuxCloneEngine NewEngine() => new(new CloneCapabilityCache(), RuntimeInformation.ProcessArchitecture);

    [DataTestMethod]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void A_file_on_a_clone_capable_file_system_is_cloned_and_shares_its_extents(string kind)
    {
        LoopFileSystem fileSystem = LoopFileSystems.Require(kind);
        string folder = fileSystem.NewFolder("clone");
        string source = TestFiles.Write(folder, "source.bin", 4 * OneMiB);
        string destination = Path.Combine(folder, "destination.bin");

        CloneResult result = NewEngine().CloneOrCopy(source, destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        Assert.AreEqual(4L * OneMiB, result.Bytes);
        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        SharedExtents.AssertAllShared(destination, $"a clone on {kind}");
        SharedExtents.AssertAllShared(source, $"the source of a clone on {kind}");
    }

    [TestMethod]
    public void A_file_on_ext4_is_copied_because_ext4_cannot_clone()
    {
        string folder = LoopFileSystems.Ext4.NewFolder("copy");
        string source = TestFiles.Write(folder, "source.bin", OneMiB);
        string destination = Path.Combine(folder, "destination.bin");

        CloneResult result = NewEngine().CloneOrCopy(source, destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(FallbackReason.FileSystemCannotClone, result.Reason);
        Assert.AreEqual("ext4", result.Detail);
        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        SharedExtents.AssertNoneShared(destination, "a byte copy on ext4");
    }
}
