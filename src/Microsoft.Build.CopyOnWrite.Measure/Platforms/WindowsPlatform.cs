using System;
using System.Diagnostics;
using System.Runtime.InteropServices;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>
/// Windows: the volume as <see cref="WindowsVolumeFacts"/> describes it, used space from GetDiskFreeSpaceEx, a flush of
/// the whole volume (FlushFileBuffers, elevated only). Every decision is made here from <see cref="IWindowsSystem"/>.
/// </summary>
internal sealed class WindowsPlatform : IMeasurementPlatform
{
    private const int ErrorAccessDenied = 5;

    private readonly IWindowsSystem _system;

    public WindowsPlatform(IWindowsSystem system) => _system = system;

    public string FlushMethod => "FlushFileBuffers on the volume (needs an elevated prompt)";

    public VolumeFacts Identify(string folder) => MeasurementPlatforms.Identify(new WindowsVolumeFacts(_system), folder);

    public Reading<long> UsedBytes(string folder)
    {
        SystemAnswer<WindowsDiskSpace> space = _system.DiskSpace(folder);
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
        SystemAnswer<string> root = _system.VolumeRoot(folder);
        return root.Succeeded ? root.Value : throw new MeasureException($"Cannot find the volume that holds {folder}: {Describe(root.Error)}.");
    }

    private static string Describe(int error) => $"Windows error {error}";
}
