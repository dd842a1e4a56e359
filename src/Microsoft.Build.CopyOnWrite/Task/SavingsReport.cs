using System;
using System.Collections.Generic;
using System.IO;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite;

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

    /// <summary>Error: a CopyOnWrite property has a value the task does not understand (or a relative folder).</summary>
    public const string BadSettingCode = CheckCopyOnWriteSettings.BadSettingCode;

    /// <summary>Logs what this invocation saved and missed; false when it logged an error.</summary>
    public static bool Report(TaskLoggingHelper log, IBuildEngine? engine, CopySummary summary, CopyOnWriteSettings settings, string? settingsProblem)
    {
        bool ok = true;
        if (settingsProblem is not null)
        {
            CodedLog.Error(log, BadSettingCode, "{0}", "CopyOnWrite: " + settingsProblem + " Fix the property (in the project, Directory.Build.props or on the command line).");
            ok = false;
        }

        if (summary.DidWork || summary.UpToDateFiles > 0)
        {
            IReadOnlyList<NotClonedFiles> notCloned = summary.NotCloned;
            var crossVolume = new List<CopyData.CrossVolumeEntry>();
            var copiedOn = new List<CopyData.CopiedOnEntry>();

            // The data line is for the summary logger and binary logs; at the console's default verbosity nobody reads it,
            // and building it is the only use of CopyData's code (about 30 methods the JIT compiles where the task is IL).
            bool writesDataLine = log.LogsMessagesOfImportance(MessageImportance.Low);
            foreach (NotClonedFiles files in notCloned)
            {
                if (files.Reason == FallbackReason.DifferentVolumes)
                {
                    VolumeLocation source = VolumeCatalog.Shared.Locate(files.SourceRoot);
                    VolumeLocation destination = VolumeCatalog.Shared.Locate(files.DestinationRoot);
                    crossVolume.Add(new CopyData.CrossVolumeEntry(
                        files.SourceRoot,
                        files.DestinationRoot,
                        source.Root,
                        destination.Root,
                        files.Files,
                        files.Bytes,
                        source.FileSystem,
                        destination.FileSystem,
                        files.Origin));
                }
                else if (writesDataLine)
                {
                    VolumeLocation volume = VolumeCatalog.Shared.Locate(files.DestinationRoot);
                    copiedOn.Add(new CopyData.CopiedOnEntry(volume.Root, volume.FileSystem, files.Files, files.Bytes));
                }
            }

            if (writesDataLine)
            {
                // Asked by folder: a clone is on its folder's volume, and the folder is the same for most calls of a project.
                VolumeLocation? clonedOn = summary.FirstClonedDestination is string cloned ? VolumeCatalog.Shared.Locate(Path.GetDirectoryName(cloned) ?? cloned) : null;
                log.LogMessage(MessageImportance.Low, "{0}", CopyData.From(summary, crossVolume, clonedOn, copiedOn).Format());
            }

            if (settings.Mode == CopyOnWriteMode.Required)
            {
                foreach (NotClonedFiles files in notCloned)
                {
                    if (!NotClonedFiles.IsMissedClone(files.Reason) || CopySources.IsAccepted(files.Origin))
                    {
                        continue;
                    }

                    CodedLog.Error(log, RequiredCode, "{0}", DescribeRequiredFailure(files));
                    ok = false;
                }
            }

            foreach (CopyData.CrossVolumeEntry entry in crossVolume)
            {
                bool missed = !CopySources.IsAccepted(entry.Origin);
                if ((settings.Mode != CopyOnWriteMode.Required || !missed) && FirstTimeThisBuild(engine, entry))
                {
                    string text = DescribeCrossVolume(entry.Files, entry.Bytes, entry.SourceRoot, entry.DestinationRoot, entry.Origin);
                    if (settings.WarnWhenNotCloned && missed)
                    {
                        CodedLog.Warning(log, CrossVolumeCode, "{0}", text);
                    }
                    else
                    {
                        log.LogMessage(MessageImportance.Normal, "{0}", text);
                    }
                }
            }
        }

        return ok;
    }

    /// <summary>Where to look next, said after advice to move a folder: the doctor shows every folder's volume.</summary>
    public const string DoctorHint = " `dotnet msbuild -t:CopyOnWriteDoctor` shows which volume each folder of the build is on and what to type.";

    /// <summary>
    /// E.g. "CopyOnWrite: 312 files (1.2 GiB) in this Copy were copied, not cloned, because they come from /root/.nuget/packages
    /// on another volume than /src/app; put the package cache on the same volume (NUGET_PACKAGES) to clone them."
    /// Sources a user cannot move (<see cref="CopySources.IsAccepted"/>) are named as such, with no advice to move them;
    /// the others end with <see cref="DoctorHint"/>. Said for the first Copy of the build from those folders only, so the
    /// count is that Copy's ("in this Copy"), not the build's; the summary logger counts every Copy.
    /// </summary>
    public static string DescribeCrossVolume(int files, long bytes, string sourceRoot, string destinationRoot, SourceOrigin origin)
    {
        bool one = files == 1;
        string them = one ? "it" : "them";
        string copied = $"CopyOnWrite: {(one ? "1 file" : files + " files")} ({FileSizeText.Format(bytes)}) in this Copy {(one ? "was" : "were")} copied, not cloned, because {(one ? "it comes" : "they come")} from {sourceRoot}";
        return origin switch
        {
            SourceOrigin.PackageCache => $"{copied} on another volume than {destinationRoot}; put the package cache on the same volume (NUGET_PACKAGES) to clone {them}." + DoctorHint,
            SourceOrigin.Movable => $"{copied} on another volume than {destinationRoot}; put {sourceRoot} on the same volume as {destinationRoot} to clone {them}, "
                + $"or list it in CopyOnWriteAcceptCopiesFrom if it cannot move." + DoctorHint,
            _ => $"{copied} ({CopySources.Describe(origin)}) on another volume than {destinationRoot}; that is expected, and CopyOnWriteMode=Required accepts {them}.",
        };
    }

    private static string DescribeRequiredFailure(NotClonedFiles files)
    {
        string others = files.Files > 1 ? $" ({files.Files} files, {FileSizeText.Format(files.Bytes)} in this Copy, for the same reason)" : string.Empty;
        string advice = files.Reason switch
        {
            FallbackReason.DifferentVolumes => files.Origin == SourceOrigin.PackageCache
                ? "Put the package cache on the repository's volume (set NUGET_PACKAGES to a folder there)"
                : $"Put the sources ({files.SourceRoot}) on the same volume as the destinations ({files.DestinationRoot}), list {files.SourceRoot} in CopyOnWriteAcceptCopiesFrom if it cannot move",
            FallbackReason.FileSystemCannotClone => "Build on a volume that clones: XFS formatted with reflink=1, btrfs, APFS, or ReFS / Dev Drive",
            FallbackReason.FileSystemRefused => "Check the file's attributes (immutable, swap file), permissions and the file system's clone limits",
            FallbackReason.PlatformCannotClone => "Build on an operating system and processor that Microsoft.Build.CopyOnWrite clones on",
            FallbackReason.EngineFailed => $"This is a fault of ours (warning {EngineFaultWarning.Code} names it): please report it",
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
        => OncePerBuild.First(engine, $"Microsoft.Build.CopyOnWrite.CrossVolumeDiagnosed|{entry.SourceVolume}|{entry.DestinationVolume}|{entry.Origin}");
}
