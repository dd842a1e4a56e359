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
/// What a Copy says after its summary line: the data line, the cross-volume diagnosis (COW002 when asked), and in
/// Required mode error COW001 for files copied that could have been cloned.
/// </summary>
internal static class SavingsReport
{
    /// <summary>Logs what this invocation saved and missed; false when it logged an error.</summary>
    public static bool Report(TaskLoggingHelper log, IBuildEngine? engine, CopySummary summary, CopyOnWriteSettings settings, string? settingsProblem)
    {
        bool ok = true;
        if (settingsProblem is not null)
        {
            CodedLog.Error(log, CopyOnWriteCodes.BadSetting, CopyOnWriteCodes.BadSettingText(settingsProblem, nothingCopied: false));
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

                    CodedLog.Error(log, CopyOnWriteCodes.RequiredNotCloned, CopyOnWriteCodes.RequiredNotClonedText(files));
                    ok = false;
                }
            }

            foreach (CopyData.CrossVolumeEntry entry in crossVolume)
            {
                bool missed = !CopySources.IsAccepted(entry.Origin);
                if ((settings.Mode != CopyOnWriteMode.Required || !missed) && FirstTimeThisBuild(engine, entry))
                {
                    string text = CopyOnWriteCodes.CrossVolumeText(entry.Files, entry.Bytes, entry.SourceRoot, entry.DestinationRoot, entry.Origin);
                    if (settings.WarnWhenNotCloned && missed)
                    {
                        CodedLog.Warning(log, CopyOnWriteCodes.CrossVolume, text);
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

    /// <summary>True the first time in this build (per node) that files went between these two volumes: the diagnosis is said once.</summary>
    private static bool FirstTimeThisBuild(IBuildEngine? engine, CopyData.CrossVolumeEntry entry)
        => OncePerBuild.First(engine, $"Microsoft.Build.CopyOnWrite.CrossVolumeDiagnosed|{entry.SourceVolume}|{entry.DestinationVolume}|{entry.Origin}");
}
