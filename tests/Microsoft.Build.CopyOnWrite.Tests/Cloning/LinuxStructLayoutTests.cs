using System.IO;
using System.Runtime.InteropServices;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// Where struct statfs keeps f_type and f_fsid, per processor: the file system's name in messages and the
/// refusal cache's key come from them. s390x differs (4-byte f_type, f_fsid at 48; linux arch/s390 statfs.h).
/// </summary>
[TestClass]
public sealed unsafe class LinuxStructLayoutTests
{
    [TestMethod]
    [DataRow(Architecture.X64)]
    [DataRow(Architecture.Arm64)]
    [DataRow(Architecture.Ppc64le)]
    [DataRow(Architecture.RiscV64)]
    [DataRow(Architecture.LoongArch64)]
    public void A_generic_64_bit_statfs_has_a_word_sized_type_and_the_id_at_56(Architecture architecture)
    {
        StatfsLayout layout = LinuxNative.StatfsLayoutFor(architecture)!.Value;

        Assert.IsFalse(layout.TypeIsFourBytes);
        Assert.AreEqual(56, layout.IdOffset);
    }

    [TestMethod]
    public void The_s390x_statfs_has_a_four_byte_type_and_the_id_at_48()
    {
        StatfsLayout layout = LinuxNative.StatfsLayoutFor(Architecture.S390x)!.Value;

        Assert.IsTrue(layout.TypeIsFourBytes);
        Assert.AreEqual(48, layout.IdOffset);
    }

    [TestMethod]
    [DataRow(Architecture.Arm)]
    [DataRow(Architecture.X86)]
    [DataRow(Architecture.Wasm)]
    public void An_unchecked_layout_is_not_read(Architecture architecture)
    {
        Assert.IsNull(LinuxNative.StatfsLayoutFor(architecture));
    }

    [TestMethod]
    public void An_s390x_statfs_reads_as_its_file_system_type_and_id_not_as_type_and_block_size()
    {
        // struct statfs as the s390x kernel fills it, in this machine's byte order: f_type, f_bsize, five
        // 8-byte counts, then f_fsid at 48 and f_namelen at 56.
        byte[] statfs = new byte[LinuxNative.StatfsBufferBytes];
        fixed (byte* buffer = statfs)
        {
            *(uint*)buffer = 0xEF53;         // ext4
            *(uint*)(buffer + 4) = 4096;     // f_bsize
            *(ulong*)(buffer + 48) = 0x1122334455667788;
            *(ulong*)(buffer + 56) = 255;    // f_namelen, f_frsize: what the generic reading took for the id

            LinuxNative.ReadFileSystem(buffer, LinuxNative.StatfsLayoutFor(Architecture.S390x)!.Value, out long type, out ulong id);

            Assert.AreEqual(0xEF53L, type);
            Assert.AreEqual("ext4", LinuxNative.FileSystemName(type));
            Assert.AreEqual(0x1122334455667788UL, id);
        }
    }

    [TestMethod]
    public void A_generic_statfs_reads_its_eight_byte_type_and_the_id_at_56()
    {
        byte[] statfs = new byte[LinuxNative.StatfsBufferBytes];
        fixed (byte* buffer = statfs)
        {
            *(long*)buffer = 0x58465342;     // XFS
            *(ulong*)(buffer + 56) = 0x0807060504030201;

            LinuxNative.ReadFileSystem(buffer, LinuxNative.StatfsLayoutFor(Architecture.X64)!.Value, out long type, out ulong id);

            Assert.AreEqual("XFS", LinuxNative.FileSystemName(type));
            Assert.AreEqual(0x0807060504030201UL, id);
        }
    }

    [TestMethod]
    public void On_this_machine_the_scratch_folder_has_a_known_file_system_and_an_id()
    {
        string folder = TestScratch.NewFolder("statfs-here");
        int fd = LinuxNative.Open(folder, LinuxNative.OpenReadOnly | LinuxNative.OpenCloseOnExec);
        Assert.IsTrue(fd >= 0);
        using var handle = new Microsoft.Win32.SafeHandles.SafeFileHandle((System.IntPtr)fd, ownsHandle: true);

        LinuxNative.FileSystem(fd, LinuxNative.StatfsLayoutFor(RuntimeInformation.ProcessArchitecture), out long type, out ulong id);

        Assert.AreNotEqual(0L, type);
        Assert.IsNotNull(LinuxNative.FileSystemName(type), $"file system type 0x{type:X}");
        Assert.AreNotEqual(0UL, id);

        LinuxNative.FileSystem(fd, null, out long unknownType, out ulong unknownId);
        Assert.AreEqual(0L, unknownType, "no layout, no reading: the clone attempt decides");
        Assert.AreEqual(0UL, unknownId);
    }

    [TestMethod]
    [DataRow(8u, 1u, DisplayName = "sda1")]
    [DataRow(259u, 65537u, DisplayName = "a minor past 8 bits")]
    [DataRow(4096u, 0u, DisplayName = "a major past 12 bits")]
    public void A_device_number_splits_back_into_the_major_and_minor_it_was_made_from(uint major, uint minor)
    {
        LinuxNative.SplitDevice(LinuxNative.MakeDevice(major, minor), out ulong splitMajor, out ulong splitMinor);

        Assert.AreEqual((ulong)major, splitMajor);
        Assert.AreEqual((ulong)minor, splitMinor);
    }
}
