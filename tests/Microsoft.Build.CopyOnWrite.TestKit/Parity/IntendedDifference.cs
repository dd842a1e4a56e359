using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.RegularExpressions;

namespace Microsoft.Build.CopyOnWrite.TestKit.Parity;

/// <summary>
/// One way our Copy is meant to differ from MSBuild's: its key (scenarios name it), whether it applies to every
/// scenario, the reason, the normalisation that removes exactly that difference before the comparison, and the
/// parity suites it holds in (IntendedDifferences holds the one list).
/// </summary>
public sealed record IntendedDifference(string Key, bool Always, string Reason, Action<Observation, Observation> Normalize, ParitySuite In = ParitySuite.Both);

/// <summary>The two parity suites: Linux (Parity.Tests) and Windows (Windows.Parity, under Wine or on Windows).</summary>
[Flags]
public enum ParitySuite
{
    Linux = 1,
    Windows = 2,
    Both = Linux | Windows,
}

/// <summary>Normalisations both parity suites (Linux, and Windows under Wine) apply the same way.</summary>
public static class CommonDifferences
{
    private static readonly Regex CopiedNotClonedMessage = new("^Copied \".*\" to \".*\" \\(.*\\), not cloned: .*\\.$", RegexOptions.Singleline);

    /// <summary>Our low-importance line for a destination written in place under another process's handle (Windows).</summary>
    private const string WrittenInPlaceMarker = "\" was open in another process that did not let it be replaced, so it was written in place, as MSBuild's own Copy writes it";

    /// <summary>
    /// Our messages the stock task has no counterpart for: the "CopyOnWrite:" line of each invocation, the
    /// low-importance "CopyOnWrite data:" line for the summary logger, the low-importance line for each file that was
    /// copied, not cloned, and the low-importance line for a destination written in place (Windows).
    /// </summary>
    public static bool IsOurExtraMessage(string text, string? importance)
        => text.StartsWith("CopyOnWrite:", StringComparison.Ordinal)
           || (importance == "Low" && text.StartsWith("CopyOnWrite data: ", StringComparison.Ordinal))
           || (importance == "Low" && CopiedNotClonedMessage.IsMatch(text))
           || (importance == "Low" && text.Contains(WrittenInPlaceMarker, StringComparison.Ordinal));

    /// <summary>Removes <see cref="IsOurExtraMessage"/> messages from <paramref name="ours"/>.</summary>
    public static void DropOurExtraMessages(Observation ours)
        => ours.Events.RemoveAll(e => e.Kind == "message" && IsOurExtraMessage(e.Text, e.Importance));

    /// <summary>
    /// The stock task names a new folder once per parallel worker that found it missing, and names a parent folder
    /// or not depending on which worker came first. On both sides: repeated identical "Creating directory" lines
    /// count once, and a folder's line is dropped when a folder inside it (after <paramref name="separator"/>) has one.
    /// </summary>
    public static void CountEachCreatedFolderOnce(Observation stock, Observation ours, char separator)
    {
        const string Prefix = "Creating directory \"";
        foreach (Observation side in new[] { stock, ours })
        {
            var seen = new HashSet<string>(StringComparer.Ordinal);
            side.Events.RemoveAll(e => e.Kind == "message" && e.Text.StartsWith(Prefix, StringComparison.Ordinal) && !seen.Add(e.Text));
            var folders = seen.Select(text => text[Prefix.Length..^2]).ToList();
            side.Events.RemoveAll(e => e.Kind == "message" && e.Text.StartsWith(Prefix, StringComparison.Ordinal)
                && folders.Any(other => other.StartsWith(e.Text[Prefix.Length..^2] + separator, StringComparison.Ordinal)));
        }
    }

    /// <summary>Applies, in table order, every entry of <paramref name="table"/> that is Always or that the scenario names.</summary>
    public static void Apply(IEnumerable<IntendedDifference> table, ICollection<string> named, Observation stock, Observation ours)
    {
        foreach (IntendedDifference difference in table.Where(d => d.Always || named.Contains(d.Key)))
        {
            difference.Normalize(stock, ours);
        }
    }

    /// <summary>The snapshot line of <paramref name="path"/> ("{R}/..." form), or null when the tree has no such entry.</summary>
    public static string? Line(List<string> snapshot, string path) => snapshot.FirstOrDefault(l => l.StartsWith(path + " | ", StringComparison.Ordinal));
}
