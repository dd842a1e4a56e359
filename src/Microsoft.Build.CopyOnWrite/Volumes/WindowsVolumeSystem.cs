using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>
/// The real answers: thin calls into kernel32, no decisions. [DllImport] with explicit Unicode entry points, since
/// this also runs in .NET Framework MSBuild (32-bit too: every argument here is pointer-sized or fixed).
/// </summary>
internal unsafe class WindowsVolumeSystem : IWindowsVolumeSystem
{
    private const string Kernel32 = "kernel32.dll";
    private const uint DriveRemote = 4;

    public SystemAnswer<string> VolumeRoot(string path)
    {
        char[] buffer = new char[Math.Max(path.Length + 2, 261)];
        return GetVolumePathNameW(Path.GetFullPath(path), buffer, (uint)buffer.Length)
            ? SystemAnswer<string>.Ok(new string(buffer, 0, Array.IndexOf(buffer, '\0')))
            : SystemAnswer<string>.Failed(Marshal.GetLastWin32Error());
    }

    public SystemAnswer<WindowsVolumeInformation> VolumeInformation(string root)
    {
        // No label or serial: Wine answers those through the volume's device and mount manager, which can fail where the flags do not.
        char[] name = new char[261];
        uint flags;
        return GetVolumeInformationW(root, null, 0, null, null, &flags, name, (uint)name.Length)
            ? SystemAnswer<WindowsVolumeInformation>.Ok(new WindowsVolumeInformation(new string(name, 0, Array.IndexOf(name, '\0')), flags))
            : SystemAnswer<WindowsVolumeInformation>.Failed(Marshal.GetLastWin32Error());
    }

    public bool IsNetworkDrive(string root) => GetDriveTypeW(root) == DriveRemote;

    [DllImport(Kernel32, EntryPoint = "GetVolumePathNameW", CharSet = CharSet.Unicode, ExactSpelling = true, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static extern bool GetVolumePathNameW(string fileName, [Out] char[] volumePathName, uint bufferLength);

    [DllImport(Kernel32, EntryPoint = "GetVolumeInformationW", CharSet = CharSet.Unicode, ExactSpelling = true, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static extern bool GetVolumeInformationW(string rootPathName, char[]? volumeName, uint volumeNameSize, uint* serialNumber, uint* maximumComponentLength, uint* fileSystemFlags, [Out] char[] fileSystemName, uint fileSystemNameSize);

    [DllImport(Kernel32, EntryPoint = "GetDriveTypeW", CharSet = CharSet.Unicode, ExactSpelling = true)]
    private static extern uint GetDriveTypeW(string rootPathName);
}
