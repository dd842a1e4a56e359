using System;
using System.Collections.Generic;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Platforms;

/// <summary>
/// What the tool concludes about a macOS volume from what macOS answers: fed those answers through the seam
/// (<see cref="IMacSystem"/>), so it runs on any OS; the calls themselves run only on macOS.
/// </summary>
[TestClass]
public sealed class MacPlatformTests
{
    [TestMethod]
    public void APFS_where_the_probe_clone_works_can_clone_and_the_stock_task_clones_there_too()
    {
        var mac = new AnsweringMac { Type = "apfs", MountedOn = "/System/Volumes/Data", ProbeErrno = 0 };

        VolumeFacts volume = new MacPlatform(mac).Identify("/Users/me/cow");

        Assert.AreEqual("apfs", volume.FileSystem);
        Assert.AreEqual(true, volume.CanClone);
        Assert.AreEqual(true, volume.StockCopyClones);
        Assert.AreEqual("/System/Volumes/Data", volume.Root);
        Assert.IsNull(volume.DevDrive);
        StringAssert.Contains(volume.CloneEvidence, "clonefile");
        Assert.AreEqual("/Users/me/cow", mac.ProbedFolder);
    }

    [TestMethod]
    public void APFS_used_space_comes_with_the_caveat_that_its_container_shares_free_space()
    {
        var mac = new AnsweringMac { Type = "apfs" };

        VolumeFacts volume = new MacPlatform(mac).Identify("/Users/me/cow");

        StringAssert.Contains(volume.UsedSpaceCaveat, "container");
    }

    [TestMethod]
    public void A_file_system_that_refuses_the_probe_clone_as_unsupported_cannot_clone()
    {
        var mac = new AnsweringMac { Type = "hfs", ProbeErrno = MacVolumes.ENOTSUP };

        VolumeFacts volume = new MacPlatform(mac).Identify("/Volumes/Old/cow");

        Assert.AreEqual("hfs", volume.FileSystem);
        Assert.AreEqual(false, volume.CanClone);
        Assert.AreEqual(false, volume.StockCopyClones);
        Assert.IsNull(volume.UsedSpaceCaveat);
        StringAssert.Contains(volume.CloneEvidence, "ENOTSUP");
    }

    [TestMethod]
    public void A_probe_clone_that_fails_otherwise_leaves_cloning_unknown_and_names_the_errno()
    {
        var mac = new AnsweringMac { Type = "smbfs", ProbeErrno = 13 };

        VolumeFacts volume = new MacPlatform(mac).Identify("/Volumes/Share/cow");

        Assert.IsNull(volume.CanClone);
        StringAssert.Contains(volume.CloneEvidence, "errno 13");
    }

    [TestMethod]
    public void A_folder_statfs_cannot_read_stops_the_run_with_a_clear_message()
    {
        var mac = new AnsweringMac { StatErrno = 2 };

        var error = Assert.ThrowsExactly<MeasureException>(() => new MacPlatform(mac).Identify("/Volumes/Gone/cow"));

        StringAssert.Contains(error.Message, "/Volumes/Gone/cow");
    }

    [TestMethod]
    public void Used_space_is_blocks_in_use_times_the_block_size()
    {
        var mac = new AnsweringMac { Blocks = 1000, FreeBlocks = 250, BlockSize = 4096 };

        Reading<long> used = new MacPlatform(mac).UsedBytes("/Users/me/cow");

        Assert.AreEqual(750L * 4096, used.Value);
    }

    [TestMethod]
    public void Used_space_statfs_cannot_give_is_not_measured_with_the_reason()
    {
        var mac = new AnsweringMac { StatErrno = 5 };

        Reading<long> used = new MacPlatform(mac).UsedBytes("/Users/me/cow");

        Assert.IsNull(used.Value);
        StringAssert.Contains(used.Unavailable, "errno 5");
    }

    [TestMethod]
    public void Flushing_syncs_every_file_system_and_is_timed()
    {
        var mac = new AnsweringMac();

        Reading<TimeSpan> flush = new MacPlatform(mac).Flush("/Users/me/cow");

        Assert.AreEqual(1, mac.Syncs);
        Assert.IsNotNull(flush.Value);
        StringAssert.Contains(new MacPlatform(mac).FlushMethod, "every file system");
    }

    [TestMethod]
    public void The_load_average_is_getloadavg_s_first_value_or_not_measured_when_it_fails()
    {
        Assert.AreEqual(1.5, new MacPlatform(new AnsweringMac { Load = SystemAnswer<double>.Ok(1.5) }).LoadAverage().Value);
        Assert.IsNull(new MacPlatform(new AnsweringMac { Load = SystemAnswer<double>.Failed(-1) }).LoadAverage().Value);
    }

    [TestMethod]
    public void The_machine_is_described_with_the_processor_brand_and_the_macOS_version()
    {
        var mac = new AnsweringMac { Sysctls = { ["machdep.cpu.brand_string"] = "Apple M2 Pro", ["kern.osproductversion"] = "15.1", ["kern.osrelease"] = "24.1.0" } };

        MachineDescription machine = new MacPlatform(mac).DescribeMachine();

        Assert.AreEqual("Apple M2 Pro", machine.Cpu);
        Assert.AreEqual("macOS 15.1 (Darwin 24.1.0)", machine.OperatingSystem);
    }

    /// <summary>macOS's answers for one volume, as a test sets them.</summary>
    private sealed class AnsweringMac : IMacSystem
    {
        public string Type { get; init; } = "apfs";
        public string MountedOn { get; init; } = "/";
        public ulong Blocks { get; init; } = 1000;
        public ulong FreeBlocks { get; init; } = 500;
        public ulong BlockSize { get; init; } = 4096;
        public int StatErrno { get; init; }
        public int ProbeErrno { get; init; }
        public SystemAnswer<double> Load { get; init; } = SystemAnswer<double>.Ok(0.5);
        public Dictionary<string, string> Sysctls { get; } = new();

        public int Syncs { get; private set; }
        public string? ProbedFolder { get; private set; }

        public SystemAnswer<MacFileSystemStatus> StatFs(string path)
            => StatErrno != 0 ? SystemAnswer<MacFileSystemStatus>.Failed(StatErrno) : SystemAnswer<MacFileSystemStatus>.Ok(new MacFileSystemStatus(Type, MountedOn, Blocks, FreeBlocks, BlockSize));

        public int ProbeClone(string folder)
        {
            ProbedFolder = folder;
            return ProbeErrno;
        }

        public void SyncAll() => Syncs++;

        public SystemAnswer<double> LoadAverage() => Load;

        public string? Sysctl(string name) => Sysctls.TryGetValue(name, out string? value) ? value : null;
    }
}
