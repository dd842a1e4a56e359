using System;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Platforms;

/// <summary>
/// What the tool concludes about a Windows volume from what Windows answers: fed those answers through the seam
/// (<see cref="IWindowsSystem"/>), so it runs on any OS; the calls themselves run only on Windows.
/// </summary>
[TestClass]
public sealed class WindowsPlatformTests
{
    private const uint CasePreservingNames = 0x3;
    private const uint ReFSFlags = WindowsCloneDecisions.FileSupportsBlockRefcounting | CasePreservingNames;
    private const int Windows11_23H2 = 22631;
    private const int Windows11_24H2 = 26100;

    [TestMethod]
    public void A_trusted_Dev_Drive_is_named_ReFS_can_clone_and_is_reported_as_a_trusted_Dev_Drive()
    {
        var windows = new AnsweringWindows { FileSystem = "ReFS", Flags = ReFSFlags, PersistentState = Answer(WindowsVolumeFacts.PersistentVolumeStateDevVolume | WindowsVolumeFacts.PersistentVolumeStateTrustedVolume) };

        VolumeFacts volume = new WindowsPlatform(windows).Identify(@"D:\cow");

        Assert.AreEqual("ReFS", volume.FileSystem);
        Assert.AreEqual(true, volume.CanClone);
        Assert.AreEqual(true, volume.DevDrive);
        Assert.AreEqual(true, volume.TrustedDevDrive);
        Assert.AreEqual(@"D:\", volume.Root);
        StringAssert.Contains(volume.CloneEvidence, "FILE_SUPPORTS_BLOCK_REFCOUNTING");
    }

    [TestMethod]
    public void An_untrusted_Dev_Drive_is_reported_as_not_trusted()
    {
        var windows = new AnsweringWindows { FileSystem = "ReFS", Flags = ReFSFlags, PersistentState = Answer(WindowsVolumeFacts.PersistentVolumeStateDevVolume) };

        VolumeFacts volume = new WindowsPlatform(windows).Identify(@"D:\cow");

        Assert.AreEqual(true, volume.DevDrive);
        Assert.AreEqual(false, volume.TrustedDevDrive);
    }

    [TestMethod]
    public void NTFS_cannot_clone_and_is_no_Dev_Drive_without_asking_for_the_persistent_state()
    {
        var windows = new AnsweringWindows { FileSystem = "NTFS", Flags = CasePreservingNames };

        VolumeFacts volume = new WindowsPlatform(windows).Identify(@"C:\cow");

        Assert.AreEqual("NTFS", volume.FileSystem);
        Assert.AreEqual(false, volume.CanClone);
        Assert.AreEqual(false, volume.DevDrive);
        Assert.IsNull(volume.TrustedDevDrive);
        Assert.AreEqual(false, volume.StockCopyClones);
        Assert.AreEqual(0, windows.PersistentStateQueries, "a Dev Drive is always ReFS: NTFS needs no query");
        StringAssert.Contains(volume.CloneEvidence, "no FILE_SUPPORTS_BLOCK_REFCOUNTING");
    }

    [TestMethod]
    public void A_ReFS_volume_that_is_not_a_Dev_Drive_can_clone_but_is_no_Dev_Drive()
    {
        var windows = new AnsweringWindows { FileSystem = "ReFS", Flags = ReFSFlags, PersistentState = Answer(0) };

        VolumeFacts volume = new WindowsPlatform(windows).Identify(@"E:\cow");

        Assert.AreEqual(true, volume.CanClone);
        Assert.AreEqual(false, volume.DevDrive);
    }

    [TestMethod]
    [DataRow(1)]
    [DataRow(50)]
    [DataRow(87)]
    public void ReFS_on_a_Windows_that_predates_Dev_Drive_rejects_the_query_and_is_no_Dev_Drive(int error)
    {
        var windows = new AnsweringWindows { FileSystem = "ReFS", Flags = ReFSFlags, PersistentState = SystemAnswer<uint>.Failed(error) };

        VolumeFacts volume = new WindowsPlatform(windows).Identify(@"E:\cow");

        Assert.AreEqual(false, volume.DevDrive);
        Assert.AreEqual(true, volume.CanClone);
    }

    [TestMethod]
    public void A_Dev_Drive_state_Windows_refuses_to_tell_is_unknown_and_the_report_says_why()
    {
        var windows = new AnsweringWindows { FileSystem = "ReFS", Flags = ReFSFlags, PersistentState = SystemAnswer<uint>.Failed(5) };

        VolumeFacts volume = new WindowsPlatform(windows).Identify(@"D:\cow");

        Assert.IsNull(volume.DevDrive);
        StringAssert.Contains(volume.CloneEvidence, "Dev Drive unknown");
        StringAssert.Contains(volume.CloneEvidence, "error 5");
    }

    [TestMethod]
    [DataRow(Windows11_23H2, false)]
    [DataRow(Windows11_24H2, true)]
    public void The_stock_Copy_task_clones_on_a_Dev_Drive_only_from_Windows_11_24H2_on(int build, bool stockClones)
    {
        var windows = new AnsweringWindows { FileSystem = "ReFS", Flags = ReFSFlags, PersistentState = Answer(WindowsVolumeFacts.PersistentVolumeStateDevVolume), OSBuild = build };

        VolumeFacts volume = new WindowsPlatform(windows).Identify(@"D:\cow");

        Assert.AreEqual(stockClones, volume.StockCopyClones);
    }

    [TestMethod]
    public void A_volume_whose_information_cannot_be_read_is_an_unknown_file_system_with_unknown_cloning()
    {
        var windows = new AnsweringWindows { Information = SystemAnswer<WindowsVolumeInformation>.Failed(21) };

        VolumeFacts volume = new WindowsPlatform(windows).Identify(@"F:\cow");

        Assert.AreEqual("unknown", volume.FileSystem);
        Assert.IsNull(volume.CanClone);
        Assert.IsNull(volume.StockCopyClones);
        StringAssert.Contains(volume.CloneEvidence, "error 21");
    }

    [TestMethod]
    public void A_folder_whose_volume_cannot_be_found_stops_the_run_with_a_clear_message()
    {
        var windows = new AnsweringWindows { Root = SystemAnswer<string>.Failed(3) };

        var error = Assert.ThrowsExactly<MeasureException>(() => new WindowsPlatform(windows).Identify(@"Q:\cow"));

        StringAssert.Contains(error.Message, @"Q:\cow");
    }

    [TestMethod]
    public void A_folder_on_a_volume_mounted_in_a_folder_reports_that_mount_as_its_volume_root()
    {
        var windows = new AnsweringWindows { Root = SystemAnswer<string>.Ok(@"C:\mnt\devdrive\"), FileSystem = "ReFS", Flags = ReFSFlags, PersistentState = Answer(WindowsVolumeFacts.PersistentVolumeStateDevVolume) };

        VolumeFacts volume = new WindowsPlatform(windows).Identify(@"C:\mnt\devdrive\cow");

        Assert.AreEqual(@"C:\mnt\devdrive\", volume.Root);
        Assert.AreEqual(true, volume.DevDrive);
    }

    [TestMethod]
    public void Used_space_is_the_volume_size_less_its_free_bytes()
    {
        var windows = new AnsweringWindows { Space = SystemAnswer<WindowsDiskSpace>.Ok(new WindowsDiskSpace(TotalBytes: 100L << 30, FreeBytes: 60L << 30)) };

        Reading<long> used = new WindowsPlatform(windows).UsedBytes(@"D:\cow");

        Assert.AreEqual(40L << 30, used.Value);
    }

    [TestMethod]
    public void Used_space_Windows_cannot_give_is_not_measured_with_the_reason()
    {
        var windows = new AnsweringWindows { Space = SystemAnswer<WindowsDiskSpace>.Failed(21) };

        Reading<long> used = new WindowsPlatform(windows).UsedBytes(@"D:\cow");

        Assert.IsNull(used.Value);
        StringAssert.Contains(used.Unavailable, "GetDiskFreeSpaceEx");
    }

    [TestMethod]
    public void Flushing_a_volume_without_elevation_is_not_measured_and_says_it_needs_an_elevated_prompt()
    {
        var windows = new AnsweringWindows { FlushError = 5 };

        Reading<TimeSpan> flush = new WindowsPlatform(windows).Flush(@"D:\cow");

        Assert.IsNull(flush.Value);
        StringAssert.Contains(flush.Unavailable, "elevated");
        Assert.AreEqual(@"D:\", windows.FlushedRoot);
    }

    [TestMethod]
    public void Flushing_a_volume_when_elevated_is_timed()
    {
        var windows = new AnsweringWindows { FlushError = 0 };

        Reading<TimeSpan> flush = new WindowsPlatform(windows).Flush(@"D:\cow");

        Assert.IsNotNull(flush.Value);
        Assert.IsNull(flush.Unavailable);
    }

    [TestMethod]
    public void Windows_has_no_load_average_and_the_report_says_so_instead_of_a_number()
    {
        Reading<double> load = new WindowsPlatform(new AnsweringWindows()).LoadAverage();

        Assert.IsNull(load.Value);
        Assert.IsFalse(string.IsNullOrEmpty(load.Unavailable));
    }

    [TestMethod]
    public void The_machine_is_described_with_the_processor_name_and_the_Windows_build()
    {
        var windows = new AnsweringWindows { Processor = "AMD Ryzen 9 7950X 16-Core Processor", OSBuild = Windows11_24H2 };

        MachineDescription machine = new WindowsPlatform(windows).DescribeMachine();

        Assert.AreEqual("AMD Ryzen 9 7950X 16-Core Processor", machine.Cpu);
        StringAssert.Contains(machine.OperatingSystem, "26100");
    }

    private static SystemAnswer<uint> Answer(uint flags) => SystemAnswer<uint>.Ok(flags);

    /// <summary>Windows' answers for one volume, as a test sets them.</summary>
    private sealed class AnsweringWindows : IWindowsSystem
    {
        public SystemAnswer<string>? Root { get; init; }
        public string FileSystem { get; init; } = "NTFS";
        public uint Flags { get; init; }
        public SystemAnswer<WindowsVolumeInformation>? Information { get; init; }
        public SystemAnswer<uint> PersistentState { get; init; } = SystemAnswer<uint>.Ok(0);
        public SystemAnswer<WindowsDiskSpace> Space { get; init; } = SystemAnswer<WindowsDiskSpace>.Ok(new WindowsDiskSpace(1L << 40, 1L << 39));
        public int FlushError { get; init; }
        public string? Processor { get; init; }
        public int OSBuild { get; init; } = Windows11_23H2;

        public int PersistentStateQueries { get; private set; }
        public string? FlushedRoot { get; private set; }

        public string OSDescription => "Microsoft Windows 10.0." + OSBuild;
        public string? ProcessorName => Processor;

        public SystemAnswer<string> VolumeRoot(string path) => Root ?? SystemAnswer<string>.Ok(path[..3]);

        public bool IsNetworkDrive(string root) => false;

        public SystemAnswer<WindowsVolumeInformation> VolumeInformation(string root)
            => Information ?? SystemAnswer<WindowsVolumeInformation>.Ok(new WindowsVolumeInformation(FileSystem, Flags));

        public SystemAnswer<uint> PersistentVolumeState(string root)
        {
            PersistentStateQueries++;
            return PersistentState;
        }

        public SystemAnswer<WindowsDiskSpace> DiskSpace(string path) => Space;

        public int FlushVolume(string root)
        {
            FlushedRoot = root;
            return FlushError;
        }
    }
}
