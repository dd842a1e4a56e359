using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.TestKit.Parity;

/// <summary>
/// What one task did in one tree, with the tree's roots written as placeholders ({R}, ...) so the stock task's
/// run and ours compare line by line. Shared by the Linux parity suite and the Windows parity program; each
/// supplies its tree's snapshot lines and its way of normalising paths.
/// </summary>
public sealed class Observation
{
    /// <summary>Null when the task never reported (a build that did not reach it).</summary>
    public bool? Success { get; set; }

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

    /// <summary>From Cancel() to Execute's return, when the run was cancelled (never compared, like the elapsed time).</summary>
    public double? CancelToReturnMilliseconds { get; set; }

    /// <summary>The run's outcome with every path in it passed through <paramref name="normalize"/>.</summary>
    public static Observation From(TaskRunResult run, Func<string?, string> normalize)
    {
        var observation = new Observation
        {
            Success = run.Success,
            Exception = run.Exception is null ? null : normalize(run.Exception),
            DestinationFiles = run.DestinationFiles?.Select(i => normalize(i.ToString())).ToList(),
            CopiedFiles = run.CopiedFiles?.Select(i => normalize(i.ToString())).ToList(),
            WroteAtLeastOneFile = run.WroteAtLeastOneFile,
            ElapsedMilliseconds = run.ElapsedMilliseconds,
        };
        observation.Events.AddRange(run.Events.Select(e => e with { Text = normalize(e.Text) }));
        return observation;
    }

    /// <summary>Takes every compared facet from <paramref name="other"/> (for an intended difference that was verified).</summary>
    public void AdoptFrom(Observation other)
    {
        Success = other.Success;
        Exception = other.Exception;
        DestinationFiles = other.DestinationFiles?.ToList();
        CopiedFiles = other.CopiedFiles?.ToList();
        WroteAtLeastOneFile = other.WroteAtLeastOneFile;
        Events.Clear();
        Events.AddRange(other.Events);
        Files = other.Files.ToList();
    }

    /// <summary>The facets compared, as lines; events sorted (parallel copies log in any order), everything else in order.</summary>
    public IEnumerable<(string Facet, List<string> Lines)> Facets()
    {
        yield return ("result", new List<string> { $"success={Success?.ToString() ?? "(none)"}", $"exception={Exception ?? "(none)"}", $"WroteAtLeastOneFile={WroteAtLeastOneFile?.ToString() ?? "(none)"}" });
        yield return ("DestinationFiles", DestinationFiles?.ToList() ?? new List<string> { "(null)" });
        yield return ("CopiedFiles", CopiedFiles?.ToList() ?? new List<string> { "(null)" });
        yield return ("events", Events.Select(e => e.ToString()).OrderBy(e => e, StringComparer.Ordinal).ToList());
        yield return ("files", Files.ToList());
    }

    /// <summary>Null when equal; else a readable diff: per facet, lines only stock has (-) and only ours has (+).</summary>
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
                stockLines.ForEach(l => report.AppendLine("    - " + l));
                oursLines.ForEach(l => report.AppendLine("    + " + l));
                continue;
            }

            onlyStock.ForEach(l => report.AppendLine("    - " + l));
            onlyOurs.ForEach(l => report.AppendLine("    + " + l));
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
        => string.Join(Environment.NewLine, Facets().Select(f => $"  {f.Facet}:{Environment.NewLine}" + string.Join(Environment.NewLine, f.Lines.Select(l => "    " + l))));
}
