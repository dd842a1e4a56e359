using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>What one task did in one tree, with the tree root written as {R}.</summary>
internal sealed class Observation
{
    public bool Success { get; set; }

    public string? Exception { get; set; }

    public List<string>? DestinationFiles { get; set; }

    public List<string>? CopiedFiles { get; set; }

    public bool? WroteAtLeastOneFile { get; set; }

    public List<ObservedEvent> Events { get; } = new();

    /// <summary>The tree as arranged, before the task ran.</summary>
    public List<string> Before { get; set; } = new();

    public List<string> Files { get; set; } = new();

    /// <summary>The paths ({R}/... form) the scenario's intended differences are about.</summary>
    public List<string> IntendedPaths { get; } = new();

    public double ElapsedMilliseconds { get; set; }

    public static Observation From(TaskRunResult run, WindowsTree tree)
    {
        var observation = new Observation
        {
            Success = run.Success,
            Exception = run.Exception is null ? null : tree.Normalize(run.Exception),
            DestinationFiles = run.DestinationFiles?.Select(i => tree.Normalize(i.ToString())).ToList(),
            CopiedFiles = run.CopiedFiles?.Select(i => tree.Normalize(i.ToString())).ToList(),
            WroteAtLeastOneFile = run.WroteAtLeastOneFile,
            ElapsedMilliseconds = run.ElapsedMilliseconds,
        };
        observation.Events.AddRange(run.Events.Select(e => e with { Text = tree.Normalize(e.Text) }));
        return observation;
    }

    /// <summary>The facets compared, as lines; events sorted (parallel copies log in any order), everything else in order.</summary>
    public IEnumerable<(string Facet, List<string> Lines)> Facets()
    {
        yield return ("result", new List<string> { $"success={Success}", $"exception={Exception ?? "(none)"}", $"WroteAtLeastOneFile={WroteAtLeastOneFile?.ToString() ?? "(none)"}" });
        yield return ("DestinationFiles", DestinationFiles?.ToList() ?? new List<string> { "(null)" });
        yield return ("CopiedFiles", CopiedFiles?.ToList() ?? new List<string> { "(null)" });
        yield return ("events", Events.Select(e => e.ToString()).OrderBy(e => e, StringComparer.Ordinal).ToList());
        yield return ("files", Files.ToList());
    }

    /// <summary>Null when equal; else per facet the lines only stock has (-) and only ours has (+).</summary>
    public static string? Diff(Observation stock, Observation ours)
    {
        var report = new StringBuilder();
        foreach (((string facet, List<string> stockLines), (_, List<string> oursLines)) in stock.Facets().Zip(ours.Facets()))
        {
            if (stockLines.SequenceEqual(oursLines, StringComparer.Ordinal))
            {
                continue;
            }

            report.AppendLine($"  {facet} differ (- stock, + ours):");
            List<string> onlyStock = MultisetMinus(stockLines, oursLines);
            List<string> onlyOurs = MultisetMinus(oursLines, stockLines);
            if (onlyStock.Count == 0 && onlyOurs.Count == 0)
            {
                report.AppendLine("    same lines in another order:");
            }

            (onlyStock.Count + onlyOurs.Count == 0 ? stockLines : onlyStock).ForEach(l => report.AppendLine("    - " + l));
            (onlyStock.Count + onlyOurs.Count == 0 ? oursLines : onlyOurs).ForEach(l => report.AppendLine("    + " + l));
        }

        return report.Length == 0 ? null : report.ToString();
    }

    private static List<string> MultisetMinus(List<string> a, List<string> b)
    {
        var remaining = b.GroupBy(x => x, StringComparer.Ordinal).ToDictionary(g => g.Key, g => g.Count(), StringComparer.Ordinal);
        var result = new List<string>();
        foreach (string line in a)
        {
            if (remaining.TryGetValue(line, out int count) && count > 0)
            {
                remaining[line] = count - 1;
            }
            else
            {
                result.Add(line);
            }
        }

        return result;
    }

    public string Describe()
        => $"  ({ElapsedMilliseconds:0} ms)" + Environment.NewLine
           + string.Join(Environment.NewLine, Facets().Select(f => $"  {f.Facet}:{Environment.NewLine}" + string.Join(Environment.NewLine, f.Lines.Select(l => "    " + l))));
}
