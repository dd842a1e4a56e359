using System.IO;

namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>
/// macOS: the mount point and file system's type name from statfs; whether it clones from a probe clone (clonefile)
/// of a file of our own in the folder (APFS clones, HFS+ and exFAT do not). Every decision is made here from
/// <see cref="IMacVolumeSystem"/>'s answers.
/// </summary>
internal sealed class MacVolumes : IVolumeInspector
{
    // macOS errno values (they differ from Linux's).
    public const int ENOTSUP = 45;

    private readonly IMacVolumeSystem _system;

    public MacVolumes(IMacVolumeSystem system) => _system = system;

    public VolumeLocation Locate(string path)
    {
        MacFileSystemStatus status = Status(path);
        return new VolumeLocation(status.MountedOn, status.TypeName);
    }

    public bool? CanClone(string folder) => CanCloneByProbe(_system.ProbeClone(folder));

    /// <summary>What <see cref="IMacVolumeSystem.ProbeClone"/>'s answer says: 0 clones, ENOTSUP cannot, anything else (no file could be made, another error) unknown.</summary>
    public static bool? CanCloneByProbe(int probe) => probe switch
    {
        0 => true,
        ENOTSUP => false,
        _ => null,
    };

    private MacFileSystemStatus Status(string path)
    {
        SystemAnswer<MacFileSystemStatus> status = _system.StatFs(path);
        return status.Succeeded ? status.Value : throw new IOException($"Cannot read the file system of {path}: statfs failed with errno {status.Error}.");
    }
}
