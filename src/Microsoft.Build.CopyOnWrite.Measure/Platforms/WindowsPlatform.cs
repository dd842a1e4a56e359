using System;
using System.Diagnostics;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>
/// Windows: the file system name and the block-cloning flag (FILE_SUPPORTS_BLOCK_REFCOUNTING) from
/// GetVolumeInformation, Dev Drive from the volume's persistent state (FSCTL_QUERY_PERSISTENT_VOLUME_STATE),
/// used space from GetDiskFreeSpaceEx, a flush of the whole volume (FlushFileBuffers, elevated only).
/// Every decision is made here from <see cref="IWindowsSystem"/>'s answers.
/// </summary>
internal sealed class WindowsPlatform : IMeasurementPlatform
{
    public const uint FileSupportsBlockRefcounting = 0x08000000;
    public const uint PersistentVolumeStateDevVolume = 0x00002000;
    public const uint PersistentVolumeStateTrustedVolume = 0x00004000;

    /// <summary>Windows 11 24H2 and Windows Server 2025: from this build on, CopyFile block-clones by itself on ReFS.</summary>
    public const int FirstBuildWhoseCopyFileClones = 26100;

    private const int ErrorAccessDenied = 5;
    private const int ErrorInvalidFunction = 1;
    private const int ErrorNotSupported = 50;
    private const int ErrorInvalidParameter = 87;

    private readonly IWindowsSystem _system;

    public WindowsPlatform(IWindowsSystem system) => _system = system;

    public string FlushMethod => "FlushFileBuffers on the volume (needs an elevated prompt)";

    public VolumeIdentity Identify(string folder)
    {
        string root = VolumeRoot(folder);
        WindowsAnswer<WindowsVolumeInformation> information = _system.VolumeInformation(root);
        if (!information.Succeeded)
        {
            return new VolumeIdentity("unknown", null, $"GetVolumeInformation failed on {root}: {Describe(information.Error)}", null, null, null, root, null);
        }

        string fileSystem = information.Value.FileSystemName;
        bool canClone = (information.Value.Flags & FileSupportsBlockRefcounting) != 0;
        string evidence = canClone
            ? "the volume reports block cloning (FILE_SUPPORTS_BLOCK_REFCOUNTING)"
            : "the volume does not report block cloning (no FILE_SUPPORTS_BLOCK_REFCOUNTING)";
        (bool? devDrive, bool? trusted, string? devDriveProblem) = DevDriveState(root, fileSystem);
        if (devDriveProblem is not null)
        {
            evidence += $"; Dev Drive unknown: {devDriveProblem}";
        }

        bool stockClones = canClone && _system.OSBuild >= FirstBuildWhoseCopyFileClones;
        return new VolumeIdentity(fileSystem, canClone, evidence, stockClones, devDrive, trusted, root, null);
    }

    public Reading<long> UsedBytes(string folder)
    {
        WindowsAnswer<WindowsDiskSpace> space = _system.DiskSpace(folder);
        return space.Succeeded
            ? Reading<long>.Of((long)(space.Value.TotalBytes - space.Value.FreeBytes))
            : Reading<long>.None($"GetDiskFreeSpaceEx failed: {Describe(space.Error)}");
    }

    public Reading<TimeSpan> Flush(string folder)
    {
        string root = VolumeRoot(folder);
        var clock = Stopwatch.StartNew();
        int error = _system.FlushVolume(root);
        clock.Stop();
        return error switch
        {
            0 => Reading<TimeSpan>.Of(clock.Elapsed),
            ErrorAccessDenied => Reading<TimeSpan>.None("flushing a whole volume needs an elevated prompt (run as administrator to measure it)"),
            _ => Reading<TimeSpan>.None($"FlushFileBuffers on volume {root} failed: {Describe(error)}"),
        };
    }

    public Reading<double> LoadAverage() => Reading<double>.None("Windows keeps no load average");

    public MachineDescription DescribeMachine()
        => new(_system.ProcessorName ?? RuntimeInformation.ProcessArchitecture.ToString(), Environment.ProcessorCount, MeasurementPlatforms.MemoryText(), $"{_system.OSDescription} (build {_system.OSBuild})");

    private string VolumeRoot(string folder)
    {
        WindowsAnswer<string> root = _system.VolumeRoot(folder);
        return root.Succeeded ? root.Value : throw new MeasureException($"Cannot find the volume that holds {folder}: {Describe(root.Error)}.");
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

        WindowsAnswer<uint> state = _system.PersistentVolumeState(root);
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
