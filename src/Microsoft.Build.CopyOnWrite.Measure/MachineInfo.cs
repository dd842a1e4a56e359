using System;
using System.IO;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Measure;

internal sealed record MachineInfo(string Cpu, int Cores, string Memory, string OperatingSystem, string Kernel, string DotnetSdk, string Msbuild)
{
    public static MachineInfo Read(string workingDirectory)
    {
        string cpu = ReadFirst("/proc/cpuinfo", "model name") ?? System.Runtime.InteropServices.RuntimeInformation.ProcessArchitecture.ToString();
        string memory = ReadFirst("/proc/meminfo", "MemTotal") is string total && long.TryParse(total.Split(' ', StringSplitOptions.RemoveEmptyEntries)[0], out long kib)
            ? $"{kib / 1048576.0:0.0} GiB"
            : "unknown";
        string os = File.Exists("/etc/os-release")
            ? File.ReadAllLines("/etc/os-release").FirstOrDefault(l => l.StartsWith("PRETTY_NAME=", StringComparison.Ordinal))?["PRETTY_NAME=".Length..].Trim('"') ?? Environment.OSVersion.ToString()
            : Environment.OSVersion.ToString();
        string kernel = File.Exists("/proc/sys/kernel/osrelease") ? File.ReadAllText("/proc/sys/kernel/osrelease").Trim() : Environment.OSVersion.Version.ToString();
        string sdk = Shell.Run("dotnet", ["--version"], workingDirectory).Output.Trim();
        string msbuild = Shell.Run("dotnet", ["msbuild", "-version", "-nologo"], workingDirectory).Output.Trim().Split('\n').Last().Trim();
        return new MachineInfo(cpu, Environment.ProcessorCount, memory, os, kernel, sdk, msbuild);
    }

    private static string? ReadFirst(string file, string key)
    {
        if (!File.Exists(file))
        {
            return null;
        }

        string? line = File.ReadLines(file).FirstOrDefault(l => l.StartsWith(key, StringComparison.Ordinal));
        return line?[(line.IndexOf(':') + 1)..].Trim();
    }
}
