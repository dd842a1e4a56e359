using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// What the Copy task says when our engine fails, while it copies: warning COW006, a fault of ours to hear about, said
/// once per process (later ones are low-importance messages). Process-wide on purpose: one report is enough.
/// </summary>
internal static class EngineFaultWarning
{
    private static int s_warned;

    /// <summary>
    /// Says that the engine failed for <paramref name="sourcePath"/> and the file was copied anyway (or, where it was to be
    /// cloned in place of a link, <paramref name="linkedInstead"/>, linked as the project asks): the first time in this
    /// process as warning COW006 with the OS, the file system, the step and the error, asking for a report.
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
            CodedLog.Warning(log, CopyOnWriteCodes.EngineFault, "{0}", CopyOnWriteCodes.EngineFaultReportText(text, RuntimeInformation.OSDescription, DescribeFileSystemOf(destinationPath)));
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
            CodedLog.Warning(log, CopyOnWriteCodes.EngineFault, "{0}", CopyOnWriteCodes.EngineSelectionFaultText(fault));
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
