using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Benchmarks;

/// <summary>What the machine is and how busy it was, for the report.</summary>
internal static class Machine
{
    private static readonly ConcurrentQueue<double> LoadSamples = new();

    /// <summary>The 1-minute load average, sampled at the start of every benchmark case.</summary>
    public static void SampleLoad()
    {
        if (LoadAverage() is double load)
        {
            LoadSamples.Enqueue(load);
        }
    }

    public static (double Min, double Max, int Count)? LoadRange
        => LoadSamples.IsEmpty ? null : (LoadSamples.Min(), LoadSamples.Max(), LoadSamples.Count);

    public static double? LoadAverage()
    {
        string? text = Read("/proc/loadavg");
        return text is null ? null : double.Parse(text.Split(' ')[0], CultureInfo.InvariantCulture);
    }

    public static string LoadAverages() => Read("/proc/loadavg")?.Trim() ?? "unknown";

    /// <summary>Other busy processes: ps' CPU share over each process's lifetime, highest first.</summary>
    public static IReadOnlyList<string> BusiestProcesses(int count)
    {
        string? output = Native.Run("ps", "-eo", "pcpu=,etime=,comm=", "--sort=-pcpu");
        if (output is null)
        {
            return [];
        }

        return output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Where(line => !line.StartsWith("0.0", StringComparison.Ordinal))
            .Take(count)
            .ToList();
    }

    /// <summary>The dotnet / MSBuild / compiler processes besides this one that are alive: "PID command line" each.</summary>
    public static IReadOnlyList<string> OtherDotnetProcesses()
        => Process.GetProcesses()
            .Where(p =>
            {
                try
                {
                    return p.Id != Environment.ProcessId && p.ProcessName is "dotnet" or "csc" or "VBCSCompiler" or "MSBuild" or "testhost";
                }
                catch (InvalidOperationException)
                {
                    return false;
                }
            })
            .Select(p => $"{p.Id} {CommandLine(p.Id)}")
            .ToList();

    /// <summary>
    /// Waits up to <paramref name="limit"/> for the other dotnet processes to end and returns those still alive. The
    /// script's own builds just before (pack, the sample's builds) can leave a node or the muxer exiting for a few
    /// seconds; counted at once, they made the report say the machine was shared when it was not.
    /// </summary>
    public static IReadOnlyList<string> WaitForOtherDotnetProcesses(TimeSpan limit)
    {
        var clock = Stopwatch.StartNew();
        IReadOnlyList<string> others = OtherDotnetProcesses();
        while (others.Count > 0 && clock.Elapsed < limit)
        {
            System.Threading.Thread.Sleep(500);
            others = OtherDotnetProcesses();
        }

        return others;
    }

    private static string CommandLine(int pid)
    {
        string text = (Read($"/proc/{pid}/cmdline") ?? string.Empty).Replace('\0', ' ').Trim();
        return text.Length > 100 ? text[..100] + "..." : text;
    }

    public static IReadOnlyList<string> Describe(IReadOnlyDictionary<string, string> mountPoints)
    {
        var lines = new List<string>();
        string cpuinfo = Read("/proc/cpuinfo") ?? string.Empty;
        string model = Field(cpuinfo, "model name") ?? "unknown";
        bool hypervisor = (Field(cpuinfo, "flags") ?? string.Empty).Split(' ').Contains("hypervisor");
        lines.Add($"CPU: {model} (/proc/cpuinfo), {Environment.ProcessorCount} logical cores"
            + (Field(cpuinfo, "cpu MHz") is string mhz ? $", {mhz} MHz as reported" : string.Empty)
            + (hypervisor ? "; the CPU reports the `hypervisor` flag: a virtual machine" : string.Empty));
        string? memTotal = Field(Read("/proc/meminfo") ?? string.Empty, "MemTotal");
        if (memTotal is not null && long.TryParse(memTotal.Split(' ')[0], out long kib))
        {
            lines.Add($"RAM: {kib / 1024.0 / 1024.0:0.0} GiB (MemTotal), no swap: {IsSwapless()}");
        }

        string os = Field(Read("/etc/os-release") ?? string.Empty, "PRETTY_NAME", '=')?.Trim('"') ?? RuntimeInformation.OSDescription;
        lines.Add($"OS: {os}, kernel {Read("/proc/sys/kernel/osrelease")?.Trim()}");
        string? virt = Native.Run("systemd-detect-virt")?.Trim();
        lines.Add($"Virtualisation: systemd-detect-virt says `{virt ?? "not installed"}`" + (File.Exists("/.dockerenv") ? "; /.dockerenv exists (a container)" : string.Empty));

        string? hostMount = Native.Run("findmnt", "-n", "-o", "SOURCE,FSTYPE,OPTIONS", "-T", "/var/tmp")?.Trim();
        lines.Add($"Disk under the loop images (/var/tmp): {hostMount}");
        string? device = hostMount?.Split(' ', StringSplitOptions.RemoveEmptyEntries).FirstOrDefault();
        if (device is not null && device.StartsWith("/dev/", StringComparison.Ordinal))
        {
            string name = Path.GetFileName(device);
            string? lsblk = Native.Run("lsblk", "-d", "-n", "-o", "NAME,SIZE,ROTA,MODEL", device)?.Trim();
            string? driver = Native.Run("readlink", "-f", $"/sys/block/{name}/device/driver")?.Trim();
            lines.Add($"Block device: `{lsblk}` (NAME SIZE ROTA MODEL; ROTA=1 is what the kernel assumes for a virtio disk, not evidence of a spinning disk)"
                + (string.IsNullOrEmpty(driver) ? string.Empty : $", driver {Path.GetFileName(driver)}"));
        }

        foreach ((string kind, string mountPoint) in mountPoints)
        {
            string? options = Native.Run("findmnt", "-n", "-o", "SOURCE,FSTYPE,OPTIONS", mountPoint)?.Trim();
            lines.Add(string.IsNullOrEmpty(options)
                ? $"{kind}: a folder ({mountPoint}), not a mount point, on {Native.Run("findmnt", "-n", "-o", "SOURCE,FSTYPE,OPTIONS", "-T", mountPoint)?.Trim()}" // a smoke run's
                : $"{kind}: loop-mounted image, {options}");
        }

        lines.Add($".NET SDK {Native.Run("dotnet", "--version")?.Trim()}, runtime {RuntimeInformation.FrameworkDescription}");
        return lines;
    }

    /// <summary>Sequential write of 1 GiB plus fsync to the host disk, to read the byte-copy numbers against.</summary>
    public static double HostDiskWriteMiBPerSecond(string folder)
    {
        string path = Path.Combine(folder, $"disk-probe-{Guid.NewGuid():N}.bin");
        byte[] chunk = new byte[1 << 20];
        new Random(7).NextBytes(chunk);
        var watch = Stopwatch.StartNew();
        try
        {
            using (var output = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.None, bufferSize: 0))
            {
                for (int i = 0; i < 1024; i++)
                {
                    output.Write(chunk, 0, chunk.Length);
                }

                output.Flush(flushToDisk: true);
            }

            return 1024 / watch.Elapsed.TotalSeconds;
        }
        finally
        {
            File.Delete(path);
        }
    }

    private static string IsSwapless()
        => (Read("/proc/swaps") ?? string.Empty).Split('\n', StringSplitOptions.RemoveEmptyEntries).Length <= 1 ? "yes" : "no (swap configured)";

    private static string? Field(string text, string name, char separator = ':')
    {
        foreach (string line in text.Split('\n'))
        {
            int at = line.IndexOf(separator);
            if (at > 0 && line[..at].Trim() == name)
            {
                return line[(at + 1)..].Trim();
            }
        }

        return null;
    }

    private static string? Read(string path)
    {
        try
        {
            return File.ReadAllText(path);
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }
}
