using System.IO;
using System.Linq;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Measure.SelfTest;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Volumes;

/// <summary>
/// The volume component on real Linux volumes (loop-mounted XFS, btrfs and ext4, read-only bind mounts, links): the
/// build's answers (<see cref="VolumeCatalog"/>) and the facts the tool reports from them (<see cref="LinuxVolumeFacts"/>).
/// </summary>
[TestClass]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class LinuxVolumesTests
{
    [TestMethod]
    [DataRow("xfs", true)]
    [DataRow("btrfs", true)]
    [DataRow("ext4", false)]
    public void A_writable_folder_is_located_on_its_mount_and_a_probe_clone_tells_whether_it_clones(string kind, bool clones)
    {
        LoopFileSystem volume = LoopFileSystems.Require(kind);
        string folder = volume.NewFolder("inspect");

        bool? buildSays = Catalog().CanClone(folder);
        VolumeFacts facts = new LinuxVolumeFacts().Inspect(folder, mayWrite: true);

        Assert.AreEqual(clones, buildSays, "the build's answer");
        Assert.AreEqual(volume.MountPoint, facts.Root);
        Assert.AreEqual(kind, facts.FileSystem);
        Assert.AreEqual(clones, facts.CanClone, facts.CloneEvidence);
        StringAssert.Contains(facts.CloneEvidence, "probe clone (FICLONE)");
        Assert.AreEqual(0, Directory.GetFileSystemEntries(folder).Length, "the probe files must be gone");
    }

    [TestMethod]
    public void A_path_that_does_not_exist_yet_is_on_the_volume_of_its_nearest_existing_folder()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string notYet = Path.Combine(xfs.NewFolder("future"), "bin", "Release", "net8.0");

        VolumeLocation location = Catalog().Locate(notYet);

        Assert.AreEqual((xfs.MountPoint, "xfs"), (location.Root, location.FileSystem));
        StringAssert.Matches(location.FileSystemId, new System.Text.RegularExpressions.Regex(@"^\d+:\d+$"), "the file system's device, from the mount table");
        Assert.IsFalse(Directory.Exists(notYet), "locating must not create the folder");
    }

    [TestMethod]
    public void A_folder_reached_through_a_link_on_another_volume_is_on_the_link_targets_volume()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        LoopFileSystem ext4 = LoopFileSystems.Ext4;
        string target = xfs.NewFolder("target");
        string link = Path.Combine(ext4.NewFolder("links"), "checkout");
        Directory.CreateSymbolicLink(link, target);

        VolumeCatalog catalog = Catalog();

        Assert.AreEqual(xfs.MountPoint, catalog.Locate(Path.Combine(link, "obj")).Root);
        Assert.IsTrue(CloneRule.SameFileSystem(catalog.Locate(Path.Combine(link, "obj")), catalog.Locate(target)));
        Assert.IsFalse(CloneRule.SameFileSystem(catalog.Locate(link + "-not-a-link"), catalog.Locate(target)));
    }

    [TestMethod]
    [DataRow("btrfs", true, "btrfs always clones")]
    [DataRow("ext4", false, "ext4 cannot clone")]
    [DataRow("xfs", true, "the XFS volume's own flags (XFS_IOC_FSGEOMETRY) say reflink is on")]
    public void A_read_only_folder_gets_no_probe_file_and_is_judged_by_its_volumes_flags_or_its_file_systems_kind(string kind, bool? clones, string evidence)
    {
        LoopFileSystem volume = LoopFileSystems.Require(kind);
        string folder = volume.NewFolder("read-only-source");
        File.WriteAllText(Path.Combine(folder, "user-file.txt"), "never touched");
        string readOnly = volume.NewFolder("read-only-view");
        Mount("--bind", folder, readOnly);
        try
        {
            Mount("-o", "remount,bind,ro", readOnly);

            VolumeFacts facts = new LinuxVolumeFacts().Inspect(readOnly, mayWrite: true);

            Assert.IsNull(Catalog().CanClone(readOnly), "the build does not guess where it cannot probe (a link asked for is made)");
            Assert.AreEqual(clones, facts.CanClone, facts.CloneEvidence);
            StringAssert.Contains(facts.CloneEvidence, evidence);
            StringAssert.Contains(facts.CloneEvidence, "cannot be written to");
            CollectionAssert.AreEqual(new[] { "user-file.txt" }, Directory.GetFileSystemEntries(folder).Select(Path.GetFileName).ToArray());
        }
        finally
        {
            ProcessRunner.Run("umount", readOnly);
        }
    }

    [TestMethod]
    public void The_mount_table_is_read_with_its_escapes_and_a_mount_point_mounted_over_keeps_its_last_file_system()
    {
        string[] lines =
        [
            "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
            "40 22 7:0 / /mnt/build\\040cache rw,relatime shared:2 - xfs /dev/loop0 rw,attr2",
            "41 40 7:1 / /mnt/build\\040cache rw,relatime shared:3 - btrfs /dev/loop1 rw",
            "42 22 0:45 / /tmp rw,nosuid shared:4 - tmpfs tmpfs rw",
        ];

        var mounts = LinuxVolumes.ParseMountInfo(lines).ToDictionary(m => m.Point, m => m.FileSystem);

        Assert.AreEqual("btrfs", mounts["/mnt/build cache"]);
        Assert.AreEqual("ext4", mounts["/"]);
        Assert.AreEqual("tmpfs", mounts["/tmp"]);
        Assert.AreEqual(3, mounts.Count);
    }

    [TestMethod]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void The_driver_line_the_self_test_reports_is_the_mount_tables_account_of_the_mount(string kind)
    {
        LoopFileSystem volume = LoopFileSystems.Require(kind);

        string? line = LinuxMounts.DriverLineOf(volume.MountPoint + "/");

        StringAssert.StartsWith(line, $"{kind} on /dev/loop");
        StringAssert.Contains(line, ", mount options rw");
        StringAssert.Contains(line, ", file system options ");
        Assert.IsNull(LinuxMounts.DriverLineOf(volume.NewFolder("not-a-mount")), "a folder that is no mount point has no driver line");
    }

    [TestMethod]
    public void What_was_learnt_about_a_volume_is_reused_within_the_catalogs_lifetime_and_asked_again_after_it()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        var counting = new CountingInspector(new LinuxVolumes(TimeSpan.Zero));
        var catalog = new VolumeCatalog(counting, TimeSpan.FromHours(1));

        catalog.CanClone(xfs.NewFolder("a"));
        catalog.CanClone(xfs.NewFolder("b"));
        var stale = new VolumeCatalog(counting, TimeSpan.Zero);
        stale.CanClone(xfs.NewFolder("c"));
        stale.CanClone(xfs.NewFolder("d"));

        Assert.AreEqual(3, counting.Probes, "one probe for the long-lived catalog, one per call once stale");
    }

    [TestMethod]
    public void A_paths_volume_is_found_once_while_the_mount_table_is_believed_and_found_afresh_by_a_catalog_that_believes_nothing()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string folder = xfs.NewFolder("located");
        var counting = new CountingInspector(new LinuxVolumes(TimeSpan.Zero));
        var remembering = new VolumeCatalog(counting, TimeSpan.FromHours(1));
        var fresh = new VolumeCatalog(counting, TimeSpan.Zero);

        VolumeLocation first = remembering.Locate(folder);
        VolumeLocation again = remembering.Locate(folder);
        fresh.Locate(folder);
        fresh.Locate(folder);

        Assert.AreEqual("xfs", first.FileSystem);
        Assert.AreEqual(first, again);
        Assert.AreEqual(3, counting.Locations, "one lookup for the catalog that remembers, one per call for the fresh one");
    }

    private static VolumeCatalog Catalog() => new(new LinuxVolumes(TimeSpan.Zero), TimeSpan.Zero);

    private static void Mount(params string[] arguments)
    {
        ProcessResult result = ProcessRunner.Run("mount", arguments);
        if (result.ExitCode != 0)
        {
            Assert.Inconclusive($"SKIPPED: mount {string.Join(' ', arguments)} failed (needs root): {result.Output}");
        }
    }

    private sealed class CountingInspector(IVolumeInspector inner) : IVolumeInspector
    {
        public int Probes { get; private set; }

        public int Locations { get; private set; }

        public VolumeLocation Locate(string path)
        {
            Locations++;
            return inner.Locate(path);
        }

        public bool? CanClone(string folder)
        {
            Probes++;
            return inner.CanClone(folder);
        }
    }
}
