using System.Collections.Generic;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// The settings check Sdk/Sdk.targets runs before anything else in a project that sets a CopyOnWrite property
/// (InitialTargets, so before Restore and before any Copy): every value the Copy task would not understand is error
/// COW003, judged by the task's own parser (<see cref="CopyOnWriteSettings"/>); a DisableCopyOnWrite that is neither on
/// nor off, and a Required that DisableCopyOnWrite switches off, are warned about once per build.
/// </summary>
#if MSBUILD_MULTITHREADED
// Reads only its parameters: safe to run in MSBuild's own process under -mt, where a task not declared so would
// be sent to a task host for every project.
[MSBuildMultiThreadableTask]
#endif
public sealed class CheckCopyOnWriteSettings : Microsoft.Build.Utilities.Task
{
    public string? DisableCopyOnWrite { get; set; }

    public string? CopyOnWriteMode { get; set; }

    public string? CopyOnWriteWarnWhenNotCloned { get; set; }

    public string? CopyOnWriteAcceptCopiesFrom { get; set; }

    public string? CopyOnWriteInsteadOfLinks { get; set; }

    /// <summary>The project file the errors point at.</summary>
    public string? ProjectFile { get; set; }

    public override bool Execute()
    {
        var values = new Dictionary<string, string?>
        {
            [CopyOnWriteSettings.ModeProperty] = CopyOnWriteMode,
            [CopyOnWriteSettings.WarnProperty] = CopyOnWriteWarnWhenNotCloned,
            [CopyOnWriteSettings.AcceptProperty] = CopyOnWriteAcceptCopiesFrom,
            [CopyOnWriteSettings.LinksProperty] = CopyOnWriteInsteadOfLinks,
        };
        CopyOnWriteSettings settings = CopyOnWriteSettings.Parse(name => values[name], out IReadOnlyList<string> problems);
        foreach (string problem in problems)
        {
            Log.LogError(subcategory: null, errorCode: CopyOnWriteCodes.BadSetting, helpKeyword: null, file: ProjectFile, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0,
                message: "{0}", CopyOnWriteCodes.BadSettingText(problem, nothingCopied: true));
        }

        bool? disabled = CopyOnWriteSettings.IsDisabled(DisableCopyOnWrite);
        if (disabled is null && OncePerBuild.First(BuildEngine, "Microsoft.Build.CopyOnWrite.UnknownDisable|" + DisableCopyOnWrite))
        {
            CodedLog.Warning(Log, CopyOnWriteCodes.UnknownSwitchValue, "{0}", CopyOnWriteCodes.UnknownDisableText(DisableCopyOnWrite!));
        }
        else if (disabled == true && settings.Mode == Settings.CopyOnWriteMode.Required && OncePerBuild.First(BuildEngine, "Microsoft.Build.CopyOnWrite.RequiredWhileDisabled"))
        {
            CodedLog.Warning(Log, CopyOnWriteCodes.SettingNotInForce, "{0}", CopyOnWriteCodes.RequiredWhileDisabledText(DisableCopyOnWrite!));
        }

        return problems.Count == 0;
    }
}
