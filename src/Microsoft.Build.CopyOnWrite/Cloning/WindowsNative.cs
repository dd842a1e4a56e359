using System;
using System.ComponentModel;
using System.IO;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;
#if NET
using System.Runtime.Versioning;
#endif

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// The kernel32 calls the Windows engine needs, declared from the documented Win32 API. Every struct here
/// has the same layout on x86, x64 and arm64, because net472 MSBuild still runs as a 32-bit process.
/// </summary>
#if NET
[SupportedOSPlatform("windows")]
#endif
internal static unsafe class WindowsNative
{
    private const string Kernel32 = "kernel32.dll";

    private const uint FsctlDuplicateExtentsToFile = 0x00098344;
    private const uint FsctlSetSparse = 0x000900C4;
    private const int FileBasicInfoClass = 0;
    private const int ErrorFileNotFound = 2;
    private const int ErrorPathNotFound = 3;
    private const int ErrorAccessDenied = 5;

    /// <summary>Size, volume and attributes of an open file, or the Win32 error that kept us from reading them.</summary>
    public static bool TryGetFileFacts(SafeFileHandle file, out WindowsFileFacts facts, out int error)
    {
        if (!GetFileInformationByHandle(file, out ByHandleFileInformation information))
        {
            error = Marshal.GetLastWin32Error();
            facts = default;
            return false;
        }

        error = 0;
        long size = ((long)information.FileSizeHigh << 32) | information.FileSizeLow;
        facts = new WindowsFileFacts(size, information.VolumeSerialNumber, information.FileAttributes);
        return true;
    }

    /// <summary>Flags and file system name of the volume holding <paramref name="file"/> (SMB shares answer for the server's volume).</summary>
    public static bool TryGetVolumeFlags(SafeFileHandle file, out uint flags, out string fileSystemName, out int error)
    {
        const int NameChars = 261; // MAX_PATH + 1, as the API documents for this buffer
        char* name = stackalloc char[NameChars];
        if (!GetVolumeInformationByHandleW(file, null, 0, out _, out _, out flags, name, NameChars))
        {
            error = Marshal.GetLastWin32Error();
            fileSystemName = string.Empty;
            return false;
        }

        error = 0;
        fileSystemName = new string(name);
        return true;
    }

    /// <summary>
    /// Cluster size of the volume holding <paramref name="path"/>. GetDiskFreeSpace wants the volume's root
    /// (drive, mount folder or \\server\share\), so the root is looked up first.
    /// </summary>
    public static bool TryGetClusterBytes(string path, out long clusterBytes, out int error)
    {
        clusterBytes = 0;
        char[] root = new char[Math.Max(path.Length + 2, 261)];
        fixed (char* rootChars = root)
        {
            if (!GetVolumePathNameW(path, rootChars, (uint)root.Length))
            {
                error = Marshal.GetLastWin32Error();
                return false;
            }

            if (!GetDiskFreeSpaceW(new string(rootChars), out uint sectorsPerCluster, out uint bytesPerSector, out _, out _))
            {
                error = Marshal.GetLastWin32Error();
                return false;
            }

            error = 0;
            clusterBytes = (long)sectorsPerCluster * bytesPerSector;
            return true;
        }
    }

    /// <summary>A sparse source can only be cloned into a sparse destination.</summary>
    public static int TrySetSparse(SafeFileHandle file)
        => DeviceIoControl(file, FsctlSetSparse, null, 0, null, 0, out _, IntPtr.Zero) ? 0 : Marshal.GetLastWin32Error();

    /// <summary>Makes <paramref name="chunk"/> of the destination share the source's clusters; 0 or the Win32 error.</summary>
    public static int TryDuplicateExtents(SafeFileHandle source, SafeFileHandle destination, CloneChunk chunk)
    {
        var request = new DuplicateExtentsData
        {
            // HANDLE is 4 bytes on x86 and is followed by 4 bytes of padding before the first LARGE_INTEGER,
            // so a zero-extended 64-bit field has the right layout on 32- and 64-bit processes alike.
            FileHandle = source.DangerousGetHandle().ToInt64(),
            SourceFileOffset = chunk.Offset,
            TargetFileOffset = chunk.Offset,
            ByteCount = chunk.Length,
        };
        bool cloned = DeviceIoControl(destination, FsctlDuplicateExtentsToFile, &request, (uint)sizeof(DuplicateExtentsData), null, 0, out _, IntPtr.Zero);
        return cloned ? 0 : Marshal.GetLastWin32Error();
    }

    public static FileBasicInfo GetTimesAndAttributes(SafeFileHandle file, string pathForErrors)
    {
        if (!GetFileInformationByHandleEx(file, FileBasicInfoClass, out FileBasicInfo information, (uint)sizeof(FileBasicInfo)))
        {
            throw ToException(Marshal.GetLastWin32Error(), pathForErrors);
        }

        return information;
    }

    public static void SetTimesAndAttributes(SafeFileHandle file, FileBasicInfo information, string pathForErrors)
    {
        if (!SetFileInformationByHandle(file, FileBasicInfoClass, ref information, (uint)sizeof(FileBasicInfo)))
        {
            throw ToException(Marshal.GetLastWin32Error(), pathForErrors);
        }
    }

    public static string Describe(int error) => new Win32Exception(error).Message;

    /// <summary>The exception .NET's own file APIs throw for this error, so messages read like the stock task's.</summary>
    public static Exception ToException(int error, string path) => error switch
    {
        ErrorFileNotFound => new FileNotFoundException($"Could not find file '{path}'.", path),
        ErrorPathNotFound => new DirectoryNotFoundException($"Could not find a part of the path '{path}'."),
        ErrorAccessDenied => new UnauthorizedAccessException($"Access to the path '{path}' is denied."),
        _ => new IOException($"{Describe(error)} : '{path}'", unchecked((int)0x80070000) | error),
    };

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
    private struct ByHandleFileInformation
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
    private struct DuplicateExtentsData
    {
        public long FileHandle;
        public long SourceFileOffset;
        public long TargetFileOffset;
        public long ByteCount;
    }

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true)]
    private static extern bool GetFileInformationByHandle(SafeFileHandle file, out ByHandleFileInformation information);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true)]
    private static extern bool GetFileInformationByHandleEx(SafeFileHandle file, int informationClass, out FileBasicInfo information, uint size);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true)]
    private static extern bool SetFileInformationByHandle(SafeFileHandle file, int informationClass, ref FileBasicInfo information, uint size);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true)]
    private static extern bool GetVolumeInformationByHandleW(
        SafeFileHandle file,
        char* volumeName,
        uint volumeNameChars,
        out uint serialNumber,
        out uint maximumComponentLength,
        out uint fileSystemFlags,
        char* fileSystemName,
        uint fileSystemNameChars);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true, CharSet = CharSet.Unicode)]
    private static extern bool GetVolumePathNameW(string fileName, char* volumePathName, uint volumePathNameChars);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true, CharSet = CharSet.Unicode)]
    private static extern bool GetDiskFreeSpaceW(string rootPathName, out uint sectorsPerCluster, out uint bytesPerSector, out uint freeClusters, out uint totalClusters);

    [DllImport(Kernel32, SetLastError = true, ExactSpelling = true)]
    private static extern bool DeviceIoControl(SafeFileHandle device, uint controlCode, void* input, uint inputBytes, void* output, uint outputBytes, out uint bytesReturned, IntPtr overlapped);
}
