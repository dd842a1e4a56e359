using System;
using System.Runtime.InteropServices;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>
/// What the measurement asks of the OS (Platforms/README.md), one implementation per OS; the Windows and macOS ones
/// decide from <see cref="IWindowsSystem"/> and <see cref="IMacSystem"/>, so those decisions are tested on any OS.
/// </summary>
internal interface IMeasurementPlatform
{
    /// <summary>The file system holding <paramref name="folder"/> (which exists and is writable), as the OS names it, and whether it can clone there.</summary>
    VolumeFacts Identify(string folder);

    /// <summary>Bytes in use on the file system holding <paramref name="folder"/>, or why the OS cannot say.</summary>
    Reading<long> UsedBytes(string folder);

    /// <summary>Makes the file system's pending writes durable; how long that took, or why it cannot be done.</summary>
    Reading<TimeSpan> Flush(string folder);

    /// <summary>How <see cref="Flush"/> does it, for the report's method section.</summary>
    string FlushMethod { get; }

    /// <summary>The 1-minute load average: well above 0 means something else is using the processors.</summary>
    Reading<double> LoadAverage();

    MachineDescription DescribeMachine();
}

/// <summary>A number the operating system gave, or the reason it gave none (the report prints the reason, never a made-up number).</summary>
internal readonly record struct Reading<T>(T? Value, string? Unavailable)
    where T : struct
{
    public static Reading<T> Of(T value) => new(value, null);

    public static Reading<T> None(string why) => new(null, why);
}

/// <summary>The machine, as the report describes it.</summary>
internal sealed record MachineDescription(string Cpu, int Cores, string Memory, string OperatingSystem);

internal static class MeasurementPlatforms
{
    /// <summary>The platform of this process.</summary>
    public static IMeasurementPlatform ForThisProcess()
    {
        if (OperatingSystem.IsLinux())
        {
            return new LinuxPlatform();
        }

        if (OperatingSystem.IsWindows())
        {
            return new WindowsPlatform(new WindowsSystem());
        }

        if (OperatingSystem.IsMacOS())
        {
            return new MacPlatform(new MacSystem());
        }

        throw new MeasureException($"dotnet cow-measure runs on Linux, Windows and macOS, not on {RuntimeInformation.OSDescription}.");
    }

    /// <summary>The volume component's answer for a measured folder; a volume the OS will not describe stops the run with its reason.</summary>
    public static VolumeFacts Identify(VolumeFactsInspector volumes, string folder)
    {
        try
        {
            return volumes.Inspect(folder, mayWrite: true);
        }
        catch (System.IO.IOException e)
        {
            throw new MeasureException(e.Message);
        }
    }

    /// <summary>Installed memory as the runtime sees it (the same call on every OS).</summary>
    public static string MemoryText()
    {
        long bytes = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        return bytes > 0 ? $"{bytes / 1073741824.0:0.0} GiB" : "unknown";
    }
}
