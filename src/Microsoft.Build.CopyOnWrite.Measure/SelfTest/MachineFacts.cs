using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Measure.SelfTest;

/// <summary>
/// The facts a report of the self-test needs to be read elsewhere: OS and its build, processor, runtime, our version
/// (each volume's driver line is the mount table's: <see cref="LinuxMounts.DriverLineOf"/>).
/// </summary>
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
}
