using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Win32.SafeHandles;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>What Windows answers the measurement beyond the volume's description: a value, or the Win32 error code of the call.</summary>
internal interface IWindowsSystem : IWindowsVolumeFactsSystem
{
    /// <summary>GetDiskFreeSpaceEx: the volume's size and free bytes.</summary>
    SystemAnswer<WindowsDiskSpace> DiskSpace(string path);

    /// <summary>FlushFileBuffers on the volume itself; 0 or the Win32 error (5 when the process is not elevated).</summary>
    int FlushVolume(string root);

    string OSDescription { get; }

    string? ProcessorName { get; }
}

internal readonly record struct WindowsDiskSpace(ulong TotalBytes, ulong FreeBytes);

/// <summary>The real answers: thin calls into kernel32.</summary>
[SupportedOSPlatform("windows")]
internal sealed partial class WindowsSystem : WindowsVolumeFactsSystem, IWindowsSystem
{
    private const uint GenericRead = 0x80000000;
    private const uint GenericWrite = 0x40000000;

    public string OSDescription => RuntimeInformation.OSDescription;

    public string? ProcessorName
        => Registry.GetValue(@"HKEY_LOCAL_MACHINE\HARDWARE\DESCRIPTION\System\CentralProcessor\0", "ProcessorNameString", null) is string name ? name.Trim() : null;

    public SystemAnswer<WindowsDiskSpace> DiskSpace(string path)
        => GetDiskFreeSpaceExW(path, out _, out ulong total, out ulong free)
            ? SystemAnswer<WindowsDiskSpace>.Ok(new WindowsDiskSpace(total, free))
            : SystemAnswer<WindowsDiskSpace>.Failed(Marshal.GetLastPInvokeError());

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
    private static partial bool GetDiskFreeSpaceExW(string directoryName, out ulong freeBytesAvailableToCaller, out ulong totalNumberOfBytes, out ulong totalNumberOfFreeBytes);

    [LibraryImport("kernel32.dll", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetVolumeNameForVolumeMountPointW(string volumeMountPoint, [Out] char[] volumeName, uint bufferLength);

    [LibraryImport("kernel32.dll", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool FlushFileBuffers(SafeFileHandle file);
}
