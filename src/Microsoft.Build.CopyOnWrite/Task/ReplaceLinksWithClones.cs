using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// CopyOnWriteInsteadOfLinks for outputs copied only when out of date (content, apphost, PreserveNewest): a link there has
/// its source's time, so no Copy sees it. Run before those targets, this replaces such links by <see cref="Copy"/>'s rules.
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
