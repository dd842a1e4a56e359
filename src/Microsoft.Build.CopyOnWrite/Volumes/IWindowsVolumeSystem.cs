namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>What Windows answers about volumes, as it answers it: a value, or the Win32 error code of the call.</summary>
internal interface IWindowsVolumeSystem
{
    /// <summary>GetVolumePathName: the root of the volume holding <paramref name="path"/> (e.g. D:\ or C:\mnt\devdrive\).</summary>
    SystemAnswer<string> VolumeRoot(string path);

    /// <summary>GetVolumeInformation of a volume root: the file system's name and flags.</summary>
    SystemAnswer<WindowsVolumeInformation> VolumeInformation(string root);

    /// <summary>GetDriveType of a volume root: whether it is a network drive (DRIVE_REMOTE: a share, mapped or by UNC path).</summary>
    bool IsNetworkDrive(string root);
}

internal readonly record struct WindowsVolumeInformation(string FileSystemName, uint Flags);
