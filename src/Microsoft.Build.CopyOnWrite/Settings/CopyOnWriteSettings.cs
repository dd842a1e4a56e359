using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
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
/// The project's CopyOnWrite* properties as the Copy task sees them. Set in a project file, they reach the task
/// through the body of its UsingTask (see <see cref="CopyTaskFactory"/>), written by Sdk.targets as one
/// "Name=$(Property)" line per setting; set with -p: or in the environment, the task reads them itself
/// (<see cref="FromBuild"/>), which needs no task factory.
/// </summary>
internal sealed class CopyOnWriteSettings
{
    private static readonly Dictionary<string, string> Empty = new();

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

    /// <summary>
    /// CopyOnWriteAcceptCopiesFrom: full paths of folders whose files may be copied from another volume without
    /// failing Required or warning, besides the installation folders <see cref="CopySources"/> always accepts.
    /// </summary>
    public IReadOnlyList<string> AcceptCopiesFrom { get; }

    /// <summary>
    /// CopyOnWriteInsteadOfLinks=true: where a Copy asks for a hard or symbolic link and source and destination can
    /// clone, a clone is made instead. A link into the NuGet package cache turns every later write into the output into
    /// a write into the cache (dotnet/msbuild#8273); a clone saves the same space and shares nothing that can be written.
    /// </summary>
    public bool InsteadOfLinks { get; }

    /// <summary>
    /// Reads one "Name=value" per line (names case-insensitive, empty values mean the default). Mode,
    /// WarnWhenNotCloned and InsteadOfLinks may also be separated by ';'; AcceptCopiesFrom, a ';'-separated list, must be on a line of its own.
    /// </summary>
    /// <param name="problem">Set to a sentence naming the bad property and value when one is not understood (the first, when several are).</param>
    public static CopyOnWriteSettings Parse(string? text, out string? problem)
    {
        CopyOnWriteSettings settings = Parse(text, out IReadOnlyList<string> problems);
        problem = problems.Count > 0 ? problems[0] : null;
        return settings;
    }

    /// <summary>As <see cref="Parse(string?, out string?)"/>, with a sentence for every value not understood, in the order the properties are listed.</summary>
    public static CopyOnWriteSettings Parse(string? text, out IReadOnlyList<string> problems)
    {
        var found = new List<string>();
        problems = found;
        var values = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (string line in (text ?? string.Empty).Split(new[] { '\n', '\r' }, StringSplitOptions.RemoveEmptyEntries))
        {
            int equals = line.IndexOf('=');
            string name = equals > 0 ? line.Substring(0, equals).Trim() : string.Empty;
            string[] pairs = name.Equals("AcceptCopiesFrom", StringComparison.OrdinalIgnoreCase) ? new[] { line } : line.Split(';');
            foreach (string pair in pairs)
            {
                int at = pair.IndexOf('=');
                if (at > 0)
                {
                    values[pair.Substring(0, at).Trim()] = pair.Substring(at + 1).Trim();
                }
            }
        }

        CopyOnWriteMode mode = CopyOnWriteMode.Auto;
        if (values.TryGetValue("Mode", out string? modeText) && modeText.Length > 0)
        {
            if (!TryParseMode(modeText, out mode))
            {
                found.Add($"CopyOnWriteMode has the value \"{modeText}\"; it must be Auto, Required or Off.");
                mode = CopyOnWriteMode.Auto;
            }
        }

        bool warn = false;
        if (values.TryGetValue("WarnWhenNotCloned", out string? warnText) && warnText.Length > 0 && !bool.TryParse(warnText, out warn))
        {
            found.Add($"CopyOnWriteWarnWhenNotCloned has the value \"{warnText}\"; it must be true or false.");
            warn = false;
        }

        bool insteadOfLinks = false;
        if (values.TryGetValue("InsteadOfLinks", out string? linksText) && linksText.Length > 0 && !bool.TryParse(linksText, out insteadOfLinks))
        {
            found.Add($"CopyOnWriteInsteadOfLinks has the value \"{linksText}\"; it must be true or false.");
            insteadOfLinks = false;
        }

        var folders = new List<string>();
        if (values.TryGetValue("AcceptCopiesFrom", out string? foldersText))
        {
            foreach (string folder in foldersText.Split(new[] { ';' }, StringSplitOptions.RemoveEmptyEntries).Select(folder => folder.Trim()).Where(folder => folder.Length > 0))
            {
                if (!IsFullPath(folder))
                {
                    found.Add($"CopyOnWriteAcceptCopiesFrom lists \"{folder}\", which is not a full path; list full paths, e.g. $(MSBuildThisFileDirectory){folder}.");
                    continue;
                }

                folders.Add(folder);
            }
        }

        return mode == CopyOnWriteMode.Auto && !warn && folders.Count == 0 && !insteadOfLinks ? Default : new CopyOnWriteSettings(mode, warn, folders, insteadOfLinks);
    }

    /// <summary>
    /// The settings as MSBuild evaluated them when they come from outside the project files: a global property
    /// (-p:, which wins, as in MSBuild), else the project's environment. Sdk.targets uses the task factory instead
    /// whenever a project file set a different value.
    /// </summary>
    public static CopyOnWriteSettings FromBuild(IBuildEngine? engine, Func<string, string?> environment, out string? problem)
    {
        IReadOnlyDictionary<string, string>? globalProperties = (engine as IBuildEngine6)?.GetGlobalProperties();
        string? Read(string property)
        {
            // MSBuild property names are case-insensitive; the dictionary MSBuild hands out may not be.
            foreach (KeyValuePair<string, string> global in globalProperties ?? Empty)
            {
                if (string.Equals(global.Key, property, StringComparison.OrdinalIgnoreCase))
                {
                    return global.Value;
                }
            }

            return environment(property);
        }

        string? mode = Read("CopyOnWriteMode");
        string? warn = Read("CopyOnWriteWarnWhenNotCloned");
        string? accept = Read("CopyOnWriteAcceptCopiesFrom");
        string? insteadOfLinks = Read("CopyOnWriteInsteadOfLinks");
        if (string.IsNullOrEmpty(mode) && string.IsNullOrEmpty(warn) && string.IsNullOrEmpty(accept) && string.IsNullOrEmpty(insteadOfLinks))
        {
            problem = null;
            return Default; // none set, as in most builds: nothing to parse
        }

        return Parse(AsText(mode, warn, accept, insteadOfLinks), out problem);
    }

    /// <summary>The four properties' values, as MSBuild evaluated them, in the text <see cref="Parse(string?, out string?)"/> reads.</summary>
    public static string AsText(string? mode, string? warnWhenNotCloned, string? acceptCopiesFrom, string? insteadOfLinks)
        => $"Mode={mode}\nWarnWhenNotCloned={warnWhenNotCloned}\nAcceptCopiesFrom={acceptCopiesFrom}\nInsteadOfLinks={insteadOfLinks}";

    /// <summary>"/a", "C:\\a" or "\\\\server\\share"; not "a", "C:a" or "\\a", which depend on a current folder or drive.</summary>
    private static bool IsFullPath(string path)
        => RuntimeInformation.IsOSPlatform(OSPlatform.Windows)
            ? (path.Length >= 3 && path[1] == ':' && (path[2] == '\\' || path[2] == '/')) || path.StartsWith(@"\\", StringComparison.Ordinal) || path.StartsWith("//", StringComparison.Ordinal)
            : path.StartsWith("/", StringComparison.Ordinal);

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
}
