using System;
using System.Diagnostics;
using System.Runtime.InteropServices;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>
/// macOS: the volume as <see cref="MacVolumeFacts"/> describes it, used space from statfs, sync() to flush, getloadavg
/// and sysctl for the machine. Every decision is made here from <see cref="IMacSystem"/>'s answers.
/// </summary>
internal sealed class MacPlatform : IMeasurementPlatform
{
    private readonly IMacSystem _system;

    public MacPlatform(IMacSystem system) => _system = system;

    public string FlushMethod => "sync() (every file system: macOS has no per-volume sync)";

    public VolumeFacts Identify(string folder) => MeasurementPlatforms.Identify(new MacVolumeFacts(_system), folder);

    public Reading<long> UsedBytes(string folder)
    {
        SystemAnswer<MacFileSystemStatus> status = _system.StatFs(folder);
        return status.Succeeded
            ? Reading<long>.Of((long)((status.Value.Blocks - status.Value.FreeBlocks) * status.Value.BlockSize))
            : Reading<long>.None($"statfs failed with errno {status.Error}");
    }

    public Reading<TimeSpan> Flush(string folder)
    {
        var clock = Stopwatch.StartNew();
        _system.SyncAll();
        return Reading<TimeSpan>.Of(clock.Elapsed);
    }

    public Reading<double> LoadAverage()
    {
        SystemAnswer<double> load = _system.LoadAverage();
        return load.Succeeded ? Reading<double>.Of(load.Value) : Reading<double>.None("getloadavg failed");
    }

    public MachineDescription DescribeMachine()
    {
        string cpu = _system.Sysctl("machdep.cpu.brand_string") ?? RuntimeInformation.ProcessArchitecture.ToString();
        string os = _system.Sysctl("kern.osproductversion") is string version
            ? $"macOS {version} (Darwin {_system.Sysctl("kern.osrelease") ?? "?"})"
            : RuntimeInformation.OSDescription;
        return new MachineDescription(cpu, Environment.ProcessorCount, MeasurementPlatforms.MemoryText(), os);
    }
}
