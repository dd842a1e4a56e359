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

    private static readonly WindowsFileFacts SourceOnVolumeA = new(Size: 1 << 20, VolumeSerial: 0xA, Attributes: 0x20);
    private static readonly WindowsFileFacts DestinationOnVolumeA = new(Size: 0, VolumeSerial: 0xA, Attributes: 0x20);

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

    [DataTestMethod]
    [DataRow(FourKiB, FourGiB)]
    [DataRow(SixtyFourKiB, FourGiB)]
    [DataRow(FourKiB, FourGiB - 1)]
    [DataRow(FourKiB, (10L << 30) + 12_345)]
    [DataRow(SixtyFourKiB, (10L << 30) + 12_345)]
    [DataRow(512L, 9L << 30)]
    public void A_file_of_4_GiB_or_more_is_cloned_in_cluster_aligned_calls_each_under_4_GiB(long clusterBytes, long fileSize)
    {
        IReadOnlyList<CloneChunk> chunks = WindowsCloneDecisions.PlanChunks(fileSize, clusterBytes);

        long expectedOffset = 0;
        foreach (CloneChunk chunk in chunks)
        {
            Assert.AreEqual(expectedOffset, chunk.Offset, "calls must follow each other without gap or overlap");
            Assert.IsTrue(chunk.Length > 0 && chunk.Length < FourGiB, $"length {chunk.Length} must be under 4 GiB");
            Assert.AreEqual(0, chunk.Offset % clusterBytes, $"offset {chunk.Offset} must be cluster aligned");
            Assert.AreEqual(0, chunk.Length % clusterBytes, $"length {chunk.Length} must be whole clusters");
            expectedOffset += chunk.Length;
        }

        long endOfLastCluster = (fileSize + clusterBytes - 1) / clusterBytes * clusterBytes;
        Assert.AreEqual(endOfLastCluster, expectedOffset, "the calls must cover the file up to its last cluster's end");
        Assert.AreEqual((int)Math.Ceiling((double)endOfLastCluster / (FourGiB - clusterBytes)), chunks.Count, "as few calls as the limit allows");
    }

    [TestMethod]
    public void A_file_of_exactly_4_GiB_takes_two_calls_because_each_must_be_under_4_GiB()
    {
        IReadOnlyList<CloneChunk> chunks = WindowsCloneDecisions.PlanChunks(FourGiB, FourKiB);

        CollectionAssert.AreEqual(new[] { new CloneChunk(0, FourGiB - FourKiB), new CloneChunk(FourGiB - FourKiB, FourKiB) }, chunks.ToArray());
    }

    [DataTestMethod]
    [DataRow(0L)]
    [DataRow(256L)]
    [DataRow(3000L)]
    [DataRow(4L << 20)]
    public void A_cluster_size_no_volume_has_is_refused_by_the_planner(long clusterBytes)
    {
        Assert.IsFalse(WindowsCloneDecisions.IsUsableClusterSize(clusterBytes));
        Assert.ThrowsException<ArgumentOutOfRangeException>(() => WindowsCloneDecisions.PlanChunks(FourKiB, clusterBytes));
    }

    [TestMethod]
    public void An_empty_source_is_copied_because_there_is_nothing_to_clone()
    {
        var emptySource = SourceOnVolumeA with { Size = 0 };

        FallbackReason reason = WindowsCloneDecisions.WhyNotCloneThisFile(emptySource, DestinationOnVolumeA, remembered: null, out string? detail);

        Assert.AreEqual(FallbackReason.EmptyFile, reason);
        Assert.IsNull(detail);
    }

    [TestMethod]
    public void Files_on_volumes_with_different_serial_numbers_are_copied_as_different_volumes()
    {
        var destinationOnVolumeB = DestinationOnVolumeA with { VolumeSerial = 0xB };

        FallbackReason reason = WindowsCloneDecisions.WhyNotCloneThisFile(SourceOnVolumeA, destinationOnVolumeB, remembered: null, out _);

        Assert.AreEqual(FallbackReason.DifferentVolumes, reason);
    }

    [TestMethod]
    public void A_remembered_refusal_is_reused_without_asking_the_volume_again()
    {
        var remembered = new CloneCapabilityCache.Refusal(FallbackReason.FileSystemCannotClone, "NTFS", whenTicks: 0);

        FallbackReason reason = WindowsCloneDecisions.WhyNotCloneThisFile(SourceOnVolumeA, DestinationOnVolumeA, remembered, out string? detail);

        Assert.AreEqual(FallbackReason.FileSystemCannotClone, reason);
        Assert.AreEqual("NTFS", detail);
    }

    [TestMethod]
    public void Files_whose_integrity_stream_settings_differ_are_copied_because_ReFS_refuses_to_clone_them()
    {
        var sourceWithIntegrity = SourceOnVolumeA with { Attributes = SourceOnVolumeA.Attributes | WindowsCloneDecisions.FileAttributeIntegrityStream };

        FallbackReason reason = WindowsCloneDecisions.WhyNotCloneThisFile(sourceWithIntegrity, DestinationOnVolumeA, remembered: null, out string? detail);

        Assert.AreEqual(FallbackReason.FileSystemRefused, reason);
        StringAssert.Contains(detail, "integrity");
    }

    [TestMethod]
    public void A_non_empty_file_on_the_same_volume_with_nothing_remembered_goes_on_to_ask_the_volume()
    {
        FallbackReason reason = WindowsCloneDecisions.WhyNotCloneThisFile(SourceOnVolumeA, DestinationOnVolumeA, remembered: null, out string? detail);

        Assert.AreEqual(FallbackReason.None, reason);
        Assert.IsNull(detail);
    }

    [DataTestMethod]
    [DataRow(FourKiB)]
    [DataRow(SixtyFourKiB)]
    public void A_volume_with_block_refcounting_and_a_real_cluster_size_clones(long clusterBytes)
    {
        FallbackReason reason = WindowsCloneDecisions.WhyVolumeCannotClone(new WindowsVolumeFacts(ReFSFlags, "ReFS", clusterBytes), out string? detail);

        Assert.AreEqual(FallbackReason.None, reason);
        Assert.IsNull(detail);
    }

    [TestMethod]
    public void A_volume_without_block_refcounting_cannot_clone_and_is_named_in_the_detail()
    {
        FallbackReason reason = WindowsCloneDecisions.WhyVolumeCannotClone(new WindowsVolumeFacts(FlagsWithoutBlockRefcounting, "NTFS", ClusterBytes: 0), out string? detail);

        Assert.AreEqual(FallbackReason.FileSystemCannotClone, reason);
        Assert.AreEqual("NTFS", detail);
    }

    [TestMethod]
    public void A_volume_that_cannot_be_queried_is_one_we_do_not_clone_on()
    {
        var unqueryable = new WindowsVolumeFacts(0, string.Empty, 0, QueryFailure: "The request is not supported.");

        FallbackReason reason = WindowsCloneDecisions.WhyVolumeCannotClone(unqueryable, out string? detail);

        Assert.AreEqual(FallbackReason.FileSystemCannotClone, reason);
        Assert.AreEqual("the destination volume (could not query it: The request is not supported.)", detail);
    }

    [TestMethod]
    public void A_cloning_volume_whose_cluster_size_cannot_be_read_is_one_we_do_not_clone_on()
    {
        var noClusterSize = new WindowsVolumeFacts(ReFSFlags, "ReFS", 0, QueryFailure: "Access is denied.");

        FallbackReason reason = WindowsCloneDecisions.WhyVolumeCannotClone(noClusterSize, out string? detail);

        Assert.AreEqual(FallbackReason.FileSystemCannotClone, reason);
        Assert.AreEqual("ReFS (could not query it: Access is denied.)", detail);
    }

    [DataTestMethod]
    [DataRow(FallbackReason.DifferentVolumes, true)]
    [DataRow(FallbackReason.FileSystemCannotClone, true)]
    [DataRow(FallbackReason.FileSystemRefused, false)]
    [DataRow(FallbackReason.EmptyFile, false)]
    public void Only_refusals_about_the_volumes_are_remembered_for_the_volume_pair(object reason, bool remembered)
    {
        Assert.AreEqual(remembered, WindowsCloneDecisions.IsAboutTheVolumes((FallbackReason)reason));
    }

    [DataTestMethod]
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

        Assert.IsTrue(facts.IsSparse);
        Assert.IsTrue(facts.HasIntegrityStream);
        Assert.IsFalse(DestinationOnVolumeA.IsSparse);
        Assert.IsFalse(DestinationOnVolumeA.HasIntegrityStream);
    }
}
