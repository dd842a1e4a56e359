using System;
using System.Runtime.InteropServices;
using System.Text;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// The sizes, offsets and control codes the Windows native layer hands to kernel32, locked against the documented
/// values (winioctl.h, winbase.h, MS-FSCC): a wrong one would not fail to compile, it would clone the wrong range.
/// </summary>
[TestClass]
public sealed class WindowsNativeLayoutTests
{
    private const uint FileDeviceFileSystem = 9;
    private const uint MethodBuffered = 0;
    private const uint MethodNeither = 3;
    private const uint FileAnyAccess = 0;
    private const uint FileReadData = 1;
    private const uint FileWriteData = 2;

    /// <summary>CTL_CODE from winioctl.h.</summary>
    private static uint CtlCode(uint deviceType, uint function, uint method, uint access) => (deviceType << 16) | (access << 14) | (function << 2) | method;

    [TestMethod]
    public void The_control_codes_are_the_documented_CTL_CODEs()
    {
        Assert.AreEqual(0x98344u, WindowsStructs.FsctlDuplicateExtentsToFile);
        Assert.AreEqual(WindowsStructs.FsctlDuplicateExtentsToFile, CtlCode(FileDeviceFileSystem, 209, MethodBuffered, FileWriteData));
        Assert.AreEqual(0x900C4u, WindowsStructs.FsctlSetSparse);
        Assert.AreEqual(WindowsStructs.FsctlSetSparse, CtlCode(FileDeviceFileSystem, 49, MethodBuffered, FileAnyAccess));
        Assert.AreEqual(0x9027Cu, WindowsStructs.FsctlGetIntegrityInformation);
        Assert.AreEqual(WindowsStructs.FsctlGetIntegrityInformation, CtlCode(FileDeviceFileSystem, 159, MethodBuffered, FileAnyAccess));
        Assert.AreEqual(WindowsStructs.FsctlSetIntegrityInformation, CtlCode(FileDeviceFileSystem, 160, MethodBuffered, FileReadData | FileWriteData));
        Assert.AreEqual(590803u, WindowsStructs.FsctlGetRetrievalPointersAndRefcount);
        Assert.AreEqual(WindowsStructs.FsctlGetRetrievalPointersAndRefcount, CtlCode(FileDeviceFileSystem, 244, MethodNeither, FileAnyAccess));
    }

    [TestMethod]
    public void DUPLICATE_EXTENTS_DATA_is_a_padded_handle_and_three_offsets_in_32_bytes()
    {
        Assert.AreEqual(32, Marshal.SizeOf<WindowsStructs.DuplicateExtentsData>());
        Assert.AreEqual(8, (int)Marshal.OffsetOf<WindowsStructs.DuplicateExtentsData>(nameof(WindowsStructs.DuplicateExtentsData.SourceFileOffset)));
        Assert.AreEqual(16, (int)Marshal.OffsetOf<WindowsStructs.DuplicateExtentsData>(nameof(WindowsStructs.DuplicateExtentsData.TargetFileOffset)));
        Assert.AreEqual(24, (int)Marshal.OffsetOf<WindowsStructs.DuplicateExtentsData>(nameof(WindowsStructs.DuplicateExtentsData.ByteCount)));
    }

    [TestMethod]
    public void FILE_BASIC_INFO_is_four_FILETIMEs_and_the_attributes_in_40_bytes()
    {
        Assert.AreEqual(40, Marshal.SizeOf<WindowsStructs.FileBasicInfo>());
        Assert.AreEqual(16, (int)Marshal.OffsetOf<WindowsStructs.FileBasicInfo>(nameof(WindowsStructs.FileBasicInfo.LastWriteTime)));
        Assert.AreEqual(32, (int)Marshal.OffsetOf<WindowsStructs.FileBasicInfo>(nameof(WindowsStructs.FileBasicInfo.FileAttributes)));
    }

    [TestMethod]
    public void BY_HANDLE_FILE_INFORMATION_is_52_bytes_with_the_serial_and_size_where_Windows_puts_them()
    {
        Assert.AreEqual(52, Marshal.SizeOf<WindowsStructs.ByHandleFileInformation>());
        Assert.AreEqual(20, (int)Marshal.OffsetOf<WindowsStructs.ByHandleFileInformation>(nameof(WindowsStructs.ByHandleFileInformation.LastWriteTimeLow)));
        Assert.AreEqual(28, (int)Marshal.OffsetOf<WindowsStructs.ByHandleFileInformation>(nameof(WindowsStructs.ByHandleFileInformation.VolumeSerialNumber)));
        Assert.AreEqual(32, (int)Marshal.OffsetOf<WindowsStructs.ByHandleFileInformation>(nameof(WindowsStructs.ByHandleFileInformation.FileSizeHigh)));
    }

    [TestMethod]
    public void The_integrity_buffers_are_16_and_8_bytes_with_the_cluster_size_last()
    {
        Assert.AreEqual(16, Marshal.SizeOf<WindowsStructs.GetIntegrityBuffer>());
        Assert.AreEqual(12, (int)Marshal.OffsetOf<WindowsStructs.GetIntegrityBuffer>(nameof(WindowsStructs.GetIntegrityBuffer.ClusterSizeInBytes)));
        Assert.AreEqual(8, Marshal.SizeOf<WindowsStructs.SetIntegrityBuffer>());
    }

    [TestMethod]
    [DataRow(8, 20, DisplayName = "64-bit: the HANDLE is aligned to 8")]
    [DataRow(4, 12, DisplayName = "32-bit MSBuild.exe")]
    public void FILE_RENAME_INFO_carries_the_flags_then_the_length_and_the_NUL_terminated_name_for_either_pointer_size(int pointerSize, int nameOffset)
    {
        const string NewPath = @"C:\out\App.dll";

        byte[] information = WindowsStructs.RenameInfo(NewPath, WindowsStructs.RenameReplaceIfExists | WindowsStructs.RenamePosixSemantics, pointerSize);

        Assert.AreEqual(nameOffset, WindowsStructs.RenameInfoFileNameOffset(pointerSize));
        Assert.AreEqual(3u, BitConverter.ToUInt32(information, 0), "REPLACE_IF_EXISTS | POSIX_SEMANTICS");
        Assert.AreEqual(0L, pointerSize == 8 ? BitConverter.ToInt64(information, 8) : BitConverter.ToInt32(information, 4), "RootDirectory: none");
        Assert.AreEqual(NewPath.Length * 2, BitConverter.ToInt32(information, nameOffset - 4), "FileNameLength in bytes, without the NUL");
        Assert.AreEqual(NewPath, Encoding.Unicode.GetString(information, nameOffset, NewPath.Length * 2));
        Assert.AreEqual(nameOffset + (NewPath.Length * 2) + 2, information.Length, "followed by a NUL");
    }

    [TestMethod]
    public void A_refcount_answer_is_read_as_16_bytes_of_header_and_24_bytes_per_extent()
    {
        byte[] answer = new byte[WindowsStructs.RefcountHeaderBytes + (2 * WindowsStructs.RefcountExtentBytes)];
        BitConverter.GetBytes(2u).CopyTo(answer, 0);
        BitConverter.GetBytes(10L).CopyTo(answer, 16);
        BitConverter.GetBytes(5000L).CopyTo(answer, 24);
        BitConverter.GetBytes(1u).CopyTo(answer, 32);
        BitConverter.GetBytes(30L).CopyTo(answer, 40);
        BitConverter.GetBytes(9000L).CopyTo(answer, 48);
        BitConverter.GetBytes(2u).CopyTo(answer, 56);

        Assert.AreEqual(2u, WindowsStructs.RefcountExtentCount(answer));
        Assert.AreEqual(new WindowsStructs.RefcountExtent(10, 5000, 1), WindowsStructs.RefcountExtentAt(answer, 0));
        Assert.AreEqual(new WindowsStructs.RefcountExtent(30, 9000, 2), WindowsStructs.RefcountExtentAt(answer, 1));
    }

    [TestMethod]
    public void Shared_clusters_are_counted_from_allocated_extents_referenced_more_than_once()
    {
        Assert.AreEqual(0, WindowsStructs.SharedClustersOf(new WindowsStructs.RefcountExtent(10, 5000, 1), 0), "referenced once: not shared");
        Assert.AreEqual(20, WindowsStructs.SharedClustersOf(new WindowsStructs.RefcountExtent(30, 9000, 2), 10), "VCN 10 to 30");
        Assert.AreEqual(0, WindowsStructs.SharedClustersOf(new WindowsStructs.RefcountExtent(40, -1, 2), 30), "LCN -1: a hole, nothing on the disk");
    }

    [TestMethod]
    public unsafe void FILE_ID_INFO_is_24_bytes_with_the_64_bit_volume_serial_first()
    {
        Assert.AreEqual(24, sizeof(WindowsStructs.FileIdInfo));
        var info = new WindowsStructs.FileIdInfo { VolumeSerialNumber = 0x1122334455667788 };
        Assert.AreEqual(0x55667788u, *(uint*)&info, "little-endian: the low 32 bits, which BY_HANDLE_FILE_INFORMATION gives, first");
    }

    [TestMethod]
    public void A_handle_is_passed_zero_extended_in_its_64_bit_field()
    {
        Assert.AreEqual(0x1234L, WindowsStructs.ZeroExtended(new IntPtr(0x1234)));
        if (IntPtr.Size == 4)
        {
            Assert.AreEqual(0x8000_0000L, WindowsStructs.ZeroExtended(new IntPtr(int.MinValue)), "never sign-extended on 32-bit");
        }
    }

    [TestMethod]
    [DataRow(@"C:\out\App.dll", false)]
    [DataRow(@"C:\out\App.dll:Zone.Identifier", true)]
    [DataRow(@"\\?\C:\out\App.dll", false)]
    [DataRow(@"\\?\C:\out\App.dll:s", true)]
    [DataRow(@"\\server\share\App.dll", false)]
    [DataRow(@"\\?\UNC\server\share\App.dll", false)]
    [DataRow(@"\\?\UNC\server\share\App.dll:s", true)]
    [DataRow(@"C:App.dll", false)]
    [DataRow(@":a", true)]
    [DataRow(@"\\.\C:\a", false)]
    [DataRow(@"\\.\C:\a:s", true)]
    [DataRow(@"C:", false)]
    public void A_stream_is_a_colon_after_the_root(string path, bool namesAStream)
    {
        Assert.AreEqual(namesAStream, WindowsPaths.NamesAStream(path));
    }

    [TestMethod]
    public void The_temporary_file_is_hidden_beside_the_destination_in_its_folder()
    {
        string temporary = WindowsPaths.TemporaryPathBeside(@"D:\out\App.dll");

        StringAssert.StartsWith(temporary, @"D:\out\.App.dll.");
        StringAssert.EndsWith(temporary, AtomicFile.TemporarySuffix);
    }

    [TestMethod]
    public void Long_paths_get_the_extended_prefix_and_short_ones_stay_as_written()
    {
        string folder = @"C:\" + new string('a', 300);
        string share = @"\\server\share\" + new string('b', 300);

        Assert.AreEqual(@"C:\out\App.dll", WindowsNativePaths(@"C:\out\App.dll"));
        Assert.AreEqual(@"\\?\" + folder + @"\App.dll", WindowsNativePaths(folder + "/App.dll"));
        Assert.AreEqual(@"\\?\UNC\server\share\" + new string('b', 300), WindowsNativePaths(share));
        Assert.AreEqual(@"\\?\" + folder, WindowsNativePaths(@"\\?\" + folder));
    }

#pragma warning disable CA1416 // a pure string function of the Windows layer; it makes no call
    private static string WindowsNativePaths(string path) => WindowsNative.NativePath(path);
#pragma warning restore CA1416
}
