using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32;
using Microsoft.Win32.SafeHandles;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>What Windows answers, as it answers it: a value, or the Win32 error code of the call.</summary>
internal interface IWindowsSystem
{
    /// <summary>GetVolumePathName: the root of the volume holding <paramref name="path"/> (e.g. D:\ or C:\mnt\devdrive\).</summary>
    WindowsAnswer<string> VolumeRoot(string path);

    /// <summary>GetVolumeInformation of a volume root: the file system's name and flags.</summary>
    WindowsAnswer<WindowsVolumeInformation> VolumeInformation(string root);

    /// <summary>FSCTL_QUERY_PERSISTENT_VOLUME_STATE on the volume root: the persistent state flags (Dev Drive, trusted).</summary>
    WindowsAnswer<uint> PersistentVolumeState(string root);

    /// <summary>GetDiskFreeSpaceEx: the volume's size and free bytes.</summary>
    WindowsAnswer<WindowsDiskSpace> DiskSpace(string path);

    /// <summary>FlushFileBuffers on the volume itself; 0 or the Win32 error (5 when the process is not elevated).</summary>
    int FlushVolume(string root);

    int OSBuild { get; }

    string OSDescription { get; }

    string? ProcessorName { get; }
}

internal readonly record struct WindowsAnswer<T>(T Value, int Error)
{
    public bool Succeeded => Error == 0;

    public static WindowsAnswer<T> Ok(T value) => new(value, 0);

    public static WindowsAnswer<T> Failed(int error) => new(default!, error);
}

internal readonly record struct WindowsVolumeInformation(string FileSystemName, uint Flags);

internal readonly record struct WindowsDiskSpace(ulong TotalBytes, ulong FreeBytes);

/// <summary>The real answers: thin calls into kernel32.</summary>
[SupportedOSPlatform("windows")]
internal sealed partial class WindowsSystem : IWindowsSystem
{
    private const uint FsctlQueryPersistentVolumeState = 0x0009023C;
    private const uint FileReadAttributes = 0x80;
    private const uint GenericRead = 0x80000000;
    private const uint GenericWrite = 0x40000000;
    private const uint FileShareReadWriteDelete = 0x7;
    private const uint OpenExisting = 3;
    private const uint FileFlagBackupSemantics = 0x02000000;

    public int OSBuild => Environment.OSVersion.Version.Build;

    public string OSDescription => RuntimeInformation.OSDescription;

    public string? ProcessorName
        => Registry.GetValue(@"HKEY_LOCAL_MACHINE\HARDWARE\DESCRIPTION\System\CentralProcessor\0", "ProcessorNameString", null) is string name ? name.Trim() : null;

    public WindowsAnswer<string> VolumeRoot(string path)
    {
        char[] buffer = new char[Math.Max(path.Length + 2, 261)];
        return GetVolumePathNameW(Path.GetFullPath(path), buffer, (uint)buffer.Length)
            ? WindowsAnswer<string>.Ok(new string(buffer, 0, Array.IndexOf(buffer, '\0')))
            : WindowsAnswer<string>.Failed(Marshal.GetLastPInvokeError());
    }

    public WindowsAnswer<WindowsVolumeInformation> VolumeInformation(string root)
    {
        char[] name = new char[261];
        return GetVolumeInformationW(root, null, 0, out _, out _, out uint flags, name, (uint)name.Length)
            ? WindowsAnswer<WindowsVolumeInformation>.Ok(new WindowsVolumeInformation(new string(name, 0, Array.IndexOf(name, '\0')), flags))
            : WindowsAnswer<WindowsVolumeInformation>.Failed(Marshal.GetLastPInvokeError());
    }

    public unsafe WindowsAnswer<uint> PersistentVolumeState(string root)
    {
        using SafeFileHandle handle = CreateFileW(root, FileReadAttributes, FileShareReadWriteDelete, IntPtr.Zero, OpenExisting, FileFlagBackupSemantics, IntPtr.Zero);
        if (handle.IsInvalid)
        {
            return WindowsAnswer<uint>.Failed(Marshal.GetLastPInvokeError());
        }

        // FILE_FS_PERSISTENT_VOLUME_INFORMATION { VolumeFlags, FlagMask, Version, Reserved }: version 1, asking for the Dev Drive bits.
        uint* input = stackalloc uint[4] { 0, 0x00002000 | 0x00004000, 1, 0 };
        uint* output = stackalloc uint[4];
        return DeviceIoControl(handle, FsctlQueryPersistentVolumeState, input, 16, output, 16, out _, IntPtr.Zero)
            ? WindowsAnswer<uint>.Ok(output[0])
            : WindowsAnswer<uint>.Failed(Marshal.GetLastPInvokeError());
    }

    public WindowsAnswer<WindowsDiskSpace> DiskSpace(string path)
        => GetDiskFreeSpaceExW(path, out _, out ulong total, out ulong free)
            ? WindowsAnswer<WindowsDiskSpace>.Ok(new WindowsDiskSpace(total, free))
            : WindowsAnswer<WindowsDiskSpace>.Failed(Marshal.GetLastPInvokeError());

    public int FlushVolume(string root)
    {
        // The volume device (\\?\Volume{guid}, no trailing backslash) also works for volumes mounted on a folder.
        char[] name = new char[64];
        if (!GetVolumeNameForVolumeMountPointW(root.EndsWith('\\') ? root : root + "\\", name, (uint)name.Length))
        {
            return Marshal.GetLastPInvokeError();
        }

        string device = new string(name, 0, Array.IndexOf(name, '\0')).TrimEnd('\\');
        using SafeFileHandle volume = CreateFileW(device, GenericRead | GenericWrite, FileShareReadWriteDelete, IntPtr.Zero, OpenExisting, 0, IntPtr.Zero);
        if (volume.IsInvalid)
        {
            return Marshal.GetLastPInvokeError();
        }

        return FlushFileBuffers(volume) ? 0 : Marshal.GetLastPInvokeError();
    }

    [LibraryImport("kernel32.dll", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetVolumePathNameW(string fileName, [Out] char[] volumePathName, uint bufferLength);

    [LibraryImport("kernel32.dll", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetVolumeInformationW(string rootPathName, char[]? volumeName, uint volumeNameSize, out uint serialNumber, out uint maximumComponentLength, out uint fileSystemFlags, [Out] char[] fileSystemName, uint fileSystemNameSize);

    [LibraryImport("kernel32.dll", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetDiskFreeSpaceExW(string directoryName, out ulong freeBytesAvailableToCaller, out ulong totalNumberOfBytes, out ulong totalNumberOfFreeBytes);

    [LibraryImport("kernel32.dll", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetVolumeNameForVolumeMountPointW(string volumeMountPoint, [Out] char[] volumeName, uint bufferLength);

    [LibraryImport("kernel32.dll", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    private static partial SafeFileHandle CreateFileW(string fileName, uint desiredAccess, uint shareMode, IntPtr securityAttributes, uint creationDisposition, uint flagsAndAttributes, IntPtr templateFile);

    [LibraryImport("kernel32.dll", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static unsafe partial bool DeviceIoControl(SafeFileHandle device, uint ioControlCode, void* inBuffer, uint inBufferSize, void* outBuffer, uint outBufferSize, out uint bytesReturned, IntPtr overlapped);

    [LibraryImport("kernel32.dll", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool FlushFileBuffers(SafeFileHandle file);
}
