using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;
using Microsoft.Win32;
using Microsoft.Win32.SafeHandles;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity.Benchmark;

/// <summary>What the table header states about this Windows and each folder's volume, asked of the system itself.</summary>
[SupportedOSPlatform("windows")]
internal static class BenchmarkMachine
{
    /// <summary>Checked on 2026-11-25 with a PackageReference to CopyOnWrite (any version): NU1101, no such package.</summary>
    public const string LibraryUnavailable = "not available on this package source";

    public static List<(string Label, string Value)> Describe(BenchmarkOptions options)
    {
        return new List<(string, string)>
        {
            ("OS", OsBuild()),
            (".NET", $"{Environment.Version}, {RuntimeInformation.ProcessArchitecture}, {Environment.ProcessorCount} logical processors"),
            ("our Copy task and engine", $"Microsoft.Build.CopyOnWrite {typeof(Copy).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "unknown"}"),
            ("MSBuild's Copy task", $"Microsoft.Build.Tasks.Core {FileVersionInfo.GetVersionInfo(TaskDriver.StockAssemblyLocation).ProductVersion}"),
            ("CopyOnWrite library", $"{LibraryUnavailable} (the NuGet package CopyOnWrite does not restore here), so its column is empty"),
            ("rounds", $"{options.Rounds} timed{(options.WarmUp ? ", after one untimed warm-up round" : ", no warm-up (smoke run)")}"),
            ("date", DateTime.UtcNow.ToString("yyyy-MM-dd HH:mm 'UTC'", System.Globalization.CultureInfo.InvariantCulture)),
        };
    }

    /// <summary>"Microsoft Windows 10.0.26100 (Windows 11 Pro 24H2, build 26100.2605)"; the registry part is left out when it cannot be read.</summary>
    public static string OsBuild()
    {
        string text = RuntimeInformation.OSDescription;
        try
        {
            using RegistryKey? key = Registry.LocalMachine.OpenSubKey(@"SOFTWARE\Microsoft\Windows NT\CurrentVersion");
            if (key is not null)
            {
                string product = key.GetValue("ProductName") as string ?? "Windows";
                string? release = key.GetValue("DisplayVersion") as string;
                string? build = key.GetValue("CurrentBuildNumber") as string;
                object? ubr = key.GetValue("UBR");
                text += $" ({product}{(release is null ? string.Empty : " " + release)}, build {build ?? "?"}{(ubr is int revision ? "." + revision : string.Empty)})";
            }
        }
        catch (Exception e) when (e is System.Security.SecurityException or UnauthorizedAccessException or IOException)
        {
            text += $" (registry not readable: {e.GetType().Name})";
        }

        return Win32.WineVersion is string wine ? $"{text} under Wine {wine}" : text;
    }

    /// <summary>The folder's file system, its version, whether it can share clusters, and whether CopyFile alone clones there.</summary>
    public static FolderFacts Folder(string folder)
    {
        string probe = Path.Combine(folder, $"cow-bench-probe-{Environment.ProcessId}.bin");
        var data = new byte[1 << 20];
        new Random(25).NextBytes(data);
        using (var writer = new FileStream(probe, FileMode.Create, FileAccess.Write, FileShare.Read))
        {
            writer.Write(data);
            writer.Flush(flushToDisk: true); // CopyFile must find the data on disk, or a clone could not be the reason it shares
        }

        try
        {
            using var stream = new FileStream(probe, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            if (!Win32.GetVolumeInformation(stream.SafeFileHandle, out uint flags, out string fileSystem, out _, out int error))
            {
                string unknown = $"unknown (GetVolumeInformationByHandleW: error {Win32.Describe(error)})";
                return new FolderFacts(folder, unknown, unknown, unknown, unknown);
            }

            bool refcounting = (flags & Win32.FileSupportsBlockRefcounting) != 0;
            return new FolderFacts(
                folder,
                fileSystem,
                Version(stream.SafeFileHandle, folder, fileSystem),
                refcounting ? "yes" : "no",
                refcounting ? CopyFileClones(probe) : "no (the volume cannot share clusters)");
        }
        finally
        {
            File.Delete(probe);
        }
    }

    private static string Version(SafeFileHandle file, string folder, string fileSystem)
    {
        int error = Win32.FileSystemVersion(file, fileSystem, out string version);
        if (error == 0)
        {
            return version;
        }

        using SafeFileHandle volume = Win32.OpenVolume(folder, out int openError);
        if (openError != 0)
        {
            return $"unknown (version query on a file: error {Win32.Describe(error)}; opening the volume: error {Win32.Describe(openError)})";
        }

        int volumeError = Win32.FileSystemVersion(volume, fileSystem, out version);
        return volumeError == 0 ? version : $"unknown (version query: error {Win32.Describe(volumeError)})";
    }

    /// <summary>
    /// Windows 11 24H2 and Server 2025 clone inside CopyFile on ReFS and Dev Drive; older builds copy. The file
    /// system's own reference counts tell which this one did, not the time it took.
    /// </summary>
    private static string CopyFileClones(string probe)
    {
        string copy = probe + ".copyfile";
        try
        {
            File.Copy(probe, copy); // CopyFileEx, as MSBuild's own Copy calls it
            var native = new WindowsNative();
            int error = native.Open(copy, WindowsAccess.Read, WindowsShare.Read | WindowsShare.Delete, WindowsCreation.OpenExisting, out WindowsFile? file);
            if (error != 0)
            {
                return $"unknown (opening the copy: error {Win32.Describe(error)})";
            }

            using (file)
            {
                error = native.CountSharedClusters(file!, out long shared);
                return error != 0
                    ? $"unknown (FSCTL_GET_RETRIEVAL_POINTERS_AND_REFCOUNT: error {Win32.Describe(error)})"
                    : shared > 0 ? $"yes (a 1 MiB File.Copy shares {shared} of the source's clusters)" : "no (a 1 MiB File.Copy shares no cluster)";
            }
        }
        finally
        {
            File.Delete(copy);
        }
    }
}
