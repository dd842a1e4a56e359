using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.Settings;

/// <summary>What CopyOnWriteMode asks of the Copy task.</summary>
internal enum CopyOnWriteMode
{
    /// <summary>Clone where the file system can, copy where it cannot (the default).</summary>
    Auto,

    /// <summary>As Auto, but a file that could have been cloned and was copied is error COW001.</summary>
    Required,

    /// <summary>MSBuild's own Copy task; Sdk.targets does not register ours at all.</summary>
    Off,
}

/// <summary>
/// The project's CopyOnWrite properties and the one place that says what their values mean. A project file's values come
/// through <see cref="CopyTaskFactory"/>; -p: and environment values the task reads itself (<see cref="FromBuild"/>).
/// </summary>
internal sealed class CopyOnWriteSettings
{
    public const string ModeProperty = "CopyOnWriteMode";
    public const string WarnProperty = "CopyOnWriteWarnWhenNotCloned";
    public const string AcceptProperty = "CopyOnWriteAcceptCopiesFrom";
    public const string LinksProperty = "CopyOnWriteInsteadOfLinks";
    public const string DisableProperty = "DisableCopyOnWrite";

    /// <summary>The properties the Copy task reads, in the order Sdk.targets writes them into the task factory's body.</summary>
    public static readonly string[] TaskProperties = [ModeProperty, WarnProperty, AcceptProperty, LinksProperty];

    public static readonly CopyOnWriteSettings Default = new(CopyOnWriteMode.Auto, warnWhenNotCloned: false, Array.Empty<string>());

    public CopyOnWriteSettings(CopyOnWriteMode mode, bool warnWhenNotCloned, IReadOnlyList<string> acceptCopiesFrom, bool insteadOfLinks = false)
    {
        Mode = mode;
        WarnWhenNotCloned = warnWhenNotCloned;
        AcceptCopiesFrom = acceptCopiesFrom;
        InsteadOfLinks = insteadOfLinks;
    }

    public CopyOnWriteMode Mode { get; }

    /// <summary>CopyOnWriteWarnWhenNotCloned=true: the cross-volume diagnosis is warning COW002, not a message.</summary>
    public bool WarnWhenNotCloned { get; }

    /// <summary>CopyOnWriteAcceptCopiesFrom: full paths of folders whose files may be copied across volumes without COW001 or COW002.</summary>
    public IReadOnlyList<string> AcceptCopiesFrom { get; }

    /// <summary>
    /// CopyOnWriteInsteadOfLinks=true: a clone where a link is asked for and the volume clones, and a link left by an earlier
    /// build replaced by one; a link into the package cache turns writes to the output into writes to the cache (dotnet/msbuild#8273).
    /// </summary>
    public bool InsteadOfLinks { get; }

    /// <summary>The settings from raw property values, with a sentence per value not understood (which counts as unset).</summary>
    public static CopyOnWriteSettings Parse(Func<string, string?> property, out IReadOnlyList<string> problems)
    {
        var found = new List<string>();
        problems = found;
        CopyOnWriteMode mode = CopyOnWriteMode.Auto;
        if (Value(property, ModeProperty) is string modeText && !TryParseMode(modeText, out mode))
        {
            found.Add($"{ModeProperty} has the value \"{modeText}\"; it must be Auto, Required or Off.");
        }

        bool warn = Switch(property, WarnProperty, found);
        var folders = new List<string>();
        foreach (string folder in List(Value(property, AcceptProperty)))
        {
            if (IsFullPath(folder))
            {
                folders.Add(folder);
            }
            else
            {
                found.Add($"{AcceptProperty} lists \"{folder}\", which is not a full path; list full paths, e.g. $(MSBuildThisFileDirectory){folder}.");
            }
        }

        bool insteadOfLinks = Switch(property, LinksProperty, found);
        return mode == CopyOnWriteMode.Auto && !warn && folders.Count == 0 && !insteadOfLinks ? Default : new CopyOnWriteSettings(mode, warn, folders, insteadOfLinks);
    }

    /// <summary>As <see cref="Parse(Func{string, string?}, out IReadOnlyList{string})"/>, with the first problem only (the task reports one).</summary>
    public static CopyOnWriteSettings Parse(Func<string, string?> property, out string? problem)
    {
        CopyOnWriteSettings settings = Parse(property, out IReadOnlyList<string> problems);
        problem = problems.Count > 0 ? problems[0] : null;
        return settings;
    }

    /// <summary>The settings from outside the project files: a global property (-p:, which wins, as in MSBuild), else the environment.</summary>
    public static CopyOnWriteSettings FromBuild(IBuildEngine? engine, Func<string, string?> environment, out string? problem)
        => FromBuild((engine as IBuildEngine6)?.GetGlobalProperties(), environment, out problem);

    /// <summary>As <see cref="FromBuild(IBuildEngine?, Func{string, string?}, out string?)"/>, given the build's global properties.</summary>
    public static CopyOnWriteSettings FromBuild(IReadOnlyDictionary<string, string>? globalProperties, Func<string, string?> environment, out string? problem)
    {
        string? Read(string name)
        {
            // MSBuild property names are case-insensitive; the dictionary MSBuild hands out may not be.
            if (globalProperties is not null)
            {
                foreach (KeyValuePair<string, string> global in globalProperties)
                {
                    if (string.Equals(global.Key, name, StringComparison.OrdinalIgnoreCase))
                    {
                        return global.Value;
                    }
                }
            }

            return environment(name);
        }

        foreach (string name in TaskProperties)
        {
            if (!string.IsNullOrEmpty(Read(name)))
            {
                return Parse(Read, out problem);
            }
        }

        problem = null;
        return Default; // none set, as in most builds: nothing to parse
    }

    /// <summary>The "Name=value" lines Sdk.targets writes into the task factory's body, as a lookup; a value runs to the line's end.</summary>
    public static Func<string, string?> FromTaskBody(string? body)
    {
        var values = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (string line in (body ?? string.Empty).Split(new[] { '\n', '\r' }, StringSplitOptions.RemoveEmptyEntries))
        {
            int equals = line.IndexOf('=');
            if (equals > 0)
            {
                values[line.Substring(0, equals).Trim()] = line.Substring(equals + 1);
            }
        }

        return name => values.TryGetValue(name, out string? value) ? value : null;
    }

    /// <summary>
    /// DisableCopyOnWrite, the 1.x switch: true or 1 is MSBuild's own Copy, false, 0 or nothing ours; null (ours, warned) otherwise.
    /// Sdk.targets' _CopyOnWriteOff items apply the same rule (SettingsCheckedFirstTests).
    /// </summary>
    public static bool? IsDisabled(string? disable)
        => Trimmed(disable) switch
        {
            null => false,
            string text when text.Equals("true", StringComparison.OrdinalIgnoreCase) || text == "1" => true,
            string text when text.Equals("false", StringComparison.OrdinalIgnoreCase) || text == "0" => false,
            _ => null,
        };

    public static bool TryParseMode(string text, out CopyOnWriteMode mode)
    {
        foreach (CopyOnWriteMode candidate in new[] { CopyOnWriteMode.Auto, CopyOnWriteMode.Required, CopyOnWriteMode.Off })
        {
            if (string.Equals(text.Trim(), candidate.ToString(), StringComparison.OrdinalIgnoreCase))
            {
                mode = candidate;
                return true;
            }
        }

        mode = CopyOnWriteMode.Auto;
        return false;
    }

    /// <summary>The items of a ';'-separated MSBuild list (a property, an environment variable), trimmed, empty ones left out.</summary>
    public static IEnumerable<string> List(string? list)
    {
        foreach (string item in (list ?? string.Empty).Split(';'))
        {
            if (item.Trim() is { Length: > 0 } trimmed)
            {
                yield return trimmed;
            }
        }
    }

    /// <summary>"/a", "C:\\a" or "\\\\server\\share"; not "a", "C:a" or "\\a", which depend on a current folder or drive.</summary>
    public static bool IsFullPath(string path) => IsFullPath(path, RuntimeInformation.IsOSPlatform(OSPlatform.Windows));

    public static bool IsFullPath(string path, bool onWindows)
        => onWindows
            ? (path.Length >= 3 && path[1] == ':' && (path[2] == '\\' || path[2] == '/')) || path.StartsWith(@"\\", StringComparison.Ordinal) || path.StartsWith("//", StringComparison.Ordinal)
            : path.StartsWith("/", StringComparison.Ordinal);

    private static string? Trimmed(string? value) => string.IsNullOrWhiteSpace(value) ? null : value!.Trim();

    private static string? Value(Func<string, string?> property, string name) => Trimmed(property(name));

    private static bool Switch(Func<string, string?> property, string name, List<string> problems)
    {
        string? text = Value(property, name);
        if (text is null)
        {
            return false;
        }

        if (bool.TryParse(text, out bool on))
        {
            return on;
        }

        problems.Add($"{name} has the value \"{text}\"; it must be true or false.");
        return false;
    }
}
