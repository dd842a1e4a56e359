using System;
using System.Buffers.Binary;
using System.Text;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// What the macOS engine decides, and how it reads Apple's structs: these run anywhere, the system calls
/// that feed them only on macOS.
/// </summary>
[TestClass]
public sealed class MacCloneDecisionTests
{
    private const uint RegularFile = 0x8000; // S_IFREG
    private const uint Directory = 0x4000;   // S_IFDIR
    private const uint Fifo = 0x1000;        // S_IFIFO

    private static MacFileStatus StatusOf(uint type, long size) => new() { Mode = type | 0x1A4, Size = size, Device = 16777231 };

    [TestMethod]
    [DataRow(Directory)]
    [DataRow(Fifo)]
    public void A_source_that_is_not_a_regular_file_is_copied_without_trying_to_clone(uint type)
    {
        FallbackReason reason = MacCloneDecisions.WhyNotClone(StatusOf(type, size: 10), remembered: null, out _);

        Assert.AreEqual(FallbackReason.NotARegularFile, reason);
    }

    [TestMethod]
    public void An_empty_source_is_copied_because_there_is_nothing_to_clone()
    {
        FallbackReason reason = MacCloneDecisions.WhyNotClone(StatusOf(RegularFile, size: 0), remembered: null, out _);

        Assert.AreEqual(FallbackReason.EmptyFile, reason);
    }

    [TestMethod]
    public void A_remembered_refusal_is_reused_without_calling_clonefile_again()
    {
        var remembered = new CloneCapabilityCache.Refusal(FallbackReason.FileSystemCannotClone, "hfs", WhenTicks: 0);

        FallbackReason reason = MacCloneDecisions.WhyNotClone(StatusOf(RegularFile, size: 10), remembered, out string? detail);

        Assert.AreEqual(FallbackReason.FileSystemCannotClone, reason);
        Assert.AreEqual("hfs", detail);
    }

    [TestMethod]
    public void A_regular_non_empty_file_with_nothing_remembered_is_tried()
    {
        FallbackReason reason = MacCloneDecisions.WhyNotClone(StatusOf(RegularFile, size: 10), remembered: null, out string? detail);

        Assert.AreEqual(FallbackReason.None, reason);
        Assert.IsNull(detail);
    }

    [TestMethod]
    public void A_clone_across_volumes_falls_back_as_different_volumes()
    {
        FallbackReason? reason = MacCloneDecisions.FallbackForCloneError(18, "apfs", "Cross-device link", out string? detail); // EXDEV

        Assert.AreEqual(FallbackReason.DifferentVolumes, reason);
        Assert.IsNull(detail);
    }

    [TestMethod]
    [DataRow(45)]  // ENOTSUP: not APFS
    [DataRow(102)] // EOPNOTSUPP
    public void A_file_system_that_cannot_clone_is_named_by_its_type(int errno)
    {
        FallbackReason? reason = MacCloneDecisions.FallbackForCloneError(errno, "msdos", "Operation not supported", out string? detail);

        Assert.AreEqual(FallbackReason.FileSystemCannotClone, reason);
        Assert.AreEqual("msdos", detail);
    }

    [TestMethod]
    public void A_refusal_of_one_file_gives_the_system_error_as_its_reason()
    {
        FallbackReason? reason = MacCloneDecisions.FallbackForCloneError(1, "apfs", "Operation not permitted", out string? detail); // EPERM

        Assert.AreEqual(FallbackReason.FileSystemRefused, reason);
        Assert.AreEqual("Operation not permitted", detail);
    }

    [TestMethod]
    [DataRow(5)]  // EIO
    [DataRow(28)] // ENOSPC
    [DataRow(69)] // EDQUOT
    [DataRow(17)] // EEXIST: our temporary name was taken, nothing a copy would fix
    public void A_real_failure_of_clonefile_is_not_turned_into_a_copy(int errno)
    {
        FallbackReason? reason = MacCloneDecisions.FallbackForCloneError(errno, "apfs", "whatever", out _);

        Assert.IsNull(reason);
    }

    [TestMethod]
    [DataRow(0x8124u, 0x1A4u, "r--r--r-- becomes rw-r--r--")]
    [DataRow(0x81EDu, 0x1EDu, "rwxr-xr-x stays as it is")]
    [DataRow(0x8DEDu, 0x1EDu, "setuid and setgid are not carried over, as File.Copy does not")]
    [DataRow(0x8000u, 0x080u, "no permissions at all still leaves the owner able to write")]
    public void The_destination_keeps_the_source_permissions_and_is_writable_by_its_owner(uint sourceMode, uint expected, string because)
    {
        Assert.AreEqual(expected, MacCloneDecisions.DestinationPermissions(sourceMode), because);
    }

    [TestMethod]
    public void A_read_only_source_is_not_owner_writable_and_a_normal_one_is()
    {
        Assert.IsFalse(MacCloneDecisions.IsOwnerWritable(0x8124));
        Assert.IsTrue(MacCloneDecisions.IsOwnerWritable(0x81A4));
    }

    [TestMethod]
    public void A_struct_stat_is_read_at_the_offsets_of_Apples_64_bit_inode_layout()
    {
        // Filled in the order and at the offsets of __DARWIN_STRUCT_STAT64, with padding before st_atimespec.
        byte[] stat = new byte[MacStructLayouts.StatBytes];
        BinaryPrimitives.WriteInt32LittleEndian(stat.AsSpan(0), 16777231);          // st_dev
        BinaryPrimitives.WriteUInt16LittleEndian(stat.AsSpan(4), 0x8124);           // st_mode
        BinaryPrimitives.WriteUInt16LittleEndian(stat.AsSpan(6), 1);                // st_nlink
        BinaryPrimitives.WriteUInt64LittleEndian(stat.AsSpan(8), 0x1234567890);     // st_ino
        BinaryPrimitives.WriteInt64LittleEndian(stat.AsSpan(32), 1_700_000_001);    // st_atimespec.tv_sec
        BinaryPrimitives.WriteInt64LittleEndian(stat.AsSpan(40), 111_111_111);      // st_atimespec.tv_nsec
        BinaryPrimitives.WriteInt64LittleEndian(stat.AsSpan(48), 1_700_000_002);    // st_mtimespec.tv_sec
        BinaryPrimitives.WriteInt64LittleEndian(stat.AsSpan(56), 222_222_222);      // st_mtimespec.tv_nsec
        BinaryPrimitives.WriteInt64LittleEndian(stat.AsSpan(64), 1_700_000_003);    // st_ctimespec.tv_sec
        BinaryPrimitives.WriteInt64LittleEndian(stat.AsSpan(80), 1_600_000_000);    // st_birthtimespec.tv_sec
        BinaryPrimitives.WriteInt64LittleEndian(stat.AsSpan(96), 5_000_000_000);    // st_size
        BinaryPrimitives.WriteInt64LittleEndian(stat.AsSpan(104), 9_765_632);       // st_blocks

        MacFileStatus status = MacStructLayouts.ParseStat(stat);

        Assert.AreEqual(16777231UL, status.Device);
        Assert.AreEqual(0x8124u, status.Mode);
        Assert.IsTrue(status.IsRegularFile);
        Assert.AreEqual(5_000_000_000L, status.Size);
    }

    [TestMethod]
    public void A_negative_dev_t_is_kept_as_its_32_bits_so_equal_devices_stay_equal()
    {
        byte[] stat = new byte[MacStructLayouts.StatBytes];
        BinaryPrimitives.WriteInt32LittleEndian(stat.AsSpan(0), -2);

        Assert.AreEqual(0xFFFFFFFEUL, MacStructLayouts.ParseStat(stat).Device);
    }

    [TestMethod]
    [DataRow("apfs")]
    [DataRow("msdos")]
    [DataRow("sixteen_chars_xx")] // fills f_fstypename[16] with no terminating NUL
    public void The_file_system_type_name_is_read_from_f_fstypename(string name)
    {
        byte[] statfs = new byte[MacStructLayouts.StatfsBytes];
        BinaryPrimitives.WriteInt32LittleEndian(statfs.AsSpan(48), 16777231); // f_fsid
        Encoding.ASCII.GetBytes(name).CopyTo(statfs, 72);
        statfs[88] = (byte)'/'; // f_mntonname follows it

        Assert.AreEqual(name, MacStructLayouts.ParseFileSystemTypeName(statfs));
    }
}
