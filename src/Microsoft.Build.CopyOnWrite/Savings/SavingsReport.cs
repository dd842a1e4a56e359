using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite.Savings;

/// <summary>
/// What a Copy invocation says, after its summary line, about what copy-on-write saved and missed:
/// the machine-readable data line, the cross-volume diagnosis (COW002 when asked), and, in Required mode,
/// error COW001 for files that were copied although they could have been cloned.
/// </summary>
internal static class SavingsReport
{
    /// <summary>Error: CopyOnWriteMode=Required and a file was copied, not cloned.</summary>
    public const string RequiredCode = "COW001";

    /// <summary>Warning (with CopyOnWriteWarnWhenNotCloned=true; a message otherwise): files copied across volumes.</summary>
    public const string CrossVolumeCode = "COW002";

    /// <summary>Error: a CopyOnWrite property has a value the task does not understand.</summary>
    public const string BadSettingCode = "COW003";

    /// <summary>Logs what this invocation saved and missed; false when it logged an error.</summary>
    public static bool Report(TaskLoggingHelper log, IBuildEngine? engine, CopySummary summary, CopyOnWriteSettings settings, string? settingsProblem, string? packageCache)
    {
        bool ok = true;
        if (settingsProblem is not null)
        {
            LogError(log, BadSettingCode, "CopyOnWrite: " + settingsProblem + " Fix the property (in the project, Directory.Build.props or on the command line).");
            ok = false;
        }

        if (summary.DidWork || summary.UpToDateFiles > 0)
        {
            IReadOnlyList<NotClonedFiles> notCloned = summary.NotCloned;
            var crossVolume = notCloned
                .Where(files => files.Reason == FallbackReason.DifferentVolumes)
                .Select(files => new CopyData.CrossVolumeEntry(files.SourceRoot, files.DestinationRoot, Volumes.MountPointOf(files.SourceRoot), Volumes.MountPointOf(files.DestinationRoot), files.Files, files.Bytes))
                .ToList();
            log.LogMessage(MessageImportance.Low, "{0}", CopyData.From(summary, crossVolume).Format());

            if (settings.Mode == CopyOnWriteMode.Required)
            {
                foreach (NotClonedFiles files in notCloned.Where(files => NotClonedFiles.IsMissedClone(files.Reason)))
                {
                    LogError(log, RequiredCode, DescribeRequiredFailure(files, packageCache));
                    ok = false;
                }
            }
            else
            {
                foreach (CopyData.CrossVolumeEntry entry in crossVolume)
                {
                    if (FirstTimeThisBuild(engine, entry))
                    {
                        string text = DescribeCrossVolume(entry.Files, entry.Bytes, entry.SourceRoot, entry.DestinationRoot, packageCache);
                        if (settings.WarnWhenNotCloned)
                        {
                            log.LogWarning(subcategory: null, warningCode: CrossVolumeCode, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0, message: "{0}", text);
                        }
                        else
                        {
                            log.LogMessage(MessageImportance.Normal, "{0}", text);
                        }
                    }
                }
            }
        }

        return ok;
    }

    /// <summary>
    /// E.g. "CopyOnWrite: 312 files (1.2 GiB) were copied, not cloned, because they come from
    /// /root/.nuget/packages on another volume than /src/app; put the package cache on the same volume
    /// (NUGET_PACKAGES) to clone them."
    /// </summary>
    public static string DescribeCrossVolume(int files, long bytes, string sourceRoot, string destinationRoot, string? packageCache)
    {
        string advice = IsPackageCache(sourceRoot, packageCache)
            ? "put the package cache on the same volume (NUGET_PACKAGES) to clone them"
            : $"put {sourceRoot} on the same volume as {destinationRoot} to clone them";
        return $"CopyOnWrite: {(files == 1 ? "1 file" : files + " files")} ({FileSizeText.Format(bytes)}) {(files == 1 ? "was" : "were")} copied, not cloned, because they come from {sourceRoot} on another volume than {destinationRoot}; {advice}.";
    }

    /// <param name="packageCache">NUGET_PACKAGES from the project's environment, if set.</param>
    private static bool IsPackageCache(string folder, string? packageCache)
    {
        if (!string.IsNullOrEmpty(packageCache) && Path.IsPathRooted(packageCache))
        {
            string cache = Path.GetFullPath(packageCache!).TrimEnd('/', '\\');
            if (NotClonedFiles.CommonFolder(cache, folder) == cache)
            {
                return true;
            }
        }

        string normalized = folder.Replace('\\', '/');
        return normalized.IndexOf("/.nuget/packages", StringComparison.OrdinalIgnoreCase) >= 0;
    }

    private static string DescribeRequiredFailure(NotClonedFiles files, string? packageCache)
    {
        string others = files.Files > 1 ? $" ({files.Files} files, {FileSizeText.Format(files.Bytes)} in this Copy, for the same reason)" : string.Empty;
        string advice = files.Reason switch
        {
            FallbackReason.DifferentVolumes => IsPackageCache(files.SourceRoot, packageCache)
                ? "Put the package cache on the repository's volume (set NUGET_PACKAGES to a folder there)"
                : $"Put the sources ({files.SourceRoot}) on the same volume as the destinations ({files.DestinationRoot})",
            FallbackReason.FileSystemCannotClone => "Build on a volume that clones: XFS formatted with reflink=1, btrfs, APFS, or ReFS / Dev Drive",
            FallbackReason.FileSystemRefused => "Check the file's attributes (immutable, swap file), permissions and the file system's clone limits",
            FallbackReason.PlatformCannotClone => "Build on an operating system and processor that Microsoft.Build.CopyOnWrite clones on",
            _ => "Build where source and destination are on one volume that clones",
        };
        return $"CopyOnWrite: \"{files.FirstSource}\" was copied to \"{files.FirstDestination}\", not cloned, because {CopySummary.DescribeFallback(files.Reason, files.Detail)}{others}, "
            + $"and CopyOnWriteMode is Required. {advice}, or set CopyOnWriteMode to Auto to accept copies.";
    }

    /// <summary>
    /// True the first time in this build (per MSBuild node) that files went from this source volume to this
    /// destination volume: the diagnosis is said once, not by every Copy of every project.
    /// </summary>
    private static bool FirstTimeThisBuild(IBuildEngine? engine, CopyData.CrossVolumeEntry entry)
    {
        if (engine is not IBuildEngine4 registry)
        {
            return true;
        }

        string key = $"Microsoft.Build.CopyOnWrite.CrossVolumeDiagnosed|{entry.SourceVolume}|{entry.DestinationVolume}";
        lock (ReportedLock)
        {
            if (registry.GetRegisteredTaskObject(key, RegisteredTaskObjectLifetime.Build) is not null)
            {
                return false;
            }

            registry.RegisterTaskObject(key, new object(), RegisteredTaskObjectLifetime.Build, allowEarlyCollection: false);
            return true;
        }
    }

    private static readonly object ReportedLock = new();

    private static void LogError(TaskLoggingHelper log, string code, string text)
        => log.LogError(subcategory: null, errorCode: code, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0, message: "{0}", text);
}
