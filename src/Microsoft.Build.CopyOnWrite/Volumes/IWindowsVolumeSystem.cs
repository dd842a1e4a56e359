namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>What Windows answers about volumes, as it answers it: a value, or the Win32 error code of the call.</summary>
internal interface IWindowsVolumeSystem
{
    /// <summary>GetVolumePathName: the root of the volume holding <paramref name="path"/> (e.g. D:\ or C:\mnt\devdrive\).</summary>
    WindowsAnswer<string> VolumeRoot(string path);

    /// <summary>GetVolumeInformation of a volume root: the file system's name and flags.</summary>
    WindowsAnswer<WindowsVolumeInformation> VolumeInformation(string root);

    /// <summary>FSCTL_QUERY_PERSISTENT_VOLUME_STATE on the volume root: the persistent state flags (Dev Drive, trusted).</summary>
    WindowsAnswer<uint> PersistentVolumeState(string root);

    /// <summary>The Windows build number (22631 is 11 23H2, 26100 is 11 24H2).</summary>
    int OSBuild { get; }
}

internal readonly record struct WindowsAnswer<T>(T Value, int Error)
{
    public bool Succeeded => Error == 0;

    public static WindowsAnswer<T> Ok(T value) => new(value, 0);

    public static WindowsAnswer<T> Failed(int error) => new(default!, error);
}

internal readonly record struct WindowsVolumeInformation(string FileSystemName, uint Flags);
