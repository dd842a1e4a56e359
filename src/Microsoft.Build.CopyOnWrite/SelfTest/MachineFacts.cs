using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.SelfTest;

/// <summary>The facts a report of the self-test needs to be read elsewhere: OS and its build, processor, runtime, our version, the file system's driver.</summary>
internal static class MachineFacts
{
    public static IReadOnlyList<(string Name, string Value)> Describe()
    {
        var facts = new List<(string, string)>
        {
            ("OS", RuntimeInformation.OSDescription),
            ("OS build", OSBuild()),
            ("processor", $"{RuntimeInformation.ProcessArchitecture}, {Environment.ProcessorCount} cores"),
            ("runtime", RuntimeInformation.FrameworkDescription),
            ("process", Process.GetCurrentProcess().ProcessName),
            ("Microsoft.Build.CopyOnWrite", typeof(MachineFacts).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "unknown"),
        };
        return facts;
    }

    /// <summary>Linux: the mount's source device, options and the file system's own options (mountinfo); elsewhere null.</summary>
    public static string? DriverOf(string mountPoint)
    {
        if (!RuntimeInformation.IsOSPlatform(OSPlatform.Linux))
        {
            return null;
        }

        try
        {
            foreach (string line in File.ReadLines("/proc/self/mountinfo"))
            {
                // ID PARENT MAJOR:MINOR ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER-OPTIONS
                string[] fields = line.Split(' ');
                int separator = Array.IndexOf(fields, "-");
                if (fields.Length > 5 && separator > 5 && separator + 3 < fields.Length && Unescape(fields[4]) == mountPoint.TrimEnd('/').PadRight(1, '/'))
                {
                    return $"{fields[separator + 1]} on {fields[separator + 2]}, mount options {fields[5]}, file system options {fields[separator + 3]}";
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
        }

        return null;
    }

    private static string OSBuild()
    {
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Linux))
        {
            try
            {
                return "Linux " + File.ReadAllText("/proc/sys/kernel/osrelease").Trim();
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                return "Linux (kernel release unreadable)";
            }
        }

        return Environment.OSVersion.VersionString; // Windows: 10.0.BUILD; macOS: the Darwin version
    }

    private static string Unescape(string field) => field.Replace("\\040", " ").Replace("\\011", "\t").Replace("\\134", "\\");
}
