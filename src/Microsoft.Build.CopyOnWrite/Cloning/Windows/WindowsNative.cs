using System;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Win32.SafeHandles;
#if NET
using System.Runtime.Versioning;
#endif

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// <see cref="IWindowsFileSystem"/> on kernel32, no decisions. Each struct has one layout on x86, x64 and arm64, or is
/// laid out by <see cref="WindowsStructs"/> for the pointer size: net472 MSBuild still runs as 32-bit.
/// </summary>
#if NET
[SupportedOSPlatform("windows")]
#endif
internal sealed unsafe partial class WindowsNative : IWindowsFileSystem
{
    private const string Kernel32 = "kernel32.dll";
    private const uint FileAttributeNormal = 0x80;
    private const int FileBasicInfoClass = 0;
    private const int FileRenameInfoClass = 3;
    private const int FileEndOfFileInfoClass = 6;
    private const int FileRemoteProtocolInfoClass = 13;
    private const int FileIdInfoClass = 18;
    private const int FileRenameInfoExClass = 22;
    private const int ErrorHandleEof = 38;
    private const int ErrorMoreData = 234;
    private const int MaxPath = 260;

    [ThreadStatic]
    private static byte[]? t_refcountAnswer; // asked of every just-written file's clone: no allocation per call

    public int Open(string path, WindowsAccess access, WindowsShare share, WindowsCreation creation, out WindowsFile? file, WindowsOpenOptions options = WindowsOpenOptions.None)
    {
        SafeFileHandle handle = CreateFileW(NativePath(path), (uint)access, (uint)share, IntPtr.Zero, (uint)creation, FileAttributeNormal | (uint)options, IntPtr.Zero);
        if (handle.IsInvalid)
        {
            int error = Marshal.GetLastWin32Error();
            handle.Dispose();
            file = null;
            return error;
        }

        file = new NativeFile(handle);
        return 0;
    }

    public int GetFileFacts(WindowsFile file, out WindowsFileFacts facts)
    {
        facts = default;
        if (!GetFileInformationByHandle(Handle(file), out WindowsStructs.ByHandleFileInformation information))
        {
            return Marshal.GetLastWin32Error();
        }

        long size = ((long)information.FileSizeHigh << 32) | information.FileSizeLow;
        long lastWrite = ((long)information.LastWriteTimeHigh << 32) | information.LastWriteTimeLow;

        // FILE_ID_INFO (Windows 8 and later): a file system that does not answer it keeps the 32-bit serial.
        WindowsStructs.FileIdInfo id;
        ulong serial = GetFileInformationByHandleEx(Handle(file), FileIdInfoClass, &id, (uint)sizeof(WindowsStructs.FileIdInfo))
            ? id.VolumeSerialNumber
            : information.VolumeSerialNumber;
        facts = new WindowsFileFacts(size, serial, information.FileAttributes, lastWrite, information.NumberOfLinks);
        return 0;
    }

    public int GetVolumeFlags(WindowsFile file, out uint flags, out string fileSystemName)
    {
        const int NameChars = MaxPath + 1; // as the API documents for this buffer
        char* name = stackalloc char[NameChars];
        fileSystemName = string.Empty;
        // No label or serial: Wine answers those through the volume's device and mount manager, which can fail where the flags do not.
        if (!GetVolumeInformationByHandleW(Handle(file), null, 0, null, null, out flags, name, NameChars))
        {
            return Marshal.GetLastWin32Error();
        }

        fileSystemName = new string(name);
        return 0;
    }

    public int IsOnNetworkShare(WindowsFile file, out bool remote)
    {
        byte* information = stackalloc byte[WindowsStructs.FileRemoteProtocolInfoBytes];
        remote = GetFileInformationByHandleEx(Handle(file), FileRemoteProtocolInfoClass, information, WindowsStructs.FileRemoteProtocolInfoBytes);
        return 0; // a local file is simply not remote: the call fails for it
    }

    public int GetIntegrity(WindowsFile file, out WindowsIntegrity integrity)
    {
        WindowsStructs.GetIntegrityBuffer buffer;
        integrity = default;
        if (!DeviceIoControl(Handle(file), WindowsStructs.FsctlGetIntegrityInformation, null, 0, &buffer, (uint)sizeof(WindowsStructs.GetIntegrityBuffer), out _, IntPtr.Zero))
        {
            return Marshal.GetLastWin32Error();
        }

        integrity = new WindowsIntegrity(buffer.ChecksumAlgorithm, buffer.Flags, buffer.ClusterSizeInBytes);
        return 0;
    }

    public int SetIntegrity(WindowsFile file, ushort checksumAlgorithm, uint flags)
    {
        var buffer = new WindowsStructs.SetIntegrityBuffer { ChecksumAlgorithm = checksumAlgorithm, Flags = flags };
        return DeviceIoControl(Handle(file), WindowsStructs.FsctlSetIntegrityInformation, &buffer, (uint)sizeof(WindowsStructs.SetIntegrityBuffer), null, 0, out _, IntPtr.Zero)
            ? 0 : Marshal.GetLastWin32Error();
    }

    public int SetSparse(WindowsFile file, bool sparse)
    {
        byte setSparse = sparse ? (byte)1 : (byte)0; // FILE_SET_SPARSE_BUFFER: one BOOLEAN
        return DeviceIoControl(Handle(file), WindowsStructs.FsctlSetSparse, &setSparse, 1, null, 0, out _, IntPtr.Zero) ? 0 : Marshal.GetLastWin32Error();
    }

    public int SetEndOfFile(WindowsFile file, long size)
        => SetFileInformationByHandle(Handle(file), FileEndOfFileInfoClass, &size, sizeof(long)) ? 0 : Marshal.GetLastWin32Error();

    public int DuplicateExtents(WindowsFile source, WindowsFile destination, CloneChunk chunk)
    {
        var request = new WindowsStructs.DuplicateExtentsData
        {
            // HANDLE is 4 bytes on x86 and is followed by 4 bytes of padding before the first LARGE_INTEGER,
            // so a zero-extended 64-bit field has the right layout on 32- and 64-bit processes alike.
            FileHandle = WindowsStructs.ZeroExtended(Handle(source).DangerousGetHandle()),
            SourceFileOffset = chunk.Offset,
            TargetFileOffset = chunk.Offset,
            ByteCount = chunk.Length,
        };
        return DeviceIoControl(Handle(destination), WindowsStructs.FsctlDuplicateExtentsToFile, &request, (uint)sizeof(WindowsStructs.DuplicateExtentsData), null, 0, out _, IntPtr.Zero)
            ? 0 : Marshal.GetLastWin32Error();
    }

    public int Flush(WindowsFile file) => FlushFileBuffers(Handle(file)) ? 0 : Marshal.GetLastWin32Error();

    public int SetBasicInfo(WindowsFile file, long creationTime, long lastAccessTime, long lastWriteTime, uint attributes)
    {
        var information = new WindowsStructs.FileBasicInfo
        {
            CreationTime = creationTime,
            LastAccessTime = lastAccessTime,
            LastWriteTime = lastWriteTime,
            ChangeTime = 0, // the file system keeps its own
            FileAttributes = attributes,
        };
        return SetFileInformationByHandle(Handle(file), FileBasicInfoClass, &information, (uint)sizeof(WindowsStructs.FileBasicInfo)) ? 0 : Marshal.GetLastWin32Error();
    }

    public int CountSharedClusters(WindowsFile file, out long sharedClusters)
    {
        const int ExtentsPerCall = 64;
        int outputBytes = WindowsStructs.RefcountHeaderBytes + (ExtentsPerCall * WindowsStructs.RefcountExtentBytes);
        byte[] answer = t_refcountAnswer ??= new byte[outputBytes];
        long startingVcn = 0;
        sharedClusters = 0;
        while (true)
        {
            int error;
            fixed (byte* output = answer)
            {
                error = DeviceIoControl(Handle(file), WindowsStructs.FsctlGetRetrievalPointersAndRefcount, &startingVcn, sizeof(long), output, (uint)outputBytes, out _, IntPtr.Zero)
                    ? 0 : Marshal.GetLastWin32Error();
            }

            if (error == ErrorHandleEof)
            {
                return 0; // no clusters at or after startingVcn: all data resident, or the end reached
            }

            if (error != 0 && error != ErrorMoreData)
            {
                return error;
            }

            int extents = (int)Math.Min(WindowsStructs.RefcountExtentCount(answer), ExtentsPerCall);
            long vcn = WindowsStructs.RefcountStartingVcn(answer);
            for (int i = 0; i < extents; i++)
            {
                WindowsStructs.RefcountExtent extent = WindowsStructs.RefcountExtentAt(answer, i);
                sharedClusters += WindowsStructs.SharedClustersOf(extent, vcn);
                vcn = startingVcn = extent.NextVcn;
            }

            if (error == 0 || extents == 0)
            {
                return 0;
            }
        }
    }

    public int CopyFile(string sourcePath, string destinationPath, bool replaceExisting, CancellationToken cancellationToken)
    {
        // CopyFileExW polls *pbCancel while it copies: a cancelled token sets it from whatever thread cancels.
        int* cancel = (int*)Marshal.AllocHGlobal(sizeof(int));
        *cancel = 0;
        try
        {
            using (cancellationToken.Register(() => Volatile.Write(ref *cancel, 1)))
            {
                return CopyFileExW(NativePath(sourcePath), NativePath(destinationPath), IntPtr.Zero, IntPtr.Zero, cancel, replaceExisting ? 0 : WindowsStructs.CopyFileFailIfExists)
                    ? 0 : Marshal.GetLastWin32Error();
            }
        }
        finally
        {
            Marshal.FreeHGlobal((IntPtr)cancel);
        }
    }

    public int Rename(WindowsFile file, string destinationPath, bool posixSemantics)
    {
        byte[] information = WindowsStructs.RenameInfo(NativePath(destinationPath), posixSemantics ? WindowsStructs.RenameReplaceIfExists | WindowsStructs.RenamePosixSemantics : WindowsStructs.RenameReplaceIfExists, IntPtr.Size);
        fixed (byte* bytes = information)
        {
            return SetFileInformationByHandle(Handle(file), posixSemantics ? FileRenameInfoExClass : FileRenameInfoClass, bytes, (uint)information.Length) ? 0 : Marshal.GetLastWin32Error();
        }
    }

    public int SetAttributes(string path, uint attributes) => SetFileAttributesW(NativePath(path), attributes) ? 0 : Marshal.GetLastWin32Error();

    public int Delete(string path) => DeleteFileW(NativePath(path)) ? 0 : Marshal.GetLastWin32Error();

    /// <summary>
    /// A path of MAX_PATH or more works everywhere only as \\?\ (a process need not be long-path aware). The
    /// engine's temporary names make paths longer than the user's, so the prefix is added short of the limit.
    /// </summary>
    internal static string NativePath(string path)
    {
        if (path.Length < MaxPath - 12 || path.StartsWith(@"\\?\", StringComparison.Ordinal) || path.StartsWith(@"\\.\", StringComparison.Ordinal))
        {
            return path;
        }

        string backslashed = path.Replace('/', '\\');
        return backslashed.StartsWith(@"\\", StringComparison.Ordinal) ? @"\\?\UNC\" + backslashed.Substring(2) : @"\\?\" + backslashed;
    }

    private static SafeFileHandle Handle(WindowsFile file) => ((NativeFile)file).Handle;

    private sealed class NativeFile : WindowsFile
    {
        public NativeFile(SafeFileHandle handle) => Handle = handle;

        public SafeFileHandle Handle { get; }

        public override void Dispose() => Handle.Dispose();
    }

#if NET
    // Source-generated marshalling, which the precompiled image holds: a [DllImport] with strings, handles, bool or
    // SetLastError needs a stub the JIT compiles (docs/precompiled-task.md). net472 has no generator: [DllImport].
    [LibraryImport(Kernel32, SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    private static partial SafeFileHandle CreateFileW(string fileName, uint desiredAccess, uint shareMode, IntPtr securityAttributes, uint creationDisposition, uint flagsAndAttributes, IntPtr templateFile);

    [LibraryImport(Kernel32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetFileInformationByHandle(SafeFileHandle file, out WindowsStructs.ByHandleFileInformation information);

    [LibraryImport(Kernel32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetFileInformationByHandleEx(SafeFileHandle file, int informationClass, void* information, uint size);

    [LibraryImport(Kernel32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool SetFileInformationByHandle(SafeFileHandle file, int informationClass, void* information, uint size);

    [LibraryImport(Kernel32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetVolumeInformationByHandleW(
        SafeFileHandle file,
        char* volumeName,
        uint volumeNameChars,
        uint* serialNumber,
        uint* maximumComponentLength,
        out uint fileSystemFlags,
        char* fileSystemName,
        uint fileSystemNameChars);

    [LibraryImport(Kernel32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool DeviceIoControl(SafeFileHandle device, uint controlCode, void* input, uint inputBytes, void* output, uint outputBytes, out uint bytesReturned, IntPtr overlapped);

    [LibraryImport(Kernel32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool FlushFileBuffers(SafeFileHandle file);

    [LibraryImport(Kernel32, SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool CopyFileExW(string existingFileName, string newFileName, IntPtr progressRoutine, IntPtr data, int* cancel, uint copyFlags);

    [LibraryImport(Kernel32, SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool SetFileAttributesW(string fileName, uint attributes);

    [LibraryImport(Kernel32, SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool DeleteFileW(string fileName);
#else
    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true, CharSet = CharSet.Unicode)]
    private static extern SafeFileHandle CreateFileW(string fileName, uint desiredAccess, uint shareMode, IntPtr securityAttributes, uint creationDisposition, uint flagsAndAttributes, IntPtr templateFile);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true)]
    private static extern bool GetFileInformationByHandle(SafeFileHandle file, out WindowsStructs.ByHandleFileInformation information);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true)]
    private static extern bool GetFileInformationByHandleEx(SafeFileHandle file, int informationClass, void* information, uint size);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true)]
    private static extern bool SetFileInformationByHandle(SafeFileHandle file, int informationClass, void* information, uint size);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true)]
    private static extern bool GetVolumeInformationByHandleW(
        SafeFileHandle file,
        char* volumeName,
        uint volumeNameChars,
        uint* serialNumber,
        uint* maximumComponentLength,
        out uint fileSystemFlags,
        char* fileSystemName,
        uint fileSystemNameChars);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true)]
    private static extern bool DeviceIoControl(SafeFileHandle device, uint controlCode, void* input, uint inputBytes, void* output, uint outputBytes, out uint bytesReturned, IntPtr overlapped);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true)]
    private static extern bool FlushFileBuffers(SafeFileHandle file);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true, CharSet = CharSet.Unicode)]
    private static extern bool CopyFileExW(string existingFileName, string newFileName, IntPtr progressRoutine, IntPtr data, int* cancel, uint copyFlags);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true, CharSet = CharSet.Unicode)]
    private static extern bool SetFileAttributesW(string fileName, uint attributes);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true, CharSet = CharSet.Unicode)]
    private static extern bool DeleteFileW(string fileName);
#endif
}

/// <summary>The native layer's structs and control codes, apart so tests lock them (winioctl.h, MS-FSCC).</summary>
internal static class WindowsStructs
{
    public const uint FsctlDuplicateExtentsToFile = 0x00098344;         // CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 209, METHOD_BUFFERED, FILE_WRITE_DATA)
    public const uint FsctlSetSparse = 0x000900C4;                      // CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 49, METHOD_BUFFERED, FILE_SPECIAL_ACCESS)
    public const uint FsctlGetIntegrityInformation = 0x0009027C;        // CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 159, METHOD_BUFFERED, FILE_ANY_ACCESS)
    public const uint FsctlSetIntegrityInformation = 0x0009C280;        // CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 160, METHOD_BUFFERED, FILE_READ_DATA | FILE_WRITE_DATA)
    public const uint FsctlGetRetrievalPointersAndRefcount = 0x000903D3; // CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 244, METHOD_NEITHER, FILE_ANY_ACCESS)

    public const uint CopyFileFailIfExists = 0x1;
    public const uint RenameReplaceIfExists = 0x1;  // FILE_RENAME_FLAG_REPLACE_IF_EXISTS
    public const uint RenamePosixSemantics = 0x2;   // FILE_RENAME_FLAG_POSIX_SEMANTICS

    /// <summary>FILE_REMOTE_PROTOCOL_INFO: 20 bytes of header, 32 reserved, 64 of protocol-specific data.</summary>
    public const int FileRemoteProtocolInfoBytes = 116;

    /// <summary>RETRIEVAL_POINTERS_AND_REFCOUNT_BUFFER: ExtentCount, 4 bytes unused, StartingVcn; then the extents.</summary>
    public const int RefcountHeaderBytes = 16;

    /// <summary>Each extent: NextVcn, Lcn, ReferenceCount, padded to 8-byte alignment.</summary>
    public const int RefcountExtentBytes = 24;

    /// <summary>Offset of FILE_RENAME_INFO.FileName: a DWORD-sized union, then HANDLE RootDirectory at pointer alignment, then DWORD FileNameLength.</summary>
    public static int RenameInfoFileNameOffset(int pointerSize) => (2 * pointerSize) + 4;

    /// <summary>FILE_RENAME_INFO for <paramref name="newPath"/> (NUL-terminated), laid out for a process of that pointer size.</summary>
    /// <param name="flags">FileRenameInfoEx flags; for FileRenameInfo, REPLACE_IF_EXISTS is the ReplaceIfExists BOOLEAN in the same first byte.</param>
    public static byte[] RenameInfo(string newPath, uint flags, int pointerSize)
    {
        int nameOffset = RenameInfoFileNameOffset(pointerSize);
        byte[] information = new byte[nameOffset + ((newPath.Length + 1) * 2)];
        BitConverter.GetBytes(flags).CopyTo(information, 0);
        BitConverter.GetBytes(newPath.Length * 2).CopyTo(information, nameOffset - 4); // FileNameLength, in bytes, without the NUL
        for (int i = 0; i < newPath.Length; i++)
        {
            BitConverter.GetBytes(newPath[i]).CopyTo(information, nameOffset + (2 * i));
        }

        return information;
    }

    public static uint RefcountExtentCount(byte[] answer) => BitConverter.ToUInt32(answer, 0);

    public static long RefcountStartingVcn(byte[] answer) => BitConverter.ToInt64(answer, 8);

    public static RefcountExtent RefcountExtentAt(byte[] answer, int index)
    {
        int at = RefcountHeaderBytes + (index * RefcountExtentBytes);
        return new RefcountExtent(BitConverter.ToInt64(answer, at), BitConverter.ToInt64(answer, at + 8), BitConverter.ToUInt32(answer, at + 16));
    }

    /// <summary>Clusters of one extent that are allocated (Lcn -1: a hole or delayed allocation) and shared.</summary>
    public static long SharedClustersOf(RefcountExtent extent, long startVcn)
        => extent.Lcn != -1 && extent.ReferenceCount > 1 ? Math.Max(0, extent.NextVcn - startVcn) : 0;

    /// <summary>A HANDLE in a 64-bit field, zero-extended on 32-bit (IntPtr.ToInt64 would sign-extend).</summary>
    public static long ZeroExtended(IntPtr handle) => IntPtr.Size == 4 ? (long)(uint)handle.ToInt32() : handle.ToInt64();

    public readonly record struct RefcountExtent(long NextVcn, long Lcn, uint ReferenceCount);

    /// <summary>FILE_ID_INFO: ULONGLONG VolumeSerialNumber, then the 128-bit FILE_ID_128; 24 bytes everywhere.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct FileIdInfo
    {
        public ulong VolumeSerialNumber;
        public ulong FileIdLow;
        public ulong FileIdHigh;
    }

    /// <summary>FILE_BASIC_INFO: four FILETIMEs (0 = leave unchanged when setting) and the attributes, padded to 40 bytes.</summary>
    [StructLayout(LayoutKind.Sequential, Size = 40)]
    public struct FileBasicInfo
    {
        public long CreationTime;
        public long LastAccessTime;
        public long LastWriteTime;
        public long ChangeTime;
        public uint FileAttributes;
    }

    /// <summary>BY_HANDLE_FILE_INFORMATION: 4-byte fields only (FILETIMEs as two DWORDs), 52 bytes everywhere.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct ByHandleFileInformation
    {
        public uint FileAttributes;
        public uint CreationTimeLow;
        public uint CreationTimeHigh;
        public uint LastAccessTimeLow;
        public uint LastAccessTimeHigh;
        public uint LastWriteTimeLow;
        public uint LastWriteTimeHigh;
        public uint VolumeSerialNumber;
        public uint FileSizeHigh;
        public uint FileSizeLow;
        public uint NumberOfLinks;
        public uint FileIndexHigh;
        public uint FileIndexLow;
    }

    /// <summary>DUPLICATE_EXTENTS_DATA: HANDLE (padded to 8 bytes) and three LARGE_INTEGERs, 32 bytes everywhere.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct DuplicateExtentsData
    {
        public long FileHandle;
        public long SourceFileOffset;
        public long TargetFileOffset;
        public long ByteCount;
    }

    /// <summary>FSCTL_GET_INTEGRITY_INFORMATION_BUFFER: 16 bytes.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct GetIntegrityBuffer
    {
        public ushort ChecksumAlgorithm;
        public ushort Reserved;
        public uint Flags;
        public uint ChecksumChunkSizeInBytes;
        public uint ClusterSizeInBytes;
    }

    /// <summary>FSCTL_SET_INTEGRITY_INFORMATION_BUFFER: 8 bytes.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SetIntegrityBuffer
    {
        public ushort ChecksumAlgorithm;
        public ushort Reserved;
        public uint Flags;
    }
}
