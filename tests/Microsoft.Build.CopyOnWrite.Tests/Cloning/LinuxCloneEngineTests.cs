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

    private static LinuxCloneEngine NewEngine(CloneCapabilityCache? cache = null) => new(cache ?? new CloneCapabilityCache(), RuntimeInformation.ProcessArchitecture);

    [TestMethod]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void A_file_on_a_clone_capable_file_system_is_cloned_and_shares_its_extents(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("clone");
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
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void Writing_into_a_clone_leaves_the_source_untouched(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("cow");
        string source = TestFiles.Write(folder, "source.bin", 2 * OneMiB);
        byte[] original = File.ReadAllBytes(source);
        string destination = Path.Combine(folder, "destination.bin");
        Assert.AreEqual(CloneMethod.Cloned, NewEngine().CloneOrCopy(source, destination, CancellationToken.None).Method);

        using (FileStream clone = new(destination, FileMode.Open, FileAccess.Write))
        {
            clone.Position = OneMiB;
            clone.Write(new byte[4096]);
        }

        CollectionAssert.AreEqual(original, File.ReadAllBytes(source), "the source changed when its clone was written");
        Assert.IsFalse(TestFiles.SameBytes(source, destination));
    }

    /// <summary>
    /// What the task tells the engine of the destination is a hint that orders its calls, never a promise: right or wrong,
    /// a destination is replaced whole (its other hard link keeps the old bytes), a missing one is created, and nothing
    /// is left beside it. Each case for a file with content (cloned) and an empty one (created at its name where free).
    /// </summary>
    [TestMethod]
    [DataRow("xfs", "RegularFile", true, 70_000)]
    [DataRow("xfs", "RegularFile", false, 70_000)]
    [DataRow("xfs", "Missing", true, 70_000)]
    [DataRow("xfs", "Unknown", true, 70_000)]
    [DataRow("xfs", "RegularFile", true, 0)]
    [DataRow("xfs", "RegularFile", false, 0)]
    [DataRow("xfs", "Missing", true, 0)]
    [DataRow("ext4", "RegularFile", true, 70_000)]
    [DataRow("ext4", "Missing", true, 70_000)]
    public void What_the_task_found_at_the_destination_orders_the_calls_and_right_or_wrong_the_file_is_replaced_whole(string kind, string found, bool exists, int size)
    {
        EntryKind hint = Enum.Parse<EntryKind>(found);
        string folder = LoopFileSystems.Require(kind).NewFolder("destination-hint");
        string source = TestFiles.Write(folder, "source.bin", size, seed: 1);
        string destination = Path.Combine(folder, "destination.bin");
        string otherName = Path.Combine(folder, "other-name.bin");
        byte[] old = [];
        if (exists)
        {
            old = File.ReadAllBytes(TestFiles.Write(folder, "destination.bin", 9_000, seed: 2));
            FileLinks.CreateHardLink(destination, otherName);
        }

        CloneResult result = NewEngine().CloneOrCopy(source, destination, CancellationToken.None, hint);

        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        Assert.AreEqual(File.GetLastWriteTimeUtc(source), File.GetLastWriteTimeUtc(destination));
        Assert.AreEqual(size == 0 ? FallbackReason.EmptyFile : kind == "xfs" ? FallbackReason.None : FallbackReason.FileSystemCannotClone, result.Reason);
        if (exists)
        {
            CollectionAssert.AreEqual(old, File.ReadAllBytes(otherName), "replaced, never written through: the old file's other name keeps its bytes");
            Assert.AreEqual(1, UnixFileFacts.Of(destination).Links, "a new file under the destination's name");
        }

        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
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

    [TestMethod]
    [DataRow("ext4", "xfs")]
    [DataRow("xfs", "btrfs")]
    [DataRow("btrfs", "xfs")]
    public void A_file_copied_to_another_file_system_is_copied_because_it_is_another_volume(string from, string to)
    {
        string source = TestFiles.Write(LoopFileSystems.Require(from).NewFolder("from"), "source.bin", OneMiB);
        string destination = Path.Combine(LoopFileSystems.Require(to).NewFolder("to"), "destination.bin");

        CloneResult result = NewEngine().CloneOrCopy(source, destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(FallbackReason.DifferentVolumes, result.Reason);
        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        SharedExtents.AssertNoneShared(destination, $"a copy from {from} to {to}");
    }

    [TestMethod]
    public void An_empty_file_is_created_empty_and_reported_as_copied_because_it_is_empty()
    {
        string folder = LoopFileSystems.Xfs.NewFolder("empty");
        string source = Path.Combine(folder, "empty.txt");
        File.WriteAllBytes(source, Array.Empty<byte>());
        string destination = Path.Combine(folder, "copy.txt");

        CloneResult result = NewEngine().CloneOrCopy(source, destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(FallbackReason.EmptyFile, result.Reason);
        Assert.AreEqual(0, new FileInfo(destination).Length);
    }

    /// <summary>A new destination of an empty source is created at its name (nothing to see half of); an existing one is still replaced.</summary>
    [TestMethod]
    [DataRow("xfs")]
    [DataRow("ext4")]
    public void An_empty_source_replaces_an_existing_file_or_symlink_and_never_writes_through_it(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("empty-existing");
        string source = Path.Combine(folder, "empty.txt");
        File.WriteAllBytes(source, Array.Empty<byte>());
        string target = TestFiles.Write(folder, "target.bin", 10_000);
        byte[] targetContent = File.ReadAllBytes(target);
        string overFile = TestFiles.Write(folder, "old.bin", 10_000);
        long oldInode = UnixFileFacts.Of(overFile).Inode;
        string overLink = Path.Combine(folder, "link.bin");
        File.CreateSymbolicLink(overLink, target);
        string overDanglingLink = Path.Combine(folder, "dangling.bin");
        File.CreateSymbolicLink(overDanglingLink, Path.Combine(folder, "nowhere.bin"));

        foreach (string destination in new[] { overFile, overLink, overDanglingLink })
        {
            NewEngine().CloneOrCopy(source, destination, CancellationToken.None);
            Assert.AreEqual("regular empty file", UnixFileFacts.Of(destination).Type, destination); // stat's words: a file, not a link
        }

        Assert.AreNotEqual(oldInode, UnixFileFacts.Of(overFile).Inode, "an existing file is replaced, not truncated");
        CollectionAssert.AreEqual(targetContent, File.ReadAllBytes(target), "the copy wrote through the symlink");
        Assert.IsFalse(File.Exists(Path.Combine(folder, "nowhere.bin")), "the copy created the dangling link's target");
        Assert.AreEqual(0, TestFiles.TemporaryLeftovers(folder).Length);
    }

    [TestMethod]
    public void A_pseudo_file_that_reports_size_zero_is_copied_with_its_real_content()
    {
        string destination = Path.Combine(TestScratch.NewFolder("proc"), "version.txt");

        CloneResult result = NewEngine().CloneOrCopy("/proc/version", destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        StringAssert.StartsWith(File.ReadAllText(destination), "Linux version");
    }

    [TestMethod]
    public void A_pseudo_file_that_reports_size_zero_and_holds_more_than_one_read_is_copied_whole_onto_xfs()
    {
        const string Symbols = "/proc/kallsyms"; // size 0, megabytes on read
        string destination = Path.Combine(LoopFileSystems.Xfs.NewFolder("proc-big"), "kallsyms.txt");

        CloneResult result = NewEngine().CloneOrCopy(Symbols, destination, CancellationToken.None);

        byte[] expected = File.ReadAllBytes(Symbols);
        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(FallbackReason.EmptyFile, result.Reason);
        Assert.IsTrue(expected.Length > 1 << 16, "the premise: more than one 64 KiB read");
        Assert.AreEqual(expected.LongLength, result.Bytes);
        CollectionAssert.AreEqual(expected, File.ReadAllBytes(destination));
    }

    [TestMethod]
    public void A_pseudo_file_that_reports_more_than_it_holds_is_copied_with_its_real_content()
    {
        const string OnlineCpus = "/sys/devices/system/cpu/online"; // sysfs says 4096 bytes; it holds a few
        if (!File.Exists(OnlineCpus))
        {
            Assert.Inconclusive($"SKIPPED: {OnlineCpus} is not there (no sysfs).");
        }

        string destination = Path.Combine(LoopFileSystems.Btrfs.NewFolder("sysfs"), "online.txt");

        CloneResult result = NewEngine().CloneOrCopy(OnlineCpus, destination, CancellationToken.None);

        string expected = File.ReadAllText(OnlineCpus);
        Assert.AreEqual(4096, new FileInfo(OnlineCpus).Length, "the premise: sysfs reports more than the content");
        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(expected, File.ReadAllText(destination));
        Assert.AreEqual(expected.Length, result.Bytes);
    }

    /// <summary>
    /// An empty file is read once, as File.Copy reads it: that read moves the source's access time (relatime,
    /// an access time older than a day), and File.Copy carries the moved one over. Field by field, as below.
    /// </summary>
    [TestMethod]
    [DataRow("xfs", "644")]
    [DataRow("btrfs", "444")]
    [DataRow("ext4", "755")]
    public void An_empty_file_gets_the_times_and_mode_File_Copy_gives_it_made_owner_writable(string kind, string sourceMode)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("empty-metadata");
        string source = Path.Combine(folder, "empty.txt");
        File.WriteAllBytes(source, Array.Empty<byte>());
        string byFileCopy = Path.Combine(folder, "by-file-copy.txt");
        string byEngine = Path.Combine(folder, "by-engine.txt");
        const string Modified = "2001-02-03 04:05:06.123456789";
        const string Accessed = "2002-03-04 05:06:07.987654321";
        UnixFileFacts.SetMode(source, sourceMode);

        UnixFileFacts.SetTimes(source, Modified, Accessed);
        UnixFileFacts sourceBefore = UnixFileFacts.Of(source);
        File.Copy(source, byFileCopy);
        UnixFileFacts sourceAfterFileCopy = UnixFileFacts.Of(source);
        UnixFileFacts.SetTimes(source, Modified, Accessed);
        CloneResult result = NewEngine().CloneOrCopy(source, byEngine, CancellationToken.None);
        UnixFileFacts sourceAfterEngine = UnixFileFacts.Of(source);

        UnixFileFacts expected = UnixFileFacts.Of(byFileCopy);
        UnixFileFacts actual = UnixFileFacts.Of(byEngine);
        Assert.AreEqual(FallbackReason.EmptyFile, result.Reason);
        Assert.AreEqual(0, actual.Size);
        Assert.AreEqual(expected.ModifiedNanoseconds, actual.ModifiedNanoseconds, "last-write time");
        Assert.AreNotEqual(sourceBefore.AccessedNanoseconds, sourceAfterFileCopy.AccessedNanoseconds, "File.Copy's read of the empty source moved its access time (the premise)");
        Assert.AreEqual(sourceAfterFileCopy.AccessedNanoseconds, expected.AccessedNanoseconds, "File.Copy's last-access time (the premise)");
        Assert.AreNotEqual(sourceBefore.AccessedNanoseconds, sourceAfterEngine.AccessedNanoseconds, "the engine reads the empty source as File.Copy does");
        Assert.AreEqual(sourceAfterEngine.AccessedNanoseconds, actual.AccessedNanoseconds, "last-access time");
        Assert.AreEqual(sourceMode, expected.Mode, "File.Copy keeps the mode (the premise of this test)");
        Assert.AreEqual(Convert.ToString(Convert.ToInt32(sourceMode, 8) | 0x80, 8), actual.Mode, "File.Copy's mode plus owner-write");
    }

    /// <summary>Field by field against File.Copy (what the stock task uses), plus the stock task's owner-writable rule.</summary>
    [TestMethod]
    [DataRow("xfs", "644")]
    [DataRow("xfs", "755")]
    [DataRow("xfs", "444")]
    [DataRow("xfs", "555")]
    [DataRow("btrfs", "600")]
    [DataRow("ext4", "755")]
    [DataRow("ext4", "444")]
    public void The_destination_has_the_bytes_times_and_mode_File_Copy_gives_it_made_owner_writable(string kind, string sourceMode)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("metadata");
        string source = TestFiles.Write(folder, "tool.sh", 300_000);
        string byFileCopy = Path.Combine(folder, "by-file-copy.sh");
        string byEngine = Path.Combine(folder, "by-engine.sh");
        const string Modified = "2001-02-03 04:05:06.123456789";
        const string Accessed = "2002-03-04 05:06:07.987654321";
        UnixFileFacts.SetMode(source, sourceMode);

        UnixFileFacts.SetTimes(source, Modified, Accessed);
        File.Copy(source, byFileCopy);
        UnixFileFacts sourceAfterFileCopy = UnixFileFacts.Of(source);
        UnixFileFacts.SetTimes(source, Modified, Accessed);
        NewEngine().CloneOrCopy(source, byEngine, CancellationToken.None);
        UnixFileFacts sourceAfterEngine = UnixFileFacts.Of(source);

        UnixFileFacts expected = UnixFileFacts.Of(byFileCopy);
        UnixFileFacts actual = UnixFileFacts.Of(byEngine);
        Assert.IsTrue(TestFiles.SameBytes(byFileCopy, byEngine));
        Assert.AreEqual(expected.Size, actual.Size);
        Assert.AreEqual(expected.ModifiedNanoseconds, actual.ModifiedNanoseconds, "last-write time");
        // Reading the source may move its access time (relatime); File.Copy carries the source's access
        // time as it is after the copy, so each destination matches its own source reading.
        Assert.AreEqual(sourceAfterFileCopy.AccessedNanoseconds, expected.AccessedNanoseconds, "File.Copy's last-access time (the premise)");
        Assert.AreEqual(sourceAfterEngine.AccessedNanoseconds, actual.AccessedNanoseconds, "last-access time");
        Assert.AreEqual(sourceMode, expected.Mode, "File.Copy keeps the mode (the premise of this test)");
        string ownerWritable = Convert.ToString(Convert.ToInt32(sourceMode, 8) | 0x80, 8);
        Assert.AreEqual(ownerWritable, actual.Mode, "File.Copy's mode plus owner-write, as the stock Copy task leaves it");
    }

    [TestMethod]
    [DataRow("xfs")]
    [DataRow("ext4")]
    public void An_existing_destination_that_is_a_hard_link_is_replaced_not_written_through(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("hardlink");
        string source = TestFiles.Write(folder, "new.bin", 100_000);
        string packageCacheFile = TestFiles.Write(folder, "cache.bin", 100_000);
        byte[] cacheContent = File.ReadAllBytes(packageCacheFile);
        string destination = Path.Combine(folder, "destination.bin");
        Assert.IsTrue(ProcessRunner.Run("ln", packageCacheFile, destination).Succeeded);

        NewEngine().CloneOrCopy(source, destination, CancellationToken.None);

        CollectionAssert.AreEqual(cacheContent, File.ReadAllBytes(packageCacheFile), "the copy wrote through the hard link");
        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        Assert.AreEqual(1, UnixFileFacts.Of(destination).Links);
        Assert.AreEqual(0, TestFiles.TemporaryLeftovers(folder).Length);
    }

    [TestMethod]
    [DataRow("xfs")]
    [DataRow("ext4")]
    public void An_existing_destination_that_is_a_symlink_is_replaced_by_a_file_and_its_target_is_untouched(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("symlink");
        string source = TestFiles.Write(folder, "new.bin", 100_000);
        string target = TestFiles.Write(folder, "target.bin", 100_000);
        byte[] targetContent = File.ReadAllBytes(target);
        string destination = Path.Combine(folder, "destination.bin");
        File.CreateSymbolicLink(destination, target);

        NewEngine().CloneOrCopy(source, destination, CancellationToken.None);

        CollectionAssert.AreEqual(targetContent, File.ReadAllBytes(target), "the copy wrote through the symlink");
        Assert.AreEqual("regular file", UnixFileFacts.Of(destination).Type);
        Assert.IsTrue(TestFiles.SameBytes(source, destination));
    }

    [TestMethod]
    public void A_missing_source_throws_FileNotFound_and_leaves_the_old_destination_and_no_temporary_file()
    {
        string folder = LoopFileSystems.Xfs.NewFolder("missing");
        string destination = TestFiles.Write(folder, "destination.bin", 1000);
        byte[] before = File.ReadAllBytes(destination);

        Assert.ThrowsExactly<FileNotFoundException>(() => NewEngine().CloneOrCopy(Path.Combine(folder, "absent.bin"), destination, CancellationToken.None));

        CollectionAssert.AreEqual(before, File.ReadAllBytes(destination));
        Assert.AreEqual(0, TestFiles.TemporaryLeftovers(folder).Length);
    }

    [TestMethod]
    public void A_cancelled_copy_throws_and_leaves_neither_a_destination_nor_a_temporary_file()
    {
        string folder = LoopFileSystems.Ext4.NewFolder("cancel");
        string source = TestFiles.Write(folder, "source.bin", OneMiB);
        string destination = Path.Combine(folder, "destination.bin");
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();

        Assert.ThrowsExactly<OperationCanceledException>(() => NewEngine().CloneOrCopy(source, destination, cancelled.Token));

        Assert.IsFalse(File.Exists(destination));
        Assert.AreEqual(0, TestFiles.TemporaryLeftovers(folder).Length);
    }

    [TestMethod]
    public void A_refusal_is_remembered_for_the_volume_pair_so_the_next_file_is_not_tried_again()
    {
        var cache = new CloneCapabilityCache();
        LinuxCloneEngine engine = NewEngine(cache);
        string from = LoopFileSystems.Ext4.NewFolder("from");
        string to = LoopFileSystems.Xfs.NewFolder("to");

        CloneResult first = engine.CloneOrCopy(TestFiles.Write(from, "a.bin", 10_000), Path.Combine(to, "a.bin"), CancellationToken.None);
        CloneResult second = engine.CloneOrCopy(TestFiles.Write(from, "b.bin", 10_000), Path.Combine(to, "b.bin"), CancellationToken.None);

        Assert.AreEqual(FallbackReason.DifferentVolumes, first.Reason);
        Assert.AreEqual(FallbackReason.DifferentVolumes, second.Reason);
        Assert.IsNotNull(cache.RememberedRefusal(VolumePairOf(Path.Combine(from, "a.bin"), Path.Combine(to, "a.bin"))));
    }

    [TestMethod]
    public void A_forgotten_refusal_lets_a_later_file_clone_when_the_volume_can()
    {
        // A node that outlives a remount must not keep copying on a volume that now clones.
        long now = 0;
        var cache = new CloneCapabilityCache(TimeSpan.FromSeconds(30), () => now);
        LinuxCloneEngine engine = NewEngine(cache);
        string folder = LoopFileSystems.Xfs.NewFolder("stale");
        string source = TestFiles.Write(folder, "source.bin", 100_000);
        string destination = Path.Combine(folder, "destination.bin");
        cache.RememberRefusal(VolumePairOf(source, destination), FallbackReason.FileSystemCannotClone, "XFS");

        CloneResult whileRemembered = engine.CloneOrCopy(source, destination, CancellationToken.None);
        now += (long)(31 * System.Diagnostics.Stopwatch.Frequency);
        CloneResult afterExpiry = engine.CloneOrCopy(source, destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, whileRemembered.Method, "a remembered refusal is believed");
        SharedExtents.AssertAllShared(destination, "cloned once the refusal expired");
        Assert.AreEqual(CloneMethod.Cloned, afterExpiry.Method);
    }

    [TestMethod]
    public void A_refusal_remembered_for_another_destination_volume_does_not_stop_a_clone_from_the_same_source_volume()
    {
        var cache = new CloneCapabilityCache();
        LinuxCloneEngine engine = NewEngine(cache);
        string folder = LoopFileSystems.Xfs.NewFolder("other-pair");
        string source = TestFiles.Write(folder, "source.bin", 100_000);
        string destination = Path.Combine(folder, "destination.bin");
        VolumePair here = VolumePairOf(source, destination);
        cache.RememberRefusal(here with { DestinationVolume = here.DestinationVolume + 1 }, FallbackReason.DifferentVolumes, null);

        CloneResult result = engine.CloneOrCopy(source, destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        SharedExtents.AssertAllShared(destination, "cloned although the source's volume was refused elsewhere");
    }

    private static VolumePair VolumePairOf(string source, string destination)
        => new PlainFiles().VolumesOf(source, destination);
}
