using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite.Settings;

/// <summary>
/// A coded warning about the settings that Sdk/Sdk.targets raises before the build's own targets (COW008: a setting
/// that another switches off), said once per build (per MSBuild node) rather than by every project.
/// </summary>
public sealed class CopyOnWriteNotice : Microsoft.Build.Utilities.Task
{
    /// <summary>Warning: CopyOnWriteMode=Required while DisableCopyOnWrite brings back MSBuild's own Copy.</summary>
    public const string SettingNotInForceCode = "COW008";

    [Required]
    public string Code { get; set; } = string.Empty;

    /// <summary>What makes two notices the same: said once per build for each key.</summary>
    [Required]
    public string Key { get; set; } = string.Empty;

    [Required]
    public string Text { get; set; } = string.Empty;

    public override bool Execute()
    {
        if (OncePerBuild.First(BuildEngine, "Microsoft.Build.CopyOnWrite.Notice|" + Code + "|" + Key))
        {
            Log.LogWarning(subcategory: null, warningCode: Code, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0, message: "{0}", Text);
        }

        return true;
    }
}
