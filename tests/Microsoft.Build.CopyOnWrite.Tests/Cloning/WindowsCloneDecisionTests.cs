using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// What the Windows engine decides from what Windows tells it: these run anywhere, the system calls that
/// feed them only on Windows.
/// </summary>
[TestClass]
public sealed class WindowsCloneDecisionTests
{
    private const long FourKiB = 4096;
    private const long SixtyFourKiB = 65536;
    private const long FourGiB = 4L << 30;
    private const uint ReFSFlags = WindowsCloneDecisions.FileSupportsBlockRefcounting | 0x3; // plus case-sensitive/case-preserving names
    private const uint FlagsWithoutBlockRefcounting = 0x3;


    [TestMethod]
    public void A_file_smaller_than_a_cluster_is_one_clone_of_one_whole_cluster()
    {
        IReadOnlyList<CloneChunk> chunks = WindowsCloneDecisions.PlanChunks(fileSize: 100, clusterBytes: FourKiB);

        CollectionAssert.AreEqual(new[] { new CloneChunk(0, FourKiB) }, chunks.ToArray());
    }

    [TestMethod]
    public void A_file_of_whole_clusters_is_cloned_to_its_exact_end()
    {
        IReadOnlyList<CloneChunk> chunks = WindowsCloneDecisions.PlanChunks(fileSize: 3 * SixtyFourKiB, clusterBytes: SixtyFourKiB);

        CollectionAssert.AreEqual(new[] { new CloneChunk(0, 3 * SixtyFourKiB) }, chunks.ToArray());
    }

    [TestMethod]
    public void The_last_clone_ends_at_the_cluster_boundary_after_the_end_of_file()
    {
        IReadOnlyList<CloneChunk> chunks = WindowsCloneDecisions.PlanChunks(fileSize: 10_000, clusterBytes: FourKiB);

        CollectionAssert.AreEqual(new[] { new CloneChunk(0, 3 * FourKiB) }, chunks.ToArray());
    }

    [TestMethod]
    public void An_empty_file_needs_no_clone_call()
    {
        IReadOnlyList<CloneChunk> chunks = WindowsCloneDecisions.PlanChunks(fileSize: 0, clusterBytes: FourKiB);

        Assert.AreEqual(0, chunks.Count);
    }

    [TestMethod]
    [DataRow(FourKiB, FourGiB)]
    [DataRow(SixtyFourKiB, FourGiB)]
    [DataRow(FourKiB, FourGiB - 1)]
    [DataRow(FourKiB, (10L << 30) + 12_345)]
    [DataRow(SixtyFourKiB, (10L << 30) + 12_345)]
    [DataRow(512L, 9L << 30)]
    public void A_file_of_4_GiB_or_more_is_cloned_in_cluster_aligned_calls_each_under_4_GiB(long clusterBytes, long fileSize)
    {
        IReadOnlyList<CloneChunk> chunks = WindowsCloneDecisions.PlanChunks(fileSize, clusterBytes);

        long coveredUpTo = 0;
        foreach (CloneChunk chunk in chunks)
        {
            Assert.AreEqual(coveredUpTo, chunk.Offset, "calls must follow each other without gap or overlap");
            Assert.IsTrue(chunk.Length > 0 && chunk.Length < FourGiB, $"length {chunk.Length} must be under 4 GiB");
            Assert.AreEqual(0, chunk.Offset % clusterBytes, $"offset {chunk.Offset} must be cluster aligned");
            Assert.AreEqual(0, chunk.Length % clusterBytes, $"length {chunk.Length} must be whole clusters");
            coveredUpTo += chunk.Length;
        }

        long endOfLastCluster = (fileSize + clusterBytes - 1) / clusterBytes * clusterBytes;
        Assert.AreEqual(endOfLastCluster, coveredUpTo, "the calls must cover the file up to its last cluster's end");
        Assert.AreEqual((int)Math.Ceiling((double)endOfLastCluster / (FourGiB - clusterBytes)), chunks.Count, "as few calls as the limit allows");
    }

    [TestMethod]
    public void A_file_of_exactly_4_GiB_takes_two_calls_because_each_must_be_under_4_GiB()
    {
        IReadOnlyList<CloneChunk> chunks = WindowsCloneDecisions.PlanChunks(FourGiB, FourKiB);

        CollectionAssert.AreEqual(new[] { new CloneChunk(0, FourGiB - FourKiB), new CloneChunk(FourGiB - FourKiB, FourKiB) }, chunks.ToArray());
    }

    [TestMethod]
    [DataRow(0L)]
    [DataRow(256L)]
    [DataRow(3000L)]
    [DataRow(4L << 20)]
    public void A_cluster_size_no_volume_has_is_refused_by_the_planner(long clusterBytes)
    {
        Assert.IsFalse(WindowsCloneDecisions.IsUsableClusterSize(clusterBytes));
        Assert.ThrowsExactly<ArgumentOutOfRangeException>(() => WindowsCloneDecisions.PlanChunks(FourKiB, clusterBytes));
    }

    [TestMethod]
    [DataRow(FourKiB)]
    [DataRow(SixtyFourKiB)]
    public void A_volume_with_block_refcounting_clones(long clusterBytes)
    {
        FallbackReason reason = WindowsCloneDecisions.WhyVolumeCannotClone(new WindowsVolume(ReFSFlags, "ReFS", isNetworkShare: false) { ClusterBytes = clusterBytes }, out string? detail);

        Assert.AreEqual(FallbackReason.None, reason);
        Assert.IsNull(detail);
    }

    [TestMethod]
    public void A_volume_without_block_refcounting_cannot_clone_and_is_named_in_the_detail()
    {
        FallbackReason reason = WindowsCloneDecisions.WhyVolumeCannotClone(new WindowsVolume(FlagsWithoutBlockRefcounting, "NTFS", isNetworkShare: false), out string? detail);

        Assert.AreEqual(FallbackReason.FileSystemCannotClone, reason);
        Assert.AreEqual("NTFS", detail);
    }

    [TestMethod]
    public void A_volume_that_cannot_be_queried_is_one_we_do_not_clone_on()
    {
        FallbackReason reason = WindowsCloneDecisions.WhyVolumeCannotClone(WindowsVolume.Unqueryable("The request is not supported."), out string? detail);

        Assert.AreEqual(FallbackReason.FileSystemCannotClone, reason);
        Assert.AreEqual("the source's volume (could not query it: The request is not supported.)", detail);
    }

    [TestMethod]
    public void A_network_share_is_not_cloned_over_whatever_its_server_advertises()
    {
        FallbackReason reason = WindowsCloneDecisions.WhyVolumeCannotClone(new WindowsVolume(ReFSFlags, "ReFS", isNetworkShare: true), out string? detail);

        Assert.AreEqual(FallbackReason.FileSystemCannotClone, reason);
        Assert.AreEqual(WindowsCloneDecisions.NetworkShare, detail);
    }

    [TestMethod]
    [DataRow(0L, true, DisplayName = "written this instant")]
    [DataRow(59L, true, DisplayName = "59 seconds ago")]
    [DataRow(61L, false, DisplayName = "61 seconds ago")]
    [DataRow(-3600L, true, DisplayName = "stamped an hour in the future")]
    public void A_source_counts_as_just_written_for_a_minute_and_when_stamped_in_the_future(long secondsAgo, bool recent)
    {
        long now = new DateTime(2026, 11, 22, 0, 0, 0, DateTimeKind.Utc).ToFileTimeUtc();

        Assert.AreEqual(recent, WindowsCloneDecisions.IsRecent(now - TimeSpan.FromSeconds(secondsAgo).Ticks, now, WindowsCloneEngine.RecentWriteWindow));
    }

    [TestMethod]
    [DataRow(20_480L, 5L, true, DisplayName = "five clusters, five shared")]
    [DataRow(20_000L, 5L, true, DisplayName = "a part cluster at the end counts as one")]
    [DataRow(20_000L, 4L, false, DisplayName = "one cluster not shared: data not on the disk")]
    [DataRow(1L, 0L, false, DisplayName = "nothing shared")]
    public void A_clone_is_evidence_of_data_on_the_disk_only_when_every_cluster_is_shared(long size, long shared, bool expected)
    {
        Assert.AreEqual(expected, WindowsCloneDecisions.IsFullyShared(shared, size, 4096));
    }

    [TestMethod]
    [DataRow(87, true, DisplayName = "87 invalid parameter: no POSIX rename")]
    [DataRow(50, true, DisplayName = "50 not supported")]
    [DataRow(6, true, DisplayName = "6 invalid handle, outside the documented list")]
    [DataRow(5, false, DisplayName = "5 access denied: about the destination")]
    [DataRow(32, false, DisplayName = "32 sharing violation: about the destination")]
    [DataRow(3, false, DisplayName = "3 path not found")]
    [DataRow(112, false, DisplayName = "112 disk full")]
    [DataRow(0, false, DisplayName = "success")]
    public void A_POSIX_rename_is_retried_as_a_classic_one_unless_its_error_is_about_the_destination_or_the_disk(int error, bool expected)
    {
        Assert.AreEqual(expected, WindowsCloneDecisions.TriesClassicRenameAfter(error));
    }

    [TestMethod]
    [DataRow(0x20u, 1u, true, DisplayName = "a regular file with one name")]
    [DataRow(0x20u, 2u, false, DisplayName = "a hard link")]
    [DataRow(0x420u, 1u, false, DisplayName = "a symbolic link or junction")]
    [DataRow(0x10u, 1u, false, DisplayName = "a folder")]
    public void Only_a_regular_file_with_one_name_is_ever_written_in_place(uint attributes, uint links, bool expected)
    {
        Assert.AreEqual(expected, WindowsCloneDecisions.IsSafeToWriteInPlace(new WindowsFileFacts(10, 1, attributes, 0, links)));
    }

    [TestMethod]
    public void Only_large_or_sparse_sources_get_the_sparse_flag_first()
    {
        Assert.IsFalse(WindowsCloneDecisions.SetsSparseFirst(new WindowsFileFacts(WindowsCloneDecisions.SparseFirstFromBytes - 1, 1, 0x20)));
        Assert.IsTrue(WindowsCloneDecisions.SetsSparseFirst(new WindowsFileFacts(WindowsCloneDecisions.SparseFirstFromBytes, 1, 0x20)));
        Assert.IsTrue(WindowsCloneDecisions.SetsSparseFirst(new WindowsFileFacts(10, 1, 0x20 | WindowsCloneDecisions.FileAttributeSparseFile)));
    }

    [TestMethod]
    public void Clones_of_one_source_path_in_any_case_share_one_gate()
    {
        var gates = new PathGates();

        Assert.AreSame(gates.For(@"D:\src\App.dll"), gates.For(@"d:\SRC\app.DLL"));
    }

    [TestMethod]
    [DataRow(0x21u, 0x20u, "read-only archive: writable archive")]
    [DataRow(0x01u, 0x80u, "read-only only: normal, said explicitly")]
    [DataRow(0x80u, 0x80u, "normal stays normal")]
    [DataRow(0x27u, 0x26u, "hidden, system and archive are kept, read-only is not")]
    [DataRow(0x8220u, 0x20u, "sparse and integrity are not attributes one sets")]
    [DataRow(0x2120u, 0x2120u, "temporary and not-content-indexed are kept")]
    public void The_destination_gets_the_source_attributes_it_can_be_given_but_never_read_only(uint source, uint expected, string because)
    {
        Assert.AreEqual(expected, WindowsCloneDecisions.DestinationAttributes(source), because);
    }

    [TestMethod]
    public void Sparseness_and_integrity_streams_are_read_from_the_attributes()
    {
        var facts = new WindowsFileFacts(1, 1, WindowsCloneDecisions.FileAttributeSparseFile | WindowsCloneDecisions.FileAttributeIntegrityStream);
        var plain = new WindowsFileFacts(1, 1, 0x20);

        Assert.IsTrue(facts.IsSparse);
        Assert.IsTrue(facts.HasIntegrityStream);
        Assert.IsFalse(plain.IsSparse);
        Assert.IsFalse(plain.HasIntegrityStream);
    }
}
