using System;
using System.IO;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>
/// Windows: the volume root from GetVolumePathName, the file system and the block-cloning flag
/// (FILE_SUPPORTS_BLOCK_REFCOUNTING) from GetVolumeInformation, a share from GetDriveType, whether it clones by the
/// engine's own rule (<see cref="WindowsVolume.CanClone"/>), Dev Drive and its trust from the volume's persistent
/// state. Windows has a flag for cloning, so nothing is written to find out. Every decision is made here from
/// <see cref="IWindowsVolumeSystem"/>'s answers.
/// </summary>
internal sealed class WindowsVolumes : IVolumeInspector
{
    public const uint PersistentVolumeStateDevVolume = 0x00002000;
    public const uint PersistentVolumeStateTrustedVolume = 0x00004000;

    /// <summary>Windows 11 24H2 and Windows Server 2025: from this build on, CopyFile block-clones by itself on ReFS.</summary>
    public const int FirstBuildWhoseCopyFileClones = 26100;

    private const int ErrorInvalidFunction = 1;
    private const int ErrorNotSupported = 50;
    private const int ErrorInvalidParameter = 87;

    private readonly IWindowsVolumeSystem _system;

    public WindowsVolumes(IWindowsVolumeSystem system) => _system = system;

    public VolumeLocation Locate(string path)
    {
        string root = RootOf(path);
        SystemAnswer<WindowsVolumeInformation> information = _system.VolumeInformation(root);
        return new VolumeLocation(root, information.Succeeded ? information.Value.FileSystemName : "unknown");
    }

    /// <remarks>Nothing is written on Windows: the volume's own flags say it, so <paramref name="mayWrite"/> changes nothing.</remarks>
    public VolumeFacts Inspect(string folder, bool mayWrite)
    {
        string root = RootOf(folder);
        SystemAnswer<WindowsVolumeInformation> information = _system.VolumeInformation(root);
        if (!information.Succeeded)
        {
            return new VolumeFacts(root, "unknown", null, $"GetVolumeInformation failed on {root}: {Describe(information.Error)}", null, null, null, null);
        }

        string fileSystem = information.Value.FileSystemName;
        uint flags = information.Value.Flags;
        // The engine's rule, shares included; as the engine does, a share is asked about only where the flags would clone.
        var volume = new WindowsVolume(flags, fileSystem, WindowsCloneDecisions.SupportsBlockCloning(flags) && _system.IsNetworkDrive(root));
        bool canClone = volume.CanClone;
        string evidence = canClone ? "the volume reports block cloning (FILE_SUPPORTS_BLOCK_REFCOUNTING)"
            : volume.IsNetworkShare ? "a network share: its server reports block cloning, but a share is not cloned over (its server copies, by SMB offload)"
            : "the volume does not report block cloning (no FILE_SUPPORTS_BLOCK_REFCOUNTING)";
        (bool? devDrive, bool? trusted, string? devDriveProblem) = DevDriveState(root, fileSystem);
        if (devDriveProblem is not null)
        {
            evidence += $"; Dev Drive unknown: {devDriveProblem}";
        }

        bool stockClones = canClone && _system.OSBuild >= FirstBuildWhoseCopyFileClones;
        return new VolumeFacts(root, fileSystem, canClone, evidence, stockClones, devDrive, trusted, null);
    }

    /// <summary>The volume root; when Windows cannot name it (a path on no volume), an exception that says which path.</summary>
    private string RootOf(string path)
    {
        SystemAnswer<string> root = _system.VolumeRoot(path);
        return root.Succeeded ? root.Value : throw new IOException($"Cannot find the volume that holds {path}: {Describe(root.Error)}.");
    }

    /// <summary>
    /// A Dev Drive is always ReFS, so any other file system is not one. On ReFS the persistent volume state says;
    /// a Windows that predates Dev Drive (before 11 22H2) rejects the query as unknown, which also means "not one".
    /// </summary>
    private (bool? DevDrive, bool? Trusted, string? Problem) DevDriveState(string root, string fileSystem)
    {
        if (!fileSystem.Equals("ReFS", StringComparison.OrdinalIgnoreCase))
        {
            return (false, null, null);
        }

        SystemAnswer<uint> state = _system.PersistentVolumeState(root);
        if (state.Succeeded)
        {
            bool devDrive = (state.Value & PersistentVolumeStateDevVolume) != 0;
            return (devDrive, devDrive ? (state.Value & PersistentVolumeStateTrustedVolume) != 0 : null, null);
        }

        return state.Error is ErrorInvalidFunction or ErrorInvalidParameter or ErrorNotSupported
            ? (false, null, null)
            : (null, null, $"FSCTL_QUERY_PERSISTENT_VOLUME_STATE failed: {Describe(state.Error)}");
    }

    private static string Describe(int error) => $"Windows error {error}";
}
