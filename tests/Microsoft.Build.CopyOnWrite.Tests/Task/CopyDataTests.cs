using Microsoft.Build.CopyOnWrite.Savings;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Task;

/// <summary>The machine-readable line every Copy logs, and the folder arithmetic behind the diagnoses.</summary>
[TestClass]
public sealed class CopyDataTests
{
    [TestMethod]
    public void The_data_line_round_trips_with_paths_that_need_escaping()
    {
        var data = new CopyData { ClonedFiles = 12, ClonedBytes = 50_541_363, CopiedFiles = 3, CopiedBytes = 1_153_433, LinkedFiles = 1, UpToDateFiles = 40, UpToDateBytes = 1234 };
        data.Reasons.Add(new CopyData.ReasonEntry("DifferentVolumes", "", 3, 1_153_433));
        data.CrossVolume.Add(new CopyData.CrossVolumeEntry("/root/.nuget/packages", "/src/my app,1/bin", "/", "/src", 3, 1_153_433, "ext4", "xfs", SourceOrigin.PackageCache));

        string line = data.Format();
        CopyData? parsed = CopyDataReader.TryParse(line);

        StringAssert.StartsWith(line, "CopyOnWrite data: v=1 cloned=12,50541363 copied=3,1153433 linked=1 uptodate=40,1234 ");
        Assert.IsNotNull(parsed);
        Assert.AreEqual(12, parsed.ClonedFiles);
        Assert.AreEqual(1_153_433, parsed.CopiedBytes);
        Assert.AreEqual(40, parsed.UpToDateFiles);
        Assert.AreEqual(data.Reasons[0], parsed.Reasons[0]);
        Assert.AreEqual(data.CrossVolume[0], parsed.CrossVolume[0], "a space and a comma in a path survive");
    }

    [TestMethod]
    public void Clones_made_where_links_were_asked_for_round_trip_and_a_line_without_them_reads_as_none()
    {
        var data = new CopyData { ClonedFiles = 3, ClonedBytes = 300, ClonedInsteadOfLinksFiles = 2, ClonedInsteadOfLinksBytes = 200 };

        string line = data.Format();
        CopyData? parsed = CopyDataReader.TryParse(line);
        CopyData? without = CopyDataReader.TryParse(new CopyData { ClonedFiles = 3, ClonedBytes = 300 }.Format());

        StringAssert.Contains(line, " uptodate=0,0 insteadoflinks=2,200");
        Assert.AreEqual(2, parsed!.ClonedInsteadOfLinksFiles);
        Assert.AreEqual(200, parsed.ClonedInsteadOfLinksBytes);
        Assert.IsFalse(without!.Format().Contains("insteadoflinks", System.StringComparison.Ordinal), "the field is written only where there were some: a build without the setting logs what it logged before");
        Assert.AreEqual(0, without.ClonedInsteadOfLinksFiles);
    }

    [TestMethod]
    public void Links_replaced_by_clones_round_trip_and_a_line_without_them_reads_as_none()
    {
        var data = new CopyData { ClonedFiles = 3, ClonedBytes = 300, ClonedInsteadOfLinksFiles = 1, ClonedInsteadOfLinksBytes = 100, ReplacedLinksFiles = 2, ReplacedLinksBytes = 200 };

        string line = data.Format();
        CopyData? parsed = CopyDataReader.TryParse(line);
        CopyData? without = CopyDataReader.TryParse(new CopyData { ClonedFiles = 3, ClonedBytes = 300 }.Format());

        StringAssert.Contains(line, " insteadoflinks=1,100 replacedlinks=2,200");
        Assert.AreEqual((2, 200L), (parsed!.ReplacedLinksFiles, parsed.ReplacedLinksBytes));
        Assert.IsFalse(without!.Format().Contains("replacedlinks", System.StringComparison.Ordinal), "written only where there were some: a build without the setting logs what it logged before");
        Assert.AreEqual(0, without.ReplacedLinksFiles);
    }

    [TestMethod]
    public void The_volumes_cloned_on_and_copied_within_round_trip_and_a_line_without_them_reads_as_none()
    {
        var data = new CopyData { ClonedFiles = 5, ClonedBytes = 500, ClonedOnVolume = "/mnt/build cache", ClonedOnFileSystem = "xfs" };
        data.CopiedOn.Add(new CopyData.CopiedOnEntry("/", "ext4", 2, 20));
        data.CopiedOn.Add(new CopyData.CopiedOnEntry(@"D:\", "NTFS", 1, 10));

        CopyData? parsed = CopyDataReader.TryParse(data.Format());
        CopyData? older = CopyDataReader.TryParse("CopyOnWrite data: v=1 cloned=5,500 copied=0,0 linked=0 uptodate=0,0");

        Assert.IsNotNull(parsed);
        Assert.AreEqual("/mnt/build cache", parsed.ClonedOnVolume);
        Assert.AreEqual("xfs", parsed.ClonedOnFileSystem);
        CollectionAssert.AreEqual(data.CopiedOn, parsed.CopiedOn);
        Assert.IsNotNull(older);
        Assert.AreEqual(string.Empty, older.ClonedOnVolume, "a line from a task before these fields names no volume");
        Assert.AreEqual(0, older.CopiedOn.Count);
    }

    [TestMethod]
    public void A_cross_volume_entry_of_an_earlier_v1_line_without_file_systems_still_reads()
    {
        CopyData? parsed = CopyDataReader.TryParse("CopyOnWrite data: v=1 cloned=0,0 copied=1,10 linked=0 uptodate=0,0 reason=DifferentVolumes,xfs,1,10 crossvolume=%2Fa,%2Fb,%2F,%2Fb,1,10");

        Assert.IsNotNull(parsed);
        Assert.AreEqual(new CopyData.CrossVolumeEntry("/a", "/b", "/", "/b", 1, 10, "", "", SourceOrigin.Movable), parsed.CrossVolume[0]);
    }

    [TestMethod]
    public void Other_messages_and_unknown_versions_are_not_data()
    {
        Assert.IsNull(CopyDataReader.TryParse("CopyOnWrite: cloned 2 files (19.1 MiB)."));
        Assert.IsNull(CopyDataReader.TryParse("CopyOnWrite data: v=2 cloned=1,1"));
        Assert.IsNull(CopyDataReader.TryParse("CopyOnWrite data: v=1 cloned=x,1"));
        Assert.IsNotNull(CopyDataReader.TryParse("CopyOnWrite data: v=1 cloned=1,1 future=whatever"), "unknown fields are ignored");
    }

    [TestMethod]
    [DataRow("/a/b/c", "/a/b/d", "/a/b")]
    [DataRow("/a/b", "/a/b", "/a/b")]
    [DataRow("/a/bc", "/a/b", "/a")]
    [DataRow("/x", "/y", "/")]
    public void The_common_folder_is_compared_by_whole_path_components(string left, string right, string expected)
        => Assert.AreEqual(expected, NotClonedFiles.CommonFolder(left, right));

    [TestMethod]
    public void The_cross_volume_diagnosis_advises_moving_the_package_cache_when_that_is_where_files_come_from()
    {
        string fromCache = CopyOnWriteCodes.CrossVolumeText(312, 1_288_490_189, "/root/.nuget/packages", "/src/app", SourceOrigin.PackageCache);

        Assert.AreEqual("CopyOnWrite: 312 files (1.2 GiB) in this Copy were copied, not cloned, because they come from /root/.nuget/packages on another volume than /src/app; put the package cache on the same volume (set NUGET_PACKAGES to a folder there, then run `dotnet restore`) to clone them." + CopyOnWriteCodes.DoctorHint, fromCache);
    }
}
