using System.Collections.Generic;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.Settings;

/// <summary>
/// The settings check Sdk/Sdk.targets runs before anything else in a project (InitialTargets, so before Restore and
/// before any Copy): every CopyOnWrite* value the Copy task would not understand is error COW003, judged by the
/// task's own parser (<see cref="CopyOnWriteSettings.Parse(string?, out IReadOnlyList{string})"/>), so there is one
/// list of allowed values.
/// </summary>
#if MSBUILD_MULTITHREADED
// Reads only its parameters: safe to run in MSBuild's own process under -mt, where a task not declared so would
// be sent to a task host for every project.
[MSBuildMultiThreadableTask]
#endif
public sealed class CheckCopyOnWriteSettings : Microsoft.Build.Utilities.Task
{
    /// <summary>Error: a CopyOnWrite* property has a value the task does not understand (here, and from the task itself).</summary>
    public const string BadSettingCode = "COW003";

    public string? Mode { get; set; }

    public string? WarnWhenNotCloned { get; set; }

    public string? AcceptCopiesFrom { get; set; }

    public string? InsteadOfLinks { get; set; }

    /// <summary>The project file the errors point at.</summary>
    public string? ProjectFile { get; set; }

    public override bool Execute()
    {
        CopyOnWriteSettings.Parse(CopyOnWriteSettings.AsText(Mode, WarnWhenNotCloned, AcceptCopiesFrom, InsteadOfLinks), out IReadOnlyList<string> problems);
        foreach (string problem in problems)
        {
            Log.LogError(subcategory: null, errorCode: BadSettingCode, helpKeyword: null, file: ProjectFile, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0,
                message: "{0}", "CopyOnWrite: " + problem + " Fix the property (in the project, Directory.Build.props, the environment or on the command line); nothing was copied.");
        }

        return problems.Count == 0;
    }
}
