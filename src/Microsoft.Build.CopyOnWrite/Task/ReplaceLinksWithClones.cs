using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// CopyOnWriteInsteadOfLinks for the outputs the common targets copy only when out of date (a target's Inputs and
/// Outputs: content files, the apphost, publish's PreserveNewest files). A link an earlier build made there has its
/// source's time, so MSBuild skips the target and no Copy ever sees the link. Run before those targets (Sdk.targets),
/// this replaces each such link with a clone by <see cref="Copy"/>'s own rules and leaves every other destination to
/// the target that copies it.
/// </summary>
#if MSBUILD_MULTITHREADED
[MSBuildMultiThreadableTask]
public sealed class ReplaceLinksWithClones : Microsoft.Build.Utilities.Task, IMultiThreadableTask
{
    public TaskEnvironment TaskEnvironment { get; set; } = TaskEnvironment.Fallback;

    private Copy NewCopy() => new(TaskEnvironment);
#else
public sealed class ReplaceLinksWithClones : Microsoft.Build.Utilities.Task
{
    private Copy NewCopy() => new();
#endif

    [Required]
    public ITaskItem[] SourceFiles { get; set; } = [];

    [Required]
    public ITaskItem[] DestinationFiles { get; set; } = [];

    /// <summary>The project's CopyOnWriteInsteadOfLinks, raw: the settings parser says what it means.</summary>
    public string? CopyOnWriteInsteadOfLinks { get; set; }

    public override bool Execute()
    {
        CopyOnWriteSettings settings = CopyOnWriteSettings.Parse(name => name == CopyOnWriteSettings.LinksProperty ? CopyOnWriteInsteadOfLinks : null, out string? _);
        if (!settings.InsteadOfLinks || SourceFiles.Length != DestinationFiles.Length)
        {
            return true; // off, or a bad value (CheckCopyOnWriteSettings said COW003), or nothing this can pair
        }

        Copy copy = NewCopy();
        copy.BuildEngine = BuildEngine;
        copy.HostObject = HostObject;
        copy.SourceFiles = SourceFiles;
        copy.DestinationFiles = DestinationFiles;
        copy.SkipUnchangedFiles = true;
        copy.Settings = settings;
        copy.LinksOnly = true;
        return copy.Execute();
    }
}
