using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.IO;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>The kernel32 calls the tests need to arrange and observe files; declared here from the Win32 docs.</summary>
internal static unsafe class Win32
{
    private const string Kernel32 = "kernel32.dll";

    public const uint FsctlSetSparse = 0x000900C4;
    public const uint FsctlGetIntegrityInformation = 0x0009027C;
    public const uint FsctlDuplicateExtentsToFile = 0x00098344;
    public const uint FsctlGetRefsVolumeData = 0x000902D8;
    public const uint FsctlGetNtfsVolumeData = 0x00090064;
    public const int FileRenameInfo = 3;
    public const int FileRenameInfoEx = 22;
    public const uint FileRenameFlagReplaceIfExists = 0x1;
    public const uint FileRenameFlagPosixSemantics = 0x2;
    public const uint FileSupportsBlockRefcounting = 0x08000000;
    public const uint FileSupportsSparseFiles = 0x40;
    public const uint Delete = 0x00010000;
    private const uint FileReadAttributes = 0x80;
    private const uint OpenExisting = 3;
    private const uint FileFlagBackupSemantics = 0x02000000;
    private const int MaxPathChars = 1024;

    /// <summary>The Wine version when this process runs under Wine (ntdll exports wine_get_version), else null.</summary>
    public static string? WineVersion
    {
        get
        {
            IntPtr ntdll = GetModuleHandleW("ntdll.dll");
            IntPtr function = ntdll == IntPtr.Zero ? IntPtr.Zero : GetProcAddress(ntdll, "wine_get_version");
            return function == IntPtr.Zero ? null : Marshal.PtrToStringAnsi(((delegate* unmanaged<IntPtr>)function)());
        }
    }

    /// <summary>
    /// Link count, volume serial and file index of a file, through a handle that asks only to read attributes:
    /// sharing rules do not apply to it, so it works while another handle holds the file with FileShare.None.
    /// </summary>
    public static (uint Links, ulong Identity, uint VolumeSerial, long ChangeTime) Identity(string path)
    {
        using SafeFileHandle handle = CreateFileW(path, FileReadAttributes, (uint)(FileShare.ReadWrite | FileShare.Delete), IntPtr.Zero, OpenExisting, FileFlagBackupSemantics, IntPtr.Zero);
        if (handle.IsInvalid)
        {
            throw new Win32Exception(Marshal.GetLastWin32Error(), $"CreateFile {path}");
        }

        if (!GetFileInformationByHandle(handle, out ByHandleFileInformation information))
        {
            throw new Win32Exception();
        }

        long* basic = stackalloc long[5]; // FILE_BASIC_INFO: creation, access, write, change, attributes (padded): 40 bytes
        if (!GetFileInformationByHandleEx(handle, 0, basic, 40))
        {
            throw new Win32Exception();
        }

        return (information.NumberOfLinks, ((ulong)information.FileIndexHigh << 32) | information.FileIndexLow, information.VolumeSerialNumber, basic[3]);
    }

    public static void CreateHardLink(string newPath, string existingPath)
    {
        if (!CreateHardLinkW(newPath, existingPath, IntPtr.Zero))
        {
            throw new Win32Exception(Marshal.GetLastWin32Error(), $"CreateHardLink {newPath} -> {existingPath}");
        }
    }

    /// <summary>0 or the Win32 error of a DeviceIoControl call without buffers beyond the ones given.</summary>
    public static int Ioctl(SafeFileHandle file, uint code, void* input, uint inputBytes, void* output, uint outputBytes)
        => DeviceIoControl(file, code, input, inputBytes, output, outputBytes, out _, IntPtr.Zero) ? 0 : Marshal.GetLastWin32Error();

    public static int SetSparse(SafeFileHandle file) => Ioctl(file, FsctlSetSparse, null, 0, null, 0);

    public static bool GetVolumeInformation(SafeFileHandle file, out uint flags, out string fileSystemName, out uint serial, out int error)
    {
        char* name = stackalloc char[261];
        bool ok = GetVolumeInformationByHandleW(file, null, 0, out serial, out _, out flags, name, 261);
        error = ok ? 0 : Marshal.GetLastWin32Error();
        fileSystemName = ok ? new string(name) : string.Empty;
        return ok;
    }

    /// <summary>SetFileInformationByHandle(FileRenameInfoEx): renames the open file to <paramref name="newPath"/>; 0 or the error.</summary>
    public static int RenameByHandle(SafeFileHandle file, string newPath, uint flags, int informationClass = FileRenameInfoEx)
    {
        // FILE_RENAME_INFO: a 4-byte union (Flags / ReplaceIfExists), pointer-aligned RootDirectory, name length in bytes, name.
        int nameBytes = newPath.Length * 2;
        int size = 8 + IntPtr.Size + 4 + nameBytes + 2;
        byte* buffer = stackalloc byte[size];
        new Span<byte>(buffer, size).Clear();
        *(uint*)buffer = flags;
        *(uint*)(buffer + 8 + IntPtr.Size) = (uint)nameBytes;
        fixed (char* name = newPath)
        {
            Buffer.MemoryCopy(name, buffer + 8 + IntPtr.Size + 4, nameBytes, nameBytes);
        }

        return SetFileInformationByHandle(file, informationClass, buffer, (uint)size) ? 0 : Marshal.GetLastWin32Error();
    }

    public static int Flush(SafeFileHandle file) => FlushFileBuffers(file) ? 0 : Marshal.GetLastWin32Error();

    /// <summary>CopyFile2 with COPYFILE2_EXTENDED_PARAMETERS; <paramref name="cancel"/> is the pfCancel flag. Returns the HRESULT.</summary>
    public static int CopyFile2(string source, string destination, uint flags, int* cancel)
    {
        var parameters = new CopyFile2ExtendedParameters
        {
            Size = (uint)sizeof(CopyFile2ExtendedParameters),
            CopyFlags = flags,
            Cancel = cancel,
        };
        return CopyFile2Native(source, destination, &parameters);
    }

    /// <summary>Bytes per cluster of the volume whose root is <paramref name="root"/> (e.g. "R:\\").</summary>
    public static long ClusterBytes(string root)
    {
        if (!GetDiskFreeSpaceW(root, out uint sectorsPerCluster, out uint bytesPerSector, out _, out _))
        {
            throw new Win32Exception(Marshal.GetLastWin32Error(), $"GetDiskFreeSpace {root}");
        }

        return (long)sectorsPerCluster * bytesPerSector;
    }

    /// <summary>
    /// The file system's own record of where a file's clusters are and how many files share each
    /// (FSCTL_GET_RETRIEVAL_POINTERS_AND_REFCOUNT, what `fsutil file queryExtentsAndRefCounts` shows).
    /// </summary>
    public static List<(long Vcn, long Clusters, long Lcn, uint References)> ExtentsAndReferenceCounts(string path)
    {
        const uint FsctlGetRetrievalPointersAndRefcount = 0x000903D3;
        const int ErrorMoreData = 234;
        const int ErrorHandleEof = 38;
        var extents = new List<(long, long, long, uint)>();
        using SafeFileHandle handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        byte* output = stackalloc byte[16 + (24 * 128)];
        long startingVcn = 0;
        while (true)
        {
            int error = Ioctl(handle, FsctlGetRetrievalPointersAndRefcount, &startingVcn, 8, output, 16 + (24 * 128));
            if (error == ErrorHandleEof)
            {
                return extents; // nothing allocated (empty or resident file)
            }

            if (error != 0 && error != ErrorMoreData)
            {
                throw new Win32Exception(error, $"FSCTL_GET_RETRIEVAL_POINTERS_AND_REFCOUNT {path}");
            }

            uint count = *(uint*)output;
            long vcn = *(long*)(output + 8);
            for (int i = 0; i < count; i++)
            {
                byte* extent = output + 16 + (24 * i);
                long nextVcn = *(long*)extent;
                extents.Add((vcn, nextVcn - vcn, *(long*)(extent + 8), *(uint*)(extent + 16)));
                vcn = nextVcn;
            }

            if (error == 0 || count == 0)
            {
                return extents;
            }

            startingVcn = vcn;
        }
    }

    /// <summary>
    /// "ReFS 3.14" style version of the file system holding <paramref name="file"/>: FSCTL_GET_REFS_VOLUME_DATA for
    /// ReFS, FSCTL_GET_NTFS_VOLUME_DATA's extended data for NTFS. 0 or the Win32 error (50 for other file systems).
    /// </summary>
    /// <remarks>The documentation asks for a volume handle; a file's handle is tried first because opening the volume
    /// may need rights a benchmark should not ask for. The caller tries <see cref="OpenVolume"/> when this fails.</remarks>
    public static int FileSystemVersion(SafeFileHandle handle, string fileSystem, out string version)
    {
        const int ErrorNotSupported = 50;
        version = string.Empty;
        if (string.Equals(fileSystem, "ReFS", StringComparison.OrdinalIgnoreCase))
        {
            // REFS_VOLUME_DATA_BUFFER: ByteCount, then MajorVersion and MinorVersion as DWORDs; 128 bytes in all.
            uint* refs = stackalloc uint[32];
            int error = Ioctl(handle, FsctlGetRefsVolumeData, null, 0, refs, 128);
            version = error == 0 ? $"{refs[1]}.{refs[2]}" : string.Empty;
            return error;
        }

        if (string.Equals(fileSystem, "NTFS", StringComparison.OrdinalIgnoreCase))
        {
            // NTFS_VOLUME_DATA_BUFFER is 96 bytes; NTFS_EXTENDED_VOLUME_DATA follows it when the buffer has room:
            // ByteCount (DWORD), then MajorVersion and MinorVersion as WORDs.
            byte* ntfs = stackalloc byte[96 + 32];
            new Span<byte>(ntfs, 128).Clear();
            int error = Ioctl(handle, FsctlGetNtfsVolumeData, null, 0, ntfs, 128);
            if (error == 0 && *(uint*)(ntfs + 96) == 0)
            {
                return ErrorNotSupported; // an old system that filled in the basic buffer only
            }

            version = error == 0 ? $"{*(ushort*)(ntfs + 100)}.{*(ushort*)(ntfs + 102)}" : string.Empty;
            return error;
        }

        return ErrorNotSupported;
    }

    /// <summary>A handle to the volume that holds <paramref name="path"/> (\\.\R:), asking only to read attributes.</summary>
    public static SafeFileHandle OpenVolume(string path, out int error)
    {
        char* root = stackalloc char[MaxPathChars];
        if (!GetVolumePathNameW(path, root, MaxPathChars))
        {
            error = Marshal.GetLastWin32Error();
            return new SafeFileHandle(IntPtr.Zero, ownsHandle: false);
        }

        string volume = @"\\.\" + new string(root).TrimEnd('\\');
        SafeFileHandle handle = CreateFileW(volume, FileReadAttributes, (uint)(FileShare.ReadWrite | FileShare.Delete), IntPtr.Zero, OpenExisting, 0, IntPtr.Zero);
        error = handle.IsInvalid ? Marshal.GetLastWin32Error() : 0;
        return handle;
    }

    public static string Describe(int error) => $"{error} ({new Win32Exception(error).Message})";

    /// <summary>BY_HANDLE_FILE_INFORMATION: FILETIMEs are 4-byte aligned, hence Pack = 4 (52 bytes).</summary>
    [StructLayout(LayoutKind.Sequential, Pack = 4)]
    public struct ByHandleFileInformation
    {
        public uint FileAttributes;
        public long CreationTime;
        public long LastAccessTime;
        public long LastWriteTime;
        public uint VolumeSerialNumber;
        public uint FileSizeHigh;
        public uint FileSizeLow;
        public uint NumberOfLinks;
        public uint FileIndexHigh;
        public uint FileIndexLow;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct CopyFile2ExtendedParameters
    {
        public uint Size;
        public uint CopyFlags;
        public int* Cancel;
        public IntPtr ProgressRoutine;
        public IntPtr CallbackContext;
    }

    /// <summary>
    /// Drops this thread's COM error information (SetErrorInfo(0, null)). .NET's Marshal.GetExceptionForHR, which the
    /// stock task words a failed link call with, reads it: left there by an earlier scenario's failure on this thread,
    /// it would word a later scenario's message (under Wine 8, "Access to the path ... is denied" for a taken name).
    /// </summary>
    public static void ClearComErrorInfo() => SetErrorInfo(0, IntPtr.Zero);

    [DllImport("oleaut32.dll")]
    private static extern int SetErrorInfo(uint reserved, IntPtr errorInfo);

    [DllImport(Kernel32, SetLastError = true)]
    public static extern bool GetFileInformationByHandle(SafeFileHandle file, out ByHandleFileInformation information);

    [DllImport(Kernel32, SetLastError = true, CharSet = CharSet.Unicode)]
    public static extern SafeFileHandle CreateFileW(string path, uint access, uint share, IntPtr security, uint disposition, uint flags, IntPtr template);

    [DllImport(Kernel32, SetLastError = true, CharSet = CharSet.Unicode)]
    private static extern bool GetDiskFreeSpaceW(string root, out uint sectorsPerCluster, out uint bytesPerSector, out uint freeClusters, out uint totalClusters);

    [DllImport(Kernel32, SetLastError = true, CharSet = CharSet.Unicode)]
    private static extern bool GetVolumePathNameW(string path, char* volumePath, uint chars);

    [DllImport(Kernel32, SetLastError = true)]
    private static extern bool GetFileInformationByHandleEx(SafeFileHandle file, int informationClass, void* information, uint size);

    [DllImport(Kernel32, SetLastError = true, CharSet = CharSet.Unicode)]
    private static extern bool CreateHardLinkW(string newPath, string existingPath, IntPtr security);

    [DllImport(Kernel32, SetLastError = true)]
    private static extern bool DeviceIoControl(SafeFileHandle device, uint code, void* input, uint inputBytes, void* output, uint outputBytes, out uint returned, IntPtr overlapped);

    [DllImport(Kernel32, SetLastError = true)]
    private static extern bool GetVolumeInformationByHandleW(SafeFileHandle file, char* volumeName, uint volumeNameChars, out uint serial, out uint maxComponent, out uint flags, char* fileSystemName, uint fileSystemNameChars);

    [DllImport(Kernel32, SetLastError = true)]
    private static extern bool SetFileInformationByHandle(SafeFileHandle file, int informationClass, void* information, uint size);

    [DllImport(Kernel32, SetLastError = true)]
    private static extern bool FlushFileBuffers(SafeFileHandle file);

    [DllImport(Kernel32, EntryPoint = "CopyFile2", CharSet = CharSet.Unicode)]
    private static extern int CopyFile2Native(string source, string destination, CopyFile2ExtendedParameters* parameters);

    [DllImport(Kernel32, CharSet = CharSet.Unicode)]
    private static extern IntPtr GetModuleHandleW(string name);

    [DllImport(Kernel32, CharSet = CharSet.Ansi, BestFitMapping = false)]
    private static extern IntPtr GetProcAddress(IntPtr module, string name);
}
