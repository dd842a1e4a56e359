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
    /// <summary>
    /// Warning, once per process (later ones are low-importance messages): our engine failed for a file with an error
    /// nobody foresaw, and the fallback ladder copied it the stock task's way; or the engine could not be made at all.
    /// </summary>
    public const string Code = "COW006";

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

        string cause = detail ?? "our engine failed";
        string what = linkedInstead
            ? $"\"{sourcePath}\" was not cloned to \"{destinationPath}\" in place of a link (CopyOnWriteInsteadOfLinks) but linked as the project asks, because {cause}. "
            : $"\"{sourcePath}\" was copied to \"{destinationPath}\" the stock task's way because {cause}. ";
        string text = "CopyOnWrite: " + what
            + $"The build goes on; files after this one that meet the same fault are said at low importance, and after {FallbackLadder.FaultsBeforeSkipping} "
            + "close together between the same volumes this process stops asking the engine there for a while.";
        if (first)
        {
            string fileSystem = DescribeFileSystemOf(destinationPath);
            CodedLog.Warning(log, Code, "{0}", $"{text} This is a fault of Microsoft.Build.CopyOnWrite on {RuntimeInformation.OSDescription}, {fileSystem}: "
                + "please report it to the package's maintainers (its project site on nuget.org) with this line and the output of `dotnet msbuild -t:CopyOnWriteDoctor`. "
                + "To build without the SDK meanwhile: -p:DisableCopyOnWrite=true.");
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
            CodedLog.Warning(log, Code, "{0}", $"CopyOnWrite: {fault}, so this build copies every file the stock task's way and clones none. "
                + "This is a fault of Microsoft.Build.CopyOnWrite: please report it to the package's maintainers (its project site on nuget.org) with this line. "
                + "To build without the SDK meanwhile: -p:DisableCopyOnWrite=true.");
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
