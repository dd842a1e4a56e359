using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Platforms;

/// <summary>The Linux platform on real file systems: loop-mounted XFS and ext4, and tmpfs.</summary>
[TestClass]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class LinuxPlatformTests
{
    [TestMethod]
    public void A_folder_on_XFS_with_reflink_is_named_xfs_and_its_probe_clone_works()
    {
        LinuxPlatform platform = RequireLinux();
        string folder = LoopFileSystems.Xfs.NewFolder("identify");

        VolumeFacts volume = platform.Identify(folder);

        Assert.AreEqual("xfs", volume.FileSystem);
        Assert.AreEqual(true, volume.CanClone, volume.CloneEvidence);
        Assert.AreEqual(true, volume.StockCopyClones);
        Assert.AreEqual(LoopFileSystems.Xfs.MountPoint, volume.Root);
        Assert.AreEqual(0, Directory.GetFileSystemEntries(folder).Length, "the probe files must be gone");
    }

    [TestMethod]
    public void A_folder_on_ext4_is_named_ext4_not_by_its_shared_magic_number_and_cannot_clone()
    {
        LinuxPlatform platform = RequireLinux();
        string folder = LoopFileSystems.Ext4.NewFolder("identify");

        VolumeFacts volume = platform.Identify(folder);

        Assert.AreEqual("ext4", volume.FileSystem);
        Assert.AreEqual(false, volume.CanClone, volume.CloneEvidence);
        StringAssert.Contains(volume.CloneEvidence, "EOPNOTSUPP");
        Assert.AreEqual(0, Directory.GetFileSystemEntries(folder).Length, "the probe files must be gone");
    }

    [TestMethod]
    public void Used_space_grows_by_what_is_written_once_flushed()
    {
        LinuxPlatform platform = RequireLinux();
        string folder = LoopFileSystems.Ext4.NewFolder("used");
        platform.Flush(folder);
        long before = platform.UsedBytes(folder).Value!.Value;

        File.WriteAllBytes(Path.Combine(folder, "four-mib.bin"), Enumerable.Repeat((byte)7, 4 << 20).ToArray());
        Assert.IsNotNull(platform.Flush(folder).Value);
        long after = platform.UsedBytes(folder).Value!.Value;

        Assert.IsTrue(after - before >= 4 << 20 && after - before < 5 << 20, $"used space grew by {after - before} bytes for a 4 MiB file");
    }

    [TestMethod]
    public void The_load_average_and_the_machine_come_from_proc()
    {
        LinuxPlatform platform = RequireLinux();

        Assert.IsNotNull(platform.LoadAverage().Value);
        MachineDescription machine = platform.DescribeMachine();
        StringAssert.Contains(machine.OperatingSystem, "kernel");
        Assert.IsTrue(machine.Cores > 0);
    }

    private static LinuxPlatform RequireLinux()
    {
        if (!System.OperatingSystem.IsLinux())
        {
            Assert.Inconclusive("SKIPPED: the Linux platform runs on Linux only");
        }

        return new LinuxPlatform();
    }
}
