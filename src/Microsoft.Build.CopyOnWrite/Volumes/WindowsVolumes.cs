using System.IO;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>
/// Windows: the volume root from GetVolumePathName, the file system and the block-cloning flag
/// (FILE_SUPPORTS_BLOCK_REFCOUNTING) from GetVolumeInformation, a share from GetDriveType, whether it clones by the
/// engine's own rule (<see cref="WindowsVolume.CanClone"/>). Windows has a flag for cloning, so nothing is written to
/// find out. Every decision is made here from <see cref="IWindowsVolumeSystem"/>'s answers.
/// </summary>
internal sealed class WindowsVolumes : IVolumeInspector
{
    private readonly IWindowsVolumeSystem _system;

    public WindowsVolumes(IWindowsVolumeSystem system) => _system = system;

    public VolumeLocation Locate(string path)
    {
        string root = RootOf(path);
        SystemAnswer<WindowsVolumeInformation> information = _system.VolumeInformation(root);
        return new VolumeLocation(root, information.Succeeded ? information.Value.FileSystemName : "unknown");
    }

    public bool? CanClone(string folder)
    {
        string root = RootOf(folder);
        SystemAnswer<WindowsVolumeInformation> information = _system.VolumeInformation(root);
        return information.Succeeded ? VolumeAt(root, information.Value).CanClone : null;
    }

    /// <summary>The volume as the engine judges it, shares included; as the engine does, a share is asked about only where the flags would clone.</summary>
    public WindowsVolume VolumeAt(string root, WindowsVolumeInformation information)
        => new(information.Flags, information.FileSystemName, WindowsCloneDecisions.SupportsBlockCloning(information.Flags) && _system.IsNetworkDrive(root));

    /// <summary>The volume root; when Windows cannot name it (a path on no volume), an exception that says which path.</summary>
    public string RootOf(string path)
    {
        SystemAnswer<string> root = _system.VolumeRoot(path);
        return root.Succeeded ? root.Value : throw new IOException($"Cannot find the volume that holds {path}: Windows error {root.Error}.");
    }
}
