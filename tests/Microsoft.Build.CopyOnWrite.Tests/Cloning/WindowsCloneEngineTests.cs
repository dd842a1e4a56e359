using System;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// The Windows engine against a fake volume that keeps the documented rules (see <see cref="FakeWindowsFileSystem"/>):
/// one test per failure mode the reference implementations learned the hard way (/work/shared/spec/windows-engine.md,
/// docs/windows-engine.md). The real kernel32 under the same seam runs under Wine in the Windows parity suite.
/// </summary>
[TestClass]
public sealed class WindowsCloneEngineTests
{
    private const string DevDrive = @"D:\";
    private const string Ntfs = @"C:\";
    private const string Source = @"D:\src\App.dll";
    private const string Destination = @"D:\out\App.dll";

    private static readonly long Now = new DateTime(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc).ToFileTimeUtc();
    private static readonly long YesterdayFileTime = Now - TimeSpan.FromDays(1).Ticks;
    private static readonly long SecondsAgo = Now - TimeSpan.FromSeconds(2).Ticks;

    private FakeWindowsFileSystem _files = null!;
    private FakeVolume _devDrive = null!;
    private FakeVolume _ntfs = null!;
    private WindowsCloneEngine _engine = null!;

    [TestInitialize]
    public void MakeVolumes()
    {
        _files = new FakeWindowsFileSystem();
        _devDrive = _files.AddVolume(DevDrive, "ReFS", serial: 0xD0D0, blockCloning: true, clusterBytes: 4096);
        _ntfs = _files.AddVolume(Ntfs, "NTFS", serial: 0xC0C0, blockCloning: false);
        foreach (string folder in new[] { @"D:\src", @"D:\out", @"C:\src", @"C:\out" })
        {
            _files.AddFolder(folder);
        }

        _engine = new WindowsCloneEngine(_files, new CloneCapabilityCache(), () => Now);
    }

    [TestMethod]
    public void A_file_on_a_Dev_Drive_is_cloned_sharing_its_clusters_with_the_times_the_stock_task_gives()
    {
        byte[] content = Bytes(100_000);
        _files.AddFile(Source, content, YesterdayFileTime);

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        Assert.AreEqual(content.Length, result.Bytes);
        CollectionAssert.AreEqual(content, _files[Destination].Data);
        Assert.IsTrue(_files[Destination].SharesClusters, "the file system's own record must show shared clusters");
        Assert.AreEqual(YesterdayFileTime, _files[Destination].LastWriteTime);
        AssertNoTemporaryFileIn(@"D:\out");
    }

    [TestMethod]
    public void A_large_clone_is_made_sparse_before_its_size_is_set_and_the_flag_is_cleared_after_the_clone()
    {
        _files.AddFile(Source, Bytes((int)WindowsCloneDecisions.SparseFirstFromBytes), YesterdayFileTime);

        _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        int sparse = _files.IndexOfCall("SetSparse " + @"D:\out\.App.dll");
        int size = _files.IndexOfCall("SetEndOfFile");
        int clone = _files.IndexOfCall("DuplicateExtents");
        int cleared = _files.Calls.FindIndex(line => line.StartsWith("SetSparse", StringComparison.Ordinal) && line.EndsWith("False", StringComparison.Ordinal));
        Assert.IsTrue(sparse >= 0 && sparse < size && size < clone && clone < cleared, string.Join(Environment.NewLine, _files.Calls));
        Assert.IsFalse(_files[Destination].Sparse, "a clone of a file that is not sparse must not stay sparse");
    }

    [TestMethod]
    public void A_small_clone_is_sized_without_the_sparse_flag_and_its_two_calls()
    {
        _files.AddFile(Source, Bytes(100_000), YesterdayFileTime);

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        Assert.AreEqual(0, _files.CallsTo("SetSparse"));
        Assert.IsFalse(_files[Destination].Sparse);
    }

    [TestMethod]
    [DataRow(1)]
    [DataRow(4095)]
    [DataRow(4096)]
    public void A_file_of_one_cluster_or_less_is_cloned_too_sharing_its_cluster(int size)
    {
        byte[] content = Bytes(size);
        _files.AddFile(Source, content, YesterdayFileTime);

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method, result.Detail);
        CollectionAssert.AreEqual(content, _files[Destination].Data);
        Assert.IsTrue(_files[Destination].SharesClusters, "the file system's own record must show shared clusters");
    }

    [TestMethod]
    public void A_sparse_source_gives_a_sparse_clone()
    {
        _files.AddFile(Source, Bytes(10_000), YesterdayFileTime).Sparse = true;

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        Assert.IsTrue(_files[Destination].Sparse);
    }

    [TestMethod]
    public void A_clone_on_a_nearly_full_volume_does_not_fail_for_space_because_it_is_then_sized_as_a_sparse_file()
    {
        byte[] content = Bytes(1 << 20);
        _files.AddFile(Source, content, YesterdayFileTime);
        _devDrive.FreeBytes = 4096;

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        CollectionAssert.AreEqual(content, _files[Destination].Data);
        Assert.IsFalse(_files[Destination].Sparse, "the flag set for the space is cleared after the clone");
    }

    [TestMethod]
    public void The_volume_is_asked_for_its_flags_and_cluster_size_once_and_through_the_open_source()
    {
        _files.AddFile(Source, Bytes(5000), YesterdayFileTime);
        _files.AddFile(@"D:\src\Other.dll", Bytes(7000), YesterdayFileTime);

        _engine.CloneOrCopy(Source, Destination, CancellationToken.None);
        _engine.CloneOrCopy(@"D:\src\Other.dll", @"D:\out\Other.dll", CancellationToken.None);

        Assert.AreEqual(1, _devDrive.FlagQueries, "flags: once per volume");
        Assert.AreEqual(1, _devDrive.IntegrityQueries, "cluster size: once per volume, from FSCTL_GET_INTEGRITY_INFORMATION on the source handle");
        Assert.AreEqual(_files.IndexOfCall("GetIntegrity " + Source), _files.IndexOfCall("GetIntegrity"), "asked of the source, not of a path");
    }

    [TestMethod]
    public void What_a_volume_said_is_asked_again_once_the_cache_lifetime_has_passed()
    {
        long ticks = 0;
        var engine = new WindowsCloneEngine(_files, new CloneCapabilityCache(TimeSpan.FromSeconds(30), () => ticks), () => Now);
        _files.AddFile(Source, Bytes(5000), YesterdayFileTime);

        engine.CloneOrCopy(Source, Destination, CancellationToken.None);
        ticks += 31 * System.Diagnostics.Stopwatch.Frequency;
        engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(2, _devDrive.FlagQueries);
    }

    [TestMethod]
    public void On_a_volume_without_block_refcounting_every_file_is_copied_with_CopyFile_and_the_volume_is_asked_once()
    {
        _files.AddFile(@"C:\src\a.dll", Bytes(5000), YesterdayFileTime);
        _files.AddFile(@"C:\src\b.dll", Bytes(6000), YesterdayFileTime);

        CloneResult first = _engine.CloneOrCopy(@"C:\src\a.dll", @"C:\out\a.dll", CancellationToken.None);
        CloneResult second = _engine.CloneOrCopy(@"C:\src\b.dll", @"C:\out\b.dll", CancellationToken.None);

        foreach (CloneResult result in new[] { first, second })
        {
            Assert.AreEqual(CloneMethod.Copied, result.Method);
            Assert.AreEqual(FallbackReason.FileSystemCannotClone, result.Reason);
            Assert.AreEqual("NTFS", result.Detail);
        }

        Assert.AreEqual(1, _ntfs.FlagQueries);
        Assert.AreEqual(0, _files.CallsTo("DuplicateExtents"));
        Assert.AreEqual(2, _files.CallsTo("CopyFile"));
        CollectionAssert.AreEqual(_files[@"C:\src\b.dll"].Data, _files[@"C:\out\b.dll"].Data);
    }

    [TestMethod]
    [DataRow("DuplicateExtents", 1450, DisplayName = "1450 insufficient resources, outside every table")]
    [DataRow("DuplicateExtents", 134, DisplayName = "134, seen on an older build")]
    [DataRow("DuplicateExtents", 50, DisplayName = "50 not supported, for this file")]
    [DataRow("DuplicateExtents", 87, DisplayName = "87 invalid parameter, for this file")]
    [DataRow("DuplicateExtents", 1, DisplayName = "1 invalid function")]
    [DataRow("DuplicateExtents", 5, DisplayName = "5 access denied")]
    [DataRow("SetEndOfFile", 87, DisplayName = "size refused")]
    [DataRow("GetIntegrity", 1, DisplayName = "cluster size unreadable")]
    public void Any_refusal_of_a_clone_step_makes_that_file_a_copy_and_the_next_file_still_clones(string step, int error)
    {
        byte[] first = Bytes(20_000, seed: 1);
        _files.AddFile(Source, first, YesterdayFileTime);
        _files.AddFile(@"D:\src\Next.dll", Bytes(9000), YesterdayFileTime);
        _files.Fail(step, error);

        CloneResult refused = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);
        CloneResult next = _engine.CloneOrCopy(@"D:\src\Next.dll", @"D:\out\Next.dll", CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, refused.Method);
        Assert.AreEqual(FallbackReason.FileSystemRefused, refused.Reason);
        StringAssert.Contains(refused.Detail, error.ToString());
        CollectionAssert.AreEqual(first, _files[Destination].Data);
        Assert.IsFalse(_files[Destination].SharesClusters, "a file reported as copied must not hold chunks cloned before the refusal");
        Assert.AreEqual(CloneMethod.Cloned, next.Method, "one file's refusal says nothing about the volume");
        AssertNoTemporaryFileIn(@"D:\out");
    }

    [TestMethod]
    [DataRow("DuplicateExtents", 112, DisplayName = "disk full")]
    [DataRow("DuplicateExtents", 1117, DisplayName = "I/O device error")]
    [DataRow("DuplicateExtents", 23, DisplayName = "CRC error")]
    [DataRow("SetEndOfFile", 1117, DisplayName = "I/O device error setting the size")]
    public void A_device_or_disk_full_error_fails_the_copy_naming_the_destination_and_changes_nothing(string step, int error)
    {
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);
        byte[] previous = Bytes(10, seed: 9);
        _files.AddFile(Destination, previous, YesterdayFileTime);
        _files.Fail(step, error);

        var thrown = Assert.ThrowsExactly<IOException>(() => _engine.CloneOrCopy(Source, Destination, CancellationToken.None));

        Assert.AreEqual(unchecked((int)0x80070000) | error, thrown.HResult);
        StringAssert.Contains(thrown.Message, Destination);
        CollectionAssert.AreEqual(previous, _files[Destination].Data);
        AssertNoTemporaryFileIn(@"D:\out");
    }

    [TestMethod]
    public void A_source_already_cloned_8175_times_is_copied_and_the_log_says_why()
    {
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime).References = FakeWindowsFileSystem.MaxReferencesPerCluster;

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        StringAssert.Contains(result.Detail, "8,175");
    }

    [TestMethod]
    [DataRow(1u, DisplayName = "a writer sharing reading")]
    [DataRow(7u, DisplayName = "a writer sharing reading, writing and deleting")]
    public void A_source_still_open_for_writing_is_a_sharing_violation_that_the_task_retries(uint writerShares)
    {
        _files.AddJustWrittenFile(Source, Bytes(20_000), SecondsAgo);
        using WindowsFile writer = _files.OpenAsAnotherProcess(Source, WindowsAccess.Write, (WindowsShare)writerShares);

        var thrown = Assert.ThrowsExactly<IOException>(() => _engine.CloneOrCopy(Source, Destination, CancellationToken.None));

        Assert.AreEqual(unchecked((int)0x80070020), thrown.HResult, "ERROR_SHARING_VIOLATION, which Copy retries with MSB3026");
        StringAssert.Contains(thrown.Message, Source);
        Assert.IsFalse(_files.Exists(Destination));
        AssertNoTemporaryFileIn(@"D:\out");
    }

    [TestMethod]
    public void The_fake_models_the_zero_filled_clone_a_just_written_source_gives_without_a_flush()
    {
        byte[] content = Bytes(20_000);
        _files.AddJustWrittenFile(Source, content, SecondsAgo);
        _files.AddFile(Destination, Array.Empty<byte>(), 0);
        using WindowsFile source = _files.OpenAsAnotherProcess(Source, WindowsAccess.Read, WindowsShare.Read);
        using WindowsFile clone = _files.OpenAsAnotherProcess(Destination, WindowsAccess.Read | WindowsAccess.Write, WindowsShare.Read);
        _files.SetEndOfFile(clone, content.Length);

        _files.DuplicateExtents(source, clone, new CloneChunk(0, 20_480));

        Assert.IsTrue(_files[Destination].Data.All(b => b == 0), "the hazard the engine guards against: right size, all zeros");
    }

    [TestMethod]
    public void A_just_written_source_already_on_the_disk_is_cloned_with_one_metadata_check_and_no_flush()
    {
        byte[] content = Bytes(20_000);
        _files.AddFile(Source, content, SecondsAgo); // written moments ago, and the lazy writer has written it

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        CollectionAssert.AreEqual(content, _files[Destination].Data);
        Assert.AreEqual(0, _files.Flushes, "no device flush on the hot path");
        Assert.AreEqual(1, _files.CallsTo("CountSharedClusters"), "the evidence: one refcount query of the clone");
    }

    [TestMethod]
    public void A_just_written_source_whose_data_is_still_in_the_cache_is_flushed_and_cloned_again_so_the_clone_holds_its_data()
    {
        byte[] content = Bytes(20_000);
        _files.AddJustWrittenFile(Source, content, SecondsAgo);

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        CollectionAssert.AreEqual(content, _files[Destination].Data, "never the zeros of the first clone");
        Assert.AreEqual(5, _files[Destination].SharedClusters, "20,000 bytes: five 4 KiB clusters, all shared");
        Assert.AreEqual(1, _files.Flushes);
        int flush = _files.IndexOfCall("Flush " + Source);
        Assert.IsTrue(_files.IndexOfCall("CountSharedClusters") < flush && flush < _files.Calls.FindLastIndex(line => line.StartsWith("DuplicateExtents", StringComparison.Ordinal)), string.Join(Environment.NewLine, _files.Calls));
        AssertNoTemporaryFileIn(@"D:\out");
    }

    [TestMethod]
    public void A_source_written_long_ago_is_neither_checked_nor_flushed()
    {
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);

        _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(0, _files.CallsTo("Flush"));
        Assert.AreEqual(0, _files.CallsTo("CountSharedClusters"));
    }

    [TestMethod]
    public void The_source_is_opened_non_cached()
    {
        _files.AddFile(Source, Bytes(20_000), SecondsAgo);

        _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(_files.IndexOfCall("Open " + Source), _files.IndexOfCall($"Open {Source} NoBuffering"));
    }

    [TestMethod]
    public void Clones_of_one_just_written_source_from_eight_threads_are_made_one_at_a_time()
    {
        byte[] content = Bytes(20_000);
        _files.AddFile(Source, content, SecondsAgo);
        _files.OnCall = call =>
        {
            if (call == "DuplicateExtents")
            {
                Thread.Sleep(20); // holds each clone open long enough for any other to overlap it
            }
        };

        CloneResult[] results = CloneFromThreads(Source, 8);

        Assert.AreEqual(1, _files.MostClonesOfOneSourceAtOnce, "concurrent clones of one fresh source are the race of microsoft/CopyOnWrite#12");
        Assert.IsTrue(results.All(result => result.Method == CloneMethod.Cloned));
        for (int i = 0; i < 8; i++)
        {
            CollectionAssert.AreEqual(content, _files[$@"D:\out\App{i}.dll"].Data);
        }
    }

    [TestMethod]
    public void Clones_of_a_settled_source_are_not_serialised()
    {
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);
        using var bothInside = new CountdownEvent(2);
        _files.OnCall = call =>
        {
            if (call == "DuplicateExtents" && !bothInside.IsSet)
            {
                bothInside.Signal();
                bothInside.Wait(TimeSpan.FromSeconds(10)); // returns at once when the other clone is in too
            }
        };

        CloneFromThreads(Source, 2);

        Assert.AreEqual(2, _files.MostClonesOfOneSourceAtOnce, "no hazard, so no waiting for each other");
    }

    [TestMethod]
    public void A_just_written_source_that_cannot_be_flushed_is_copied_not_cloned()
    {
        byte[] content = Bytes(20_000);
        _files.AddJustWrittenFile(Source, content, SecondsAgo).Attributes |= WindowsCloneDecisions.FileAttributeReadOnly;

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        StringAssert.Contains(result.Detail, "could not be flushed");
        CollectionAssert.AreEqual(content, _files[Destination].Data);
        Assert.AreEqual(0u, _files[Destination].Attributes & WindowsCloneDecisions.FileAttributeReadOnly, "the stock task leaves destinations writable");
    }

    [TestMethod]
    [DataRow(false, DisplayName = "the refcount query counts too few shared clusters")]
    [DataRow(true, DisplayName = "the refcount query fails")]
    public void A_just_written_clone_that_is_not_shared_even_after_a_flush_is_replaced_by_a_copy(bool queryFails)
    {
        byte[] content = Bytes(20_000);
        _files.AddFile(Source, content, SecondsAgo);
        if (queryFails)
        {
            _files.Fail("CountSharedClusters", 1, times: 2);
        }
        else
        {
            // As if the data left the disk before every clone: no flush can make this clone shared.
            _files.OnCall = call => _files[Source].Allocated = call == "DuplicateExtents" ? false : _files[Source].Allocated;
        }

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(WindowsCloneDecisions.CloneNotShared, result.Detail);
        Assert.AreEqual(1, _files.Flushes);
        CollectionAssert.AreEqual(content, _files[Destination].Data);
        Assert.IsFalse(_files[Destination].SharesClusters);
        AssertNoTemporaryFileIn(@"D:\out");
    }

    [TestMethod]
    public void A_copy_that_Windows_cloned_by_itself_is_reported_as_a_clone()
    {
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);
        _devDrive.CopyFileClones = true; // Windows 11 24H2: CopyFile block-clones on ReFS by itself
        _files.Fail("DuplicateExtents", 50);

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method, "reported from the file's clusters, not assumed");
        Assert.AreEqual(1, _files.CallsTo("CountSharedClusters"));
    }

    [TestMethod]
    public void A_copy_onto_a_volume_that_cannot_clone_is_reported_as_copied_without_asking_its_clusters()
    {
        _files.AddFile(@"C:\src\a.dll", Bytes(5000), YesterdayFileTime);
        _ntfs.CopyFileClones = true;

        CloneResult result = _engine.CloneOrCopy(@"C:\src\a.dll", @"C:\out\a.dll", CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(0, _files.CallsTo("CountSharedClusters"));
    }

    [TestMethod]
    public void Files_on_two_clone_capable_volumes_are_copied_as_different_volumes_and_leave_nothing_behind()
    {
        _files.AddVolume(@"E:\", "ReFS", serial: 0xE0E0, blockCloning: true);
        _files.AddFolder(@"E:\out");
        byte[] content = Bytes(20_000);
        _files.AddFile(Source, content, YesterdayFileTime);

        CloneResult result = _engine.CloneOrCopy(Source, @"E:\out\App.dll", CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(FallbackReason.DifferentVolumes, result.Reason);
        CollectionAssert.AreEqual(content, _files[@"E:\out\App.dll"].Data);
        AssertNoTemporaryFileIn(@"E:\out");
        Assert.AreEqual(1, _files.CallsTo("DuplicateExtents"), "tried once: which volume the new file is on is asked only after a refusal");
    }

    [TestMethod]
    public void Two_volumes_whose_serials_share_their_low_32_bits_are_told_apart()
    {
        FakeVolume refs = _files.AddVolume(@"F:\", "ReFS", serial: 0x1_0000_5151, blockCloning: true);
        _files.AddVolume(@"G:\", "NTFS", serial: 0x2_0000_5151, blockCloning: false);
        foreach (string folder in new[] { @"F:\src", @"F:\out", @"G:\src", @"G:\out" })
        {
            _files.AddFolder(folder);
        }

        _files.AddFile(@"G:\src\a.dll", Bytes(5000), YesterdayFileTime);
        _files.AddFile(@"F:\src\a.dll", Bytes(5000), YesterdayFileTime);

        CloneResult onNtfs = _engine.CloneOrCopy(@"G:\src\a.dll", @"G:\out\a.dll", CancellationToken.None);
        CloneResult onRefs = _engine.CloneOrCopy(@"F:\src\a.dll", @"F:\out\a.dll", CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, onNtfs.Method);
        Assert.AreEqual(CloneMethod.Cloned, onRefs.Method, "the volume cache is keyed on the 64-bit serial (FILE_ID_INFO)");
        Assert.AreEqual(1, refs.FlagQueries);
    }

    [TestMethod]
    public void The_copy_keeps_alternate_data_streams_attributes_and_last_write_time_and_is_never_read_only()
    {
        const uint HiddenArchiveReadOnly = 0x2 | 0x20 | 0x1;
        FakeNode source = _files.AddFile(@"C:\src\setup.exe", Bytes(3000), YesterdayFileTime, HiddenArchiveReadOnly);
        source.Streams["Zone.Identifier"] = new byte[] { 1, 2, 3 };

        _engine.CloneOrCopy(@"C:\src\setup.exe", @"C:\out\setup.exe", CancellationToken.None);

        FakeNode copy = _files[@"C:\out\setup.exe"];
        CollectionAssert.AreEqual(source.Streams["Zone.Identifier"], copy.Streams["Zone.Identifier"], "the Mark of the Web travels with the file, as with the stock task");
        Assert.AreEqual(0x2u | 0x20u, copy.Attributes);
        Assert.AreEqual(YesterdayFileTime, copy.LastWriteTime);
    }

    [TestMethod]
    public void A_copy_of_a_read_only_source_that_fails_after_CopyFile_leaves_no_temporary_file()
    {
        _files.AddFile(@"C:\src\setup.exe", Bytes(3000), YesterdayFileTime, attributes: WindowsCloneDecisions.FileAttributeReadOnly);
        _files.Fail("Rename", WindowsErrors.DiskFull, times: 2);

        Assert.ThrowsExactly<IOException>(() => _engine.CloneOrCopy(@"C:\src\setup.exe", @"C:\out\setup.exe", CancellationToken.None));

        AssertNoTemporaryFileIn(@"C:\out");
    }

    [TestMethod]
    public void Nothing_is_cloned_into_an_alternate_data_stream()
    {
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);

        CloneResult result = _engine.CloneOrCopy(Source, @"D:\out\notes.txt:extra", CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(WindowsCloneDecisions.AlternateDataStream, result.Detail);
        Assert.AreEqual(0, _files.CallsTo("DuplicateExtents"));
    }

    [TestMethod]
    public void Nothing_is_cloned_out_of_an_alternate_data_stream()
    {
        _files.AddFile(@"D:\src\notes.txt:extra", Bytes(20_000), YesterdayFileTime);

        CloneResult result = _engine.CloneOrCopy(@"D:\src\notes.txt:extra", Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(WindowsCloneDecisions.AlternateDataStream, result.Detail);
        Assert.AreEqual(0, _files.CallsTo("DuplicateExtents"));
    }

    [TestMethod]
    public void A_network_share_is_not_cloned_over_even_when_its_server_advertises_block_refcounting()
    {
        FakeVolume share = _files.AddVolume(@"\\server\builds\", "ReFS", serial: 0x5E5E, blockCloning: true);
        share.IsNetworkShare = true;
        _files.AddFolder(@"\\server\builds\out");
        _files.AddFile(@"\\server\builds\App.dll", Bytes(20_000), YesterdayFileTime);

        CloneResult result = _engine.CloneOrCopy(@"\\server\builds\App.dll", @"\\server\builds\out\App.dll", CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(WindowsCloneDecisions.NetworkShare, result.Detail);
        Assert.AreEqual(0, _files.CallsTo("DuplicateExtents"));
    }

    [TestMethod]
    public void An_open_destination_whose_reader_shares_delete_is_replaced_and_the_reader_keeps_the_old_file()
    {
        byte[] content = Bytes(20_000, seed: 2);
        byte[] old = Bytes(500, seed: 3);
        _files.AddFile(Source, content, YesterdayFileTime);
        _files.AddFile(Destination, old, YesterdayFileTime);
        using var reader = (FakeHandle)_files.OpenAsAnotherProcess(Destination, WindowsAccess.Read, WindowsShare.Read | WindowsShare.Delete);

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        CollectionAssert.AreEqual(content, _files[Destination].Data);
        CollectionAssert.AreEqual(old, reader.Node.Data, "a POSIX rename leaves the reader with the file it opened, whole");
        StringAssert.Contains(_files.Calls.First(line => line.StartsWith("Rename", StringComparison.Ordinal)), "posix");
    }

    [TestMethod]
    [DataRow(true, DisplayName = "with POSIX renames")]
    [DataRow(false, DisplayName = "without POSIX renames")]
    public void An_open_destination_whose_holder_shares_writing_but_not_delete_is_written_in_place_as_the_stock_task_writes_it(bool posixRenames)
    {
        _devDrive.HasPosixRename = posixRenames;
        byte[] content = Bytes(20_000, seed: 2);
        _files.AddFile(Source, content, YesterdayFileTime);
        _files.AddFile(Destination, Bytes(500, seed: 3), YesterdayFileTime);
        using var holder = (FakeHandle)_files.OpenAsAnotherProcess(Destination, WindowsAccess.Read, WindowsShare.Read | WindowsShare.Write);

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method, "cloned into the existing file");
        Assert.IsTrue(result.WrittenInPlace);
        CollectionAssert.AreEqual(content, _files[Destination].Data);
        Assert.AreSame(holder.Node, _files[Destination], "the same file, written in place: its holder sees the new data");
        Assert.AreEqual(YesterdayFileTime, _files[Destination].LastWriteTime);
        AssertNoTemporaryFileIn(@"D:\out");
    }

    [TestMethod]
    public void A_held_destination_that_refuses_a_clone_in_place_is_written_in_place_by_CopyFile_as_the_stock_task_writes_it()
    {
        byte[] content = Bytes(20_000, seed: 2);
        _files.AddFile(Source, content, YesterdayFileTime);
        _files.AddFile(Destination, Bytes(500, seed: 3), YesterdayFileTime);
        using var holder = (FakeHandle)_files.OpenAsAnotherProcess(Destination, WindowsAccess.Read, WindowsShare.Read | WindowsShare.Write);
        const int NoSystemResources = 1450; // a clone step's error that makes the file a copy
        _files.OnCall = call =>
        {
            if (call == "Rename")
            {
                _files.Fail("DuplicateExtents", NoSystemResources, times: 100); // the clone into the temporary file is made; the one into the held file fails
            }
        };

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.IsTrue(result.WrittenInPlace);
        CollectionAssert.AreEqual(content, holder.Node.Data, "the holder sees the new bytes, as after the stock task's File.Copy");
        Assert.AreEqual(1, _files.Calls.Count(line => line == $"CopyFile {Destination} replace"));
        AssertNoTemporaryFileIn(@"D:\out");
    }

    [TestMethod]
    public void On_a_volume_that_cannot_clone_a_held_destination_is_written_in_place_by_CopyFile_as_the_stock_task_writes_it()
    {
        byte[] content = Bytes(20_000, seed: 2);
        _files.AddFile(@"C:\src\a.dll", content, YesterdayFileTime);
        _files.AddFile(@"C:\out\a.dll", Bytes(500, seed: 3), YesterdayFileTime);
        using var holder = (FakeHandle)_files.OpenAsAnotherProcess(@"C:\out\a.dll", WindowsAccess.Read, WindowsShare.Read | WindowsShare.Write | WindowsShare.Delete);
        _ntfs.HasPosixRename = false; // FAT32, exFAT, Wine: the classic rename cannot replace an open file

        CloneResult result = _engine.CloneOrCopy(@"C:\src\a.dll", @"C:\out\a.dll", CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.IsTrue(result.WrittenInPlace);
        CollectionAssert.AreEqual(content, holder.Node.Data);
        Assert.AreEqual(1, _files.Calls.Count(line => line == @"CopyFile C:\out\a.dll replace"));
        AssertNoTemporaryFileIn(@"C:\out");
    }

    [TestMethod]
    [DataRow(true, DisplayName = "with POSIX renames")]
    [DataRow(false, DisplayName = "without POSIX renames")]
    public void An_open_destination_whose_holder_shares_only_reading_is_a_sharing_violation_naming_the_destination(bool posixRenames)
    {
        _devDrive.HasPosixRename = posixRenames;
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);
        byte[] old = Bytes(500, seed: 3);
        _files.AddFile(Destination, old, YesterdayFileTime);
        using WindowsFile reader = _files.OpenAsAnotherProcess(Destination, WindowsAccess.Read, WindowsShare.Read);

        var thrown = Assert.ThrowsExactly<IOException>(() => _engine.CloneOrCopy(Source, Destination, CancellationToken.None));

        Assert.AreEqual(unchecked((int)0x80070020), thrown.HResult, "a sharing violation, which Copy retries (MSB3026) like the stock task's");
        StringAssert.Contains(thrown.Message, Destination);
        CollectionAssert.AreEqual(old, _files[Destination].Data);
        AssertNoTemporaryFileIn(@"D:\out");
    }

    [TestMethod]
    [DataRow(2u, 0u, DisplayName = "a hard link: its other name would change too")]
    [DataRow(1u, WindowsCloneDecisions.FileAttributeReparsePoint, DisplayName = "a symbolic link: its target would change")]
    public void A_held_destination_that_is_a_link_is_never_written_through(uint links, uint attributes)
    {
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);
        byte[] old = Bytes(500, seed: 3);
        FakeNode destination = _files.AddFile(Destination, old, YesterdayFileTime, attributes: 0x20 | attributes);
        destination.Links = links;
        using WindowsFile holder = _files.OpenAsAnotherProcess(Destination, WindowsAccess.Read, WindowsShare.Read | WindowsShare.Write);

        var thrown = Assert.ThrowsExactly<IOException>(() => _engine.CloneOrCopy(Source, Destination, CancellationToken.None));

        Assert.AreEqual(unchecked((int)0x80070020), thrown.HResult, "the stock task's sharing violation, retried");
        CollectionAssert.AreEqual(old, _files[Destination].Data);
        Assert.AreEqual(0, _files.CallsTo("CopyFile"));
        AssertNoTemporaryFileIn(@"D:\out");
    }

    [TestMethod]
    public void A_POSIX_rename_refused_with_an_error_outside_the_known_list_falls_back_to_the_classic_rename()
    {
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);
        _files.Fail("Rename", 6); // ERROR_INVALID_HANDLE, e.g. from a 32-bit process on WOW64

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        string[] renames = _files.Calls.Where(line => line.StartsWith("Rename", StringComparison.Ordinal)).ToArray();
        CollectionAssert.AreEqual(new[] { "posix", "classic" }, renames.Select(line => line.Split(' ').Last()).ToArray());
    }

    [TestMethod]
    public void Without_POSIX_renames_an_open_destination_that_shares_delete_is_a_retried_sharing_violation_not_access_denied()
    {
        _devDrive.HasPosixRename = false;
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);
        _files.AddFile(Destination, Bytes(500), YesterdayFileTime);
        using WindowsFile reader = _files.OpenAsAnotherProcess(Destination, WindowsAccess.Read, WindowsShare.Read | WindowsShare.Delete);

        var thrown = Assert.ThrowsExactly<IOException>(() => _engine.CloneOrCopy(Source, Destination, CancellationToken.None));

        Assert.AreEqual(unchecked((int)0x80070020), thrown.HResult);
    }

    [TestMethod]
    public void A_file_system_without_POSIX_renames_gets_the_classic_rename_and_is_not_asked_again()
    {
        _devDrive.HasPosixRename = false;
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);

        _engine.CloneOrCopy(Source, Destination, CancellationToken.None);
        _engine.CloneOrCopy(Source, @"D:\out\Again.dll", CancellationToken.None);

        string[] renames = _files.Calls.Where(line => line.StartsWith("Rename", StringComparison.Ordinal)).ToArray();
        CollectionAssert.AreEqual(new[] { "posix", "classic", "classic" }, renames.Select(line => line.Split(' ').Last()).ToArray());
        Assert.IsTrue(_files.Exists(@"D:\out\Again.dll"));
    }

    [TestMethod]
    public void A_read_only_destination_that_cannot_be_replaced_is_access_denied()
    {
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);
        _files.AddFile(Destination, Bytes(500), YesterdayFileTime, attributes: WindowsCloneDecisions.FileAttributeReadOnly);

        Assert.ThrowsExactly<UnauthorizedAccessException>(() => _engine.CloneOrCopy(Source, Destination, CancellationToken.None));
        AssertNoTemporaryFileIn(@"D:\out");
    }

    [TestMethod]
    public void A_source_with_integrity_streams_gets_a_clone_with_them()
    {
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime).Integrity = true;

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        Assert.IsTrue(_files[Destination].Integrity);
    }

    [TestMethod]
    public void Where_the_volume_will_not_set_integrity_streams_a_source_with_them_is_copied()
    {
        _devDrive.AllowsSettingIntegrity = false;
        byte[] content = Bytes(20_000);
        _files.AddFile(Source, content, YesterdayFileTime).Integrity = true;

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual("integrity streams are on for the source only", result.Detail);
        CollectionAssert.AreEqual(content, _files[Destination].Data);
    }

    [TestMethod]
    public void An_empty_source_is_copied_without_asking_the_volume()
    {
        _files.AddFile(Source, Array.Empty<byte>(), YesterdayFileTime);

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(FallbackReason.EmptyFile, result.Reason);
        Assert.AreEqual(0, _devDrive.FlagQueries);
        Assert.AreEqual(0, _files[Destination].Data.Length);
    }

    [TestMethod]
    public void A_copy_cancelled_while_it_runs_throws_and_leaves_the_destination_as_it_was()
    {
        _files.AddFile(@"C:\src\a.dll", Bytes(5000), YesterdayFileTime);
        byte[] old = Bytes(10, seed: 4);
        _files.AddFile(@"C:\out\a.dll", old, YesterdayFileTime);
        using var cancellation = new CancellationTokenSource();
        _files.OnCall = call => { if (call == "CopyFile") cancellation.Cancel(); };

        Assert.ThrowsExactly<OperationCanceledException>(() => _engine.CloneOrCopy(@"C:\src\a.dll", @"C:\out\a.dll", cancellation.Token));

        CollectionAssert.AreEqual(old, _files[@"C:\out\a.dll"].Data);
        AssertNoTemporaryFileIn(@"C:\out");
    }

    [TestMethod]
    public void A_missing_source_is_named_as_the_stock_task_names_it()
    {
        var thrown = Assert.ThrowsExactly<FileNotFoundException>(() => _engine.CloneOrCopy(@"D:\src\Missing.dll", Destination, CancellationToken.None));

        StringAssert.Contains(thrown.Message, @"D:\src\Missing.dll");
    }

    [TestMethod]
    public void A_failing_copy_names_the_destination_never_the_temporary_file()
    {
        _files.AddFile(@"C:\src\a.dll", Bytes(5000), YesterdayFileTime);
        _files.Fail("CopyFile", WindowsErrors.DiskFull);

        var thrown = Assert.ThrowsExactly<IOException>(() => _engine.CloneOrCopy(@"C:\src\a.dll", @"C:\out\a.dll", CancellationToken.None));

        StringAssert.Contains(thrown.Message, @"C:\out\a.dll'");
        Assert.IsFalse(thrown.Message.Contains(AtomicFile.TemporarySuffix), thrown.Message);
    }

    [TestMethod]
    public void Every_handle_the_engine_opens_is_closed()
    {
        _files.AddFile(Source, Bytes(20_000), YesterdayFileTime);
        _files.AddJustWrittenFile(@"D:\src\Fresh.dll", Bytes(9000), SecondsAgo);
        _files.AddFile(@"C:\src\a.dll", Bytes(5000), YesterdayFileTime);
        _files.Fail("DuplicateExtents", 50);

        _engine.CloneOrCopy(Source, Destination, CancellationToken.None);
        _engine.CloneOrCopy(@"D:\src\Fresh.dll", @"D:\out\Fresh.dll", CancellationToken.None);
        _engine.CloneOrCopy(@"C:\src\a.dll", @"C:\out\a.dll", CancellationToken.None);

        foreach (string path in new[] { Source, Destination, @"D:\src\Fresh.dll", @"D:\out\Fresh.dll", @"C:\src\a.dll", @"C:\out\a.dll" })
        {
            Assert.AreEqual(0, _files[path].OpenHandles.Count, path);
        }
    }

    /// <summary>Clones <paramref name="source"/> to D:\out\App{i}.dll from threads of their own, all started before any is awaited.</summary>
    private CloneResult[] CloneFromThreads(string source, int count)
    {
        var results = new CloneResult[count];
        Thread[] threads = Enumerable.Range(0, count)
            .Select(i => new Thread(() => results[i] = _engine.CloneOrCopy(source, $@"D:\out\App{i}.dll", CancellationToken.None)))
            .ToArray();
        Array.ForEach(threads, thread => thread.Start());
        Array.ForEach(threads, thread => thread.Join());
        return results;
    }

    private void AssertNoTemporaryFileIn(string folder)
    {
        string[] leftovers = _files.FilesIn(folder).Where(path => path.EndsWith(AtomicFile.TemporarySuffix, StringComparison.Ordinal)).ToArray();
        Assert.AreEqual(0, leftovers.Length, string.Join(", ", leftovers));
    }

    private static byte[] Bytes(int count, int seed = 0) => SeededBytes.Of(count, seed);
}
