using System.Collections.Generic;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// The settings check Sdk.targets runs first (InitialTargets) where a CopyOnWrite property is set: COW003 for a value the
/// task's own parser refuses; COW010 and COW008 (a DisableCopyOnWrite unclear, or switching Required off) once per build.
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
            CodedLog.Warning(Log, CopyOnWriteCodes.UnknownSwitchValue, CopyOnWriteCodes.UnknownDisableText(DisableCopyOnWrite!));
        }
        else if (disabled == true && settings.Mode == Settings.CopyOnWriteMode.Required && OncePerBuild.First(BuildEngine, "Microsoft.Build.CopyOnWrite.RequiredWhileDisabled"))
        {
            CodedLog.Warning(Log, CopyOnWriteCodes.SettingNotInForce, CopyOnWriteCodes.RequiredWhileDisabledText(DisableCopyOnWrite!));
        }

        return problems.Count == 0;
    }
}
