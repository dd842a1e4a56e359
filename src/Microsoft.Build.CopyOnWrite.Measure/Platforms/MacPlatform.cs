using System;
using System.Diagnostics;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>
/// macOS: the file system's type name and counts from statfs, a probe clone (clonefile) in the folder, sync() to
/// flush, getloadavg and sysctl for the machine. Every decision is made here from <see cref="IMacSystem"/>'s answers.
/// </summary>
internal sealed class MacPlatform : IMeasurementPlatform
{
    // macOS errno values (they differ from Linux's).
    public const int ENOTSUP = 45;
    public const int EXDEV = 18;

    private readonly IMacSystem _system;

    public MacPlatform(IMacSystem system) => _system = system;

    public string FlushMethod => "sync() (every file system: macOS has no per-volume sync)";

    public VolumeIdentity Identify(string folder)
    {
        MacAnswer<MacFileSystemStatus> status = _system.StatFs(folder);
        if (!status.Succeeded)
        {
            throw new MeasureException($"Cannot read the file system of {folder}: statfs failed with errno {status.Errno}.");
        }

        int probe = _system.ProbeClone(folder);
        (bool? canClone, string evidence) = probe switch
        {
            0 => ((bool?)true, "a probe clone (clonefile) in the folder worked"),
            ENOTSUP => (false, "a probe clone (clonefile) in the folder was refused: the file system cannot clone (ENOTSUP)"),
            _ => (null, $"a probe clone (clonefile) in the folder failed with errno {probe}"),
        };

        string type = status.Value.TypeName;
        string? caveat = type.Equals("apfs", StringComparison.OrdinalIgnoreCase)
            ? "APFS volumes share their container's free space, so writes to other volumes of the same container move this number too"
            : null;

        // Since .NET 7, File.Copy (and so MSBuild's own Copy task) tries clonefile first.
        return new VolumeIdentity(type, canClone, evidence, canClone, null, null, status.Value.MountedOn, caveat);
    }

    public Reading<long> UsedBytes(string folder)
    {
        MacAnswer<MacFileSystemStatus> status = _system.StatFs(folder);
        return status.Succeeded
            ? Reading<long>.Of((long)((status.Value.Blocks - status.Value.FreeBlocks) * status.Value.BlockSize))
            : Reading<long>.None($"statfs failed with errno {status.Errno}");
    }

    public Reading<TimeSpan> Flush(string folder)
    {
        var clock = Stopwatch.StartNew();
        _system.SyncAll();
        return Reading<TimeSpan>.Of(clock.Elapsed);
    }

    public Reading<double> LoadAverage()
    {
        MacAnswer<double> load = _system.LoadAverage();
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
