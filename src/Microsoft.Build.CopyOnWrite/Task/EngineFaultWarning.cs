using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>Warning COW006 when our engine fails: once per process on purpose (later ones are low-importance messages).</summary>
internal static class EngineFaultWarning
{
    private static int s_warned;

    /// <summary>
    /// Says the engine failed for <paramref name="sourcePath"/> and the file was copied (or <paramref name="linkedInstead"/>,
    /// linked as asked); the first time as COW006 with the OS, file system, step and error.
    /// </summary>
    public static void Report(TaskLoggingHelper log, string? detail, string sourcePath, string destinationPath, bool linkedInstead = false)
    {
        bool first = Interlocked.Exchange(ref s_warned, 1) == 0;
        if (!first && !log.LogsMessagesOfImportance(MessageImportance.Low))
        {
            return;
        }

        string text = CopyOnWriteCodes.EngineFaultText(detail, sourcePath, destinationPath, linkedInstead);
        if (first)
        {
            CodedLog.Warning(log, CopyOnWriteCodes.EngineFault, CopyOnWriteCodes.EngineFaultReportText(text, RuntimeInformation.OSDescription, DescribeFileSystemOf(destinationPath)));
        }
        else
        {
            log.LogMessage(MessageImportance.Low, "{0}", text);
        }
    }

    /// <summary>Once per process, where the native engine could not be made (<see cref="CloneEngines.SelectionFault"/>).</summary>
    public static void ReportSelectionFault(TaskLoggingHelper log, string fault)
    {
        if (Interlocked.Exchange(ref s_warned, 1) == 0)
        {
            CodedLog.Warning(log, CopyOnWriteCodes.EngineFault, CopyOnWriteCodes.EngineSelectionFaultText(fault));
        }
    }

    private static string DescribeFileSystemOf(string path)
    {
        try
        {
            VolumeLocation volume = VolumeCatalog.Shared.Locate(Path.GetDirectoryName(path) ?? path);
            return $"file system {volume.FileSystem} at {volume.Root}";
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return "file system unknown";
        }
    }
}
