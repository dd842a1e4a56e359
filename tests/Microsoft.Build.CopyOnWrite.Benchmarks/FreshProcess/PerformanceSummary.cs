using System;
using System.Globalization;
using System.Linq;
using System.Text.RegularExpressions;

namespace Microsoft.Build.CopyOnWrite.Benchmarks.FreshProcess;

/// <summary>Reads rows of the console logger's performance summary (<c>-clp:PerformanceSummary</c>) from a build's output.</summary>
internal static partial class PerformanceSummary
{
    public const string Targets = "Target Performance Summary:";
    public const string Tasks = "Task Performance Summary:";

    /// <summary>The milliseconds of the row named <paramref name="name"/> in the last <paramref name="section"/>; null when there is none.</summary>
    public static double? Milliseconds(string output, string section, string name)
    {
        int start = output.LastIndexOf(section, StringComparison.Ordinal);
        if (start < 0)
        {
            return null;
        }

        foreach (string line in output[start..].Split('\n').Skip(1).TakeWhile(line => line.Trim().Length > 0))
        {
            Match row = Row().Match(line);
            if (row.Success && row.Groups["name"].Value == name)
            {
                return double.Parse(row.Groups["ms"].Value, CultureInfo.InvariantCulture);
            }
        }

        return null;
    }

    // "      269 ms  Copy                                      84 calls"
    [GeneratedRegex(@"^\s*(?<ms>\d+) ms\s+(?<name>\S+)\s+(?<calls>\d+) calls\s*$")]
    private static partial Regex Row();
}
