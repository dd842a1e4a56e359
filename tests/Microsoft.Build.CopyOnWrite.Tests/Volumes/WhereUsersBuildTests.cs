using System.IO;
using System.Linq;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Measure.SelfTest;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Volumes;

/// <summary>
/// docs/volumes.md's table "Where users build", row by row on real mounts: whether the kernel clones (coreutils'
/// `cp --reflink=always`), whether our build clones (a real build, in this process, of a project that imports the packed
/// SDK and copies one file with CopyOnWriteMode=Required; a clone proven by filefrag's shared extents), and what the
/// doctor says (its verdict by the Required rule, the copy's source named to it). The three must tell one story.
/// The forecast's row (btrfs subvolumes) is in the measurement tool's tests (Forecast/PredictOnMountsTests).
/// </summary>
[TestClass]
public sealed class WhereUsersBuildTests
{
    [TestMethod]
    public void Btrfs_subvolumes_mounted_apart_clone_between_each_other_and_all_three_say_so()
    {
        using Mounts mounts = UserMounts.BtrfsSubvolumes();
        Row row = Measure(mounts);

        row.Assert(clones: true);
        var catalog = new VolumeCatalog(VolumeCatalog.ForThisProcess(TimeSpan.Zero), TimeSpan.Zero);
        Assert.IsTrue(CloneRule.SameFileSystem(catalog.Locate(mounts.Source), catalog.Locate(mounts.Destination)), "one file system, two mount points");
    }

    [TestMethod]
    public void A_bind_mount_of_an_XFS_folder_clones_with_the_rest_of_the_volume_and_all_three_say_so()
    {
        using Mounts mounts = UserMounts.BindMount();
        Measure(mounts).Assert(clones: true);
    }

    [TestMethod]
    public void Overlayfs_on_XFS_clones_a_lower_layers_file_into_the_upper_layer_and_all_three_say_so()
    {
        using Mounts mounts = UserMounts.Overlay(LoopFileSystems.Xfs);
        Measure(mounts).Assert(clones: true);
    }

    [TestMethod]
    public void Overlayfs_on_ext4_does_not_clone_and_all_three_say_so()
    {
        using Mounts mounts = UserMounts.Overlay(LoopFileSystems.Ext4);
        Measure(mounts).Assert(clones: false);
    }

    [TestMethod]
    public void Fuse_overlayfs_on_XFS_does_not_clone_and_all_three_say_so()
    {
        using Mounts mounts = UserMounts.FuseOverlay(LoopFileSystems.Xfs);
        Measure(mounts).Assert(clones: false);
    }

    [TestMethod]
    public void Tmpfs_does_not_clone_and_all_three_say_so()
    {
        using Mounts mounts = UserMounts.Tmpfs();
        Measure(mounts).Assert(clones: false);
    }

    private static Row Measure(Mounts mounts)
    {
        ProcessResult kernel = UserMounts.KernelClone(mounts);

        string built = Path.Combine(mounts.Destination, "by-build.bin");
        string project = Path.Combine(TestScratch.NewFolder("where-users-build"), "copy.proj");
        File.WriteAllText(project, $"""
            <Project>
              <Import Project="{Path.Combine(SdkPackage.Extracted, "Sdk", "Sdk.props")}" />
              <Target Name="Build"><Copy SourceFiles="{Path.Combine(mounts.Source, UserMounts.Payload)}" DestinationFiles="{built}" /></Target>
              <Import Project="{Path.Combine(SdkPackage.Extracted, "Sdk", "Sdk.targets")}" />
            </Project>
            """);
        ProcessResult build = InProcessBuild.Build(project, ["-p:CopyOnWriteMode=Required", "-v:n"]);

        DoctorCheck doctor = DoctorCheck.Run(
            [
                new CheckedFolder(FolderRole.Repository, mounts.Destination),
                new CheckedFolder(FolderRole.BuildOutput, mounts.Destination),
                new CheckedFolder(FolderRole.CopiedFrom, mounts.Source),
            ],
            VolumeFactsInspector.ForThisProcess(),
            AdviceOS.Linux,
            BuildFacts.None,
            LinuxMounts.VolumesUsersKeepThatMayClone);
        return new Row(mounts, kernel, build, built, doctor);
    }

    private sealed record Row(Mounts Mounts, ProcessResult Kernel, ProcessResult Build, string Built, DoctorCheck Doctor)
    {
        public void Assert(bool clones)
        {
            string story = $"{Mounts.What}: {Mounts.Source} -> {Mounts.Destination}\n--- cp --reflink=always ---\n{Kernel.Output}\n--- our build (Required) ---\n{Build.Output}\n--- doctor ---\n{string.Join("\n", DoctorReport.Lines(Doctor))}";
            Microsoft.VisualStudio.TestTools.UnitTesting.Assert.AreEqual(clones, Kernel.Succeeded, "the kernel: " + story);
            Microsoft.VisualStudio.TestTools.UnitTesting.Assert.AreEqual(clones, Build.Succeeded, "our build with CopyOnWriteMode=Required: " + story);
            Microsoft.VisualStudio.TestTools.UnitTesting.Assert.AreEqual(clones, Doctor.RepositoryClones, "the doctor: " + story);
            Microsoft.VisualStudio.TestTools.UnitTesting.Assert.IsTrue(File.Exists(Built), "the build copied the file either way: " + story);
            if (clones)
            {
                SharedExtents.AssertAllShared(Built, "our build cloned it: " + Mounts.What);
                StringAssert.Contains(Doctor.Folders.First(f => f.Folder.Role == FolderRole.Repository).Volume.CloneEvidence, "probe clone (FICLONE) of a file of our own worked");
            }
            else
            {
                StringAssert.Contains(Build.Output, "COW001", story);
                Microsoft.VisualStudio.TestTools.UnitTesting.Assert.AreEqual(false, Doctor.Verdict.Clones, story);
            }
        }
    }
}
