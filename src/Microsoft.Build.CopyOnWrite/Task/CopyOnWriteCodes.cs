using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// Every code of ours and its text, in English: what happened, to which file, what to do; who says it is named on each.
/// COW005, COW007 and COW009 stay unused (retired codes).
/// </summary>
internal static class CopyOnWriteCodes
{
    /// <summary>Error (<see cref="SavingsReport"/>): CopyOnWriteMode=Required and a file was copied, not cloned.</summary>
    public const string RequiredNotCloned = "COW001";

    /// <summary>Warning with CopyOnWriteWarnWhenNotCloned=true, a message otherwise (<see cref="SavingsReport"/>): files copied across volumes.</summary>
    public const string CrossVolume = "COW002";

    /// <summary>Error (<see cref="CheckCopyOnWriteSettings"/>, and the task itself): a CopyOnWrite property has a value the task does not understand.</summary>
    public const string BadSetting = "COW003";

    /// <summary>Error (<see cref="CopyTaskFactory"/>): a CopyOnWrite property is set in a project file of a multi-threaded build (-mt), which cannot pass it on.</summary>
    public const string MultiThreadedProjectSetting = "COW004";

    /// <summary>
    /// Warning, once per process (<see cref="EngineFaultWarning"/>): an unforeseen engine error, the file copied the stock way,
    /// or no engine at all. Never an error under -warnAsError (Sdk/WarningsNotAsErrors.targets).
    /// </summary>
    public const string EngineFault = "COW006";

    /// <summary>Warning, once per build (<see cref="CheckCopyOnWriteSettings"/>): CopyOnWriteMode=Required while DisableCopyOnWrite brings back MSBuild's own Copy.</summary>
    public const string SettingNotInForce = "COW008";

    /// <summary>Warning, once per build (<see cref="CheckCopyOnWriteSettings"/>): DisableCopyOnWrite is neither true/1 nor false/0.</summary>
    public const string UnknownSwitchValue = "COW010";

    /// <summary>Where to look next, said after advice to move a folder: the doctor shows every folder's volume.</summary>
    public const string DoctorHint = " `dotnet cow-measure doctor` (the SDK's tool, README \"Ask the doctor\") shows which volume each folder of the build is on and what to type.";

    public static string BadSettingText(string problem, bool nothingCopied)
        => "CopyOnWrite: " + problem + " Fix the property (in the project, Directory.Build.props, the environment or on the command line)" + (nothingCopied ? "; nothing was copied." : ".");

    public static string UnknownDisableText(string value)
        => $"CopyOnWrite: {CopyOnWriteSettings.DisableProperty} has the value \"{value.Trim()}\", which is neither true or 1 (MSBuild's own Copy task) nor false, 0 or empty (ours): "
            + "copy-on-write stays on, as the 1.x package kept it. Set it to true or false.";

    public static string RequiredWhileDisabledText(string disable)
        => $"CopyOnWrite: CopyOnWriteMode is Required, but {CopyOnWriteSettings.DisableProperty} is {disable.Trim()}, which brings back MSBuild's own Copy task: Required is not in force, "
            + $"and no copy is checked. Remove {CopyOnWriteSettings.DisableProperty} to check clones, or CopyOnWriteMode to silence this.";

    public static string MultiThreadedProjectSettingText(IReadOnlyList<string> set)
    {
        bool one = set.Count == 1;
        return $"CopyOnWrite: {string.Join(" and ", set)} {(one ? "is" : "are")} set in a project file, which a multi-threaded build (-mt) cannot pass to the Copy task. "
            + $"Give {(one ? "it" : "them")} on the command line instead ({string.Join(" ", set.Select(setting => $"\"-p:{setting}\""))}) or as {(one ? "an environment variable" : "environment variables")}, or build without -mt.";
    }

    /// <summary>
    /// COW002 for one Copy, or <paramref name="inThisBuild"/> the summary logger's for all; sources a user cannot move
    /// (<see cref="CopySources.IsAccepted"/>) get no advice to move them.
    /// </summary>
    public static string CrossVolumeText(int files, long bytes, string sourceRoot, string destinationRoot, SourceOrigin origin, bool inThisBuild = false)
    {
        bool one = files == 1;
        string them = one ? "it" : "them";
        string copied = $"CopyOnWrite: {(one ? "1 file" : files + " files")} ({FileSizeText.Format(bytes)}) in this {(inThisBuild ? "build" : "Copy")} {(one ? "was" : "were")} copied, not cloned, because {(one ? "it comes" : "they come")} from {sourceRoot}";
        return origin switch
        {
            SourceOrigin.PackageCache => $"{copied} on another volume than {destinationRoot}; put the package cache on the same volume (set NUGET_PACKAGES to a folder there, then run `dotnet restore`) to clone {them}." + DoctorHint,
            SourceOrigin.Movable => $"{copied} on another volume than {destinationRoot}; put {sourceRoot} on the same volume as {destinationRoot} to clone {them}, "
                + $"or list it in CopyOnWriteAcceptCopiesFrom if it cannot move." + DoctorHint,
            _ => $"{copied} ({CopySources.Describe(origin)}) on another volume than {destinationRoot}; that is expected, and CopyOnWriteMode=Required accepts {them}.",
        };
    }

    public static string RequiredNotClonedText(NotClonedFiles files)
    {
        string others = files.Files > 1 ? $" ({files.Files} files, {FileSizeText.Format(files.Bytes)} in this Copy, for the same reason)" : string.Empty;
        string advice = files.Reason switch
        {
            FallbackReason.DifferentVolumes => files.Origin == SourceOrigin.PackageCache
                ? "Put the package cache on the repository's volume (set NUGET_PACKAGES to a folder there, then run `dotnet restore`)"
                : $"Put the sources ({files.SourceRoot}) on the same volume as the destinations ({files.DestinationRoot}), list {files.SourceRoot} in CopyOnWriteAcceptCopiesFrom if it cannot move",
            FallbackReason.FileSystemCannotClone => "Build on a volume that clones: XFS formatted with reflink=1, btrfs, APFS, or ReFS / Dev Drive",
            FallbackReason.FileSystemRefused => "Check the file's attributes (immutable, swap file), permissions and the file system's clone limits",
            FallbackReason.PlatformCannotClone => "Build on an operating system and processor that Microsoft.Build.CopyOnWrite clones on",
            FallbackReason.EngineFailed => $"This is a fault of ours (warning {EngineFault} names it): please report it",
            _ => "Build where source and destination are on one volume that clones",
        };
        return $"CopyOnWrite: \"{files.FirstSource}\" was copied to \"{files.FirstDestination}\", not cloned, because {CopySummary.DescribeFallback(files.Reason, files.Detail)}{others}, "
            + $"and CopyOnWriteMode is Required. {advice}, or set CopyOnWriteMode to Auto to accept copies.";
    }

    /// <summary>A message per file (CopyOnWriteInsteadOfLinks): an output left a link by an earlier build, now a clone.</summary>
    public static string ReplacedLinkText(string sourcePath, string destinationPath, bool toSource = true)
        => toSource
            ? $"CopyOnWrite: \"{destinationPath}\" was a link to \"{sourcePath}\" (made by an earlier build); replaced it with a clone (CopyOnWriteInsteadOfLinks), "
                + "so a write into it no longer reaches the source. The source was not changed."
            : $"CopyOnWrite: \"{destinationPath}\" was a hard link to another file than its source \"{sourcePath}\" (made by an earlier build, e.g. to the file the source was before); "
                + "replaced it with a clone of the source (CopyOnWriteInsteadOfLinks), so a write into it no longer reaches that file. No other file was changed.";

    /// <summary>A message, once per build (CopyOnWriteInsteadOfLinks): a link stays one because the volume cannot clone.</summary>
    public static string LinkKeptText(string sourcePath, string destinationPath, string why, bool toSource = true)
        => $"CopyOnWrite: \"{destinationPath}\" is a link to {(toSource ? $"\"{sourcePath}\"" : "another file (made by an earlier build)")} and stays one, although CopyOnWriteInsteadOfLinks is true, because {why}; "
            + "a write into it reaches the source (often the NuGet package cache). Other outputs of this build that are links stay too, without this message. "
            + "To get independent files, build on a volume that clones (XFS with reflink, btrfs, APFS, ReFS / Dev Drive), "
            + "or turn the link properties (CreateHardLinksFor...IfPossible, CreateSymbolicLinksFor...IfPossible) off and build once with --no-incremental."
            + DoctorHint;

    /// <summary>A message per file: a link could not be replaced by a clone, so it stays one until the next build.</summary>
    public static string LinkNotReplacedText(string sourcePath, string destinationPath, string error, bool toSource = true)
        => $"CopyOnWrite: \"{destinationPath}\" is a link to {(toSource ? $"\"{sourcePath}\"" : "another file (made by an earlier build)")} and could not be replaced by a clone (CopyOnWriteInsteadOfLinks): {error}. "
            + "It stays a link for now (a write into it reaches the source) and the next build tries again; fix what the error says, or delete the file.";

    /// <summary>The first sentence of COW006 for one file, also said (as a low-importance message) for later faults.</summary>
    public static string EngineFaultText(string? detail, string sourcePath, string destinationPath, bool linkedInstead)
    {
        string cause = detail ?? "our engine failed";
        string what = linkedInstead
            ? $"\"{sourcePath}\" was not cloned to \"{destinationPath}\" in place of a link (CopyOnWriteInsteadOfLinks) but linked as the project asks, because {cause}. "
            : $"\"{sourcePath}\" was copied to \"{destinationPath}\" the stock task's way because {cause}. ";
        return "CopyOnWrite: " + what
            + $"The build goes on; files after this one that meet the same fault are said at low importance, and after {FallbackLadder.FaultsBeforeSkipping} "
            + "close together between the same volumes this process stops asking the engine there for a while.";
    }

    public static string EngineFaultReportText(string fileText, string osDescription, string fileSystem)
        => $"{fileText} This is a fault of Microsoft.Build.CopyOnWrite on {osDescription}, {fileSystem}: "
            + "please report it to the package's maintainers (its project site on nuget.org) with this line and the output of `dotnet cow-measure doctor --selftest`. "
            + "To build without the SDK meanwhile: -p:DisableCopyOnWrite=true.";

    public static string EngineSelectionFaultText(string fault)
        => $"CopyOnWrite: {fault}, so this build copies every file the stock task's way and clones none. "
            + "This is a fault of Microsoft.Build.CopyOnWrite: please report it to the package's maintainers (its project site on nuget.org) with this line. "
            + "To build without the SDK meanwhile: -p:DisableCopyOnWrite=true.";
}
