using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>
/// Linux: the volume as <see cref="LinuxVolumeFacts"/> describes it (the mount table, a probe clone), used space from
/// DriveInfo (statfs), syncfs to flush, /proc for the machine.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxPlatform : IMeasurementPlatform
{
    public string FlushMethod => "syncfs of the volume";

    // Read afresh: a loop volume mounted a moment ago must be seen.
    public VolumeFacts Identify(string folder) => new LinuxVolumeFacts().Inspect(folder, mayWrite: true);

    public Reading<long> UsedBytes(string folder)
    {
        var drive = new DriveInfo(folder); // statfs of the folder itself on Unix, whatever its mount point
        return Reading<long>.Of(drive.TotalSize - drive.TotalFreeSpace);
    }

    public Reading<TimeSpan> Flush(string folder)
    {
        var clock = Stopwatch.StartNew();
        LinuxSystem.SyncFileSystem(folder);
        return Reading<TimeSpan>.Of(clock.Elapsed);
    }

    public Reading<double> LoadAverage()
        => File.Exists("/proc/loadavg") && double.TryParse(File.ReadAllText("/proc/loadavg").Split(' ')[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double load)
            ? Reading<double>.Of(load)
            : Reading<double>.None("/proc/loadavg is not readable");

    public MachineDescription DescribeMachine()
    {
        string cpu = ProcValue("/proc/cpuinfo", "model name") ?? RuntimeInformation.ProcessArchitecture.ToString();
        string os = File.Exists("/etc/os-release")
            ? File.ReadAllLines("/etc/os-release").FirstOrDefault(l => l.StartsWith("PRETTY_NAME=", StringComparison.Ordinal))?["PRETTY_NAME=".Length..].Trim('"') ?? RuntimeInformation.OSDescription
            : RuntimeInformation.OSDescription;
        string kernel = File.Exists("/proc/sys/kernel/osrelease") ? File.ReadAllText("/proc/sys/kernel/osrelease").Trim() : Environment.OSVersion.Version.ToString();
        return new MachineDescription(cpu, Environment.ProcessorCount, MeasurementPlatforms.MemoryText(), $"{os}, kernel {kernel}");
    }

    private static string? ProcValue(string file, string key)
    {
        if (!File.Exists(file))
        {
            return null;
        }

        string? line = File.ReadLines(file).FirstOrDefault(l => l.StartsWith(key, StringComparison.Ordinal));
        return line?[(line.IndexOf(':') + 1)..].Trim();
    }
}
