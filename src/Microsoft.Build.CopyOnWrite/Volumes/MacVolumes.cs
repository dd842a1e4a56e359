using System;
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

    public VolumeFacts Inspect(string folder, bool mayWrite)
    {
        MacFileSystemStatus status = Status(folder);
        string type = status.TypeName;
        int probe = mayWrite ? _system.ProbeClone(folder) : -1;
        string why = mayWrite ? "the folder cannot be written to" : "not written to: the doctor writes only where a build writes";
        (bool? canClone, string evidence) = probe switch
        {
            0 => ((bool?)true, "a probe clone (clonefile) of a file of our own worked"),
            ENOTSUP => (false, "a probe clone (clonefile) of a file of our own was refused: the file system cannot clone (ENOTSUP)"),
            -1 when type.Equals("apfs", StringComparison.OrdinalIgnoreCase) => (true, $"APFS always clones (no probe clone: {why})"),
            -1 when type is "hfs" or "msdos" or "exfat" => (false, $"{type} cannot clone (no probe clone: {why})"),
            -1 => (null, $"unknown: no probe clone, {why}"),
            _ => (null, $"a probe clone (clonefile) failed with errno {probe}"),
        };

        string? caveat = type.Equals("apfs", StringComparison.OrdinalIgnoreCase)
            ? "APFS volumes share their container's free space, so writes to other volumes of the same container move this number too"
            : null;

        // Since .NET 7, File.Copy (and so MSBuild's own Copy task) tries clonefile first.
        return new VolumeFacts(status.MountedOn, type, canClone, evidence, canClone, null, null, caveat);
    }

    private MacFileSystemStatus Status(string path)
    {
        SystemAnswer<MacFileSystemStatus> status = _system.StatFs(path);
        return status.Succeeded ? status.Value : throw new IOException($"Cannot read the file system of {path}: statfs failed with errno {status.Error}.");
    }
}
