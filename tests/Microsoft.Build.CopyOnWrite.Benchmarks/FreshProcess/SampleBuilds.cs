using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;

namespace Microsoft.Build.CopyOnWrite.Benchmarks.FreshProcess;

/// <summary>Time in Copy of one kind of sample build for one variant (median, min, max over the runs), from the measurement tool.</summary>
internal sealed record SampleCopyTime(string Kind, string Variant, double Median, double Min, double Max, int Runs);

/// <summary>One step of a sample build (a target, a task or the whole build), median milliseconds per variant over the runs.</summary>
internal sealed record SampleStep(string Kind, string Step, double StockMedian, double OursMedian);

/// <summary>
/// The sample's clean and incremental builds on XFS, ours against stock, as src/Microsoft.Build.CopyOnWrite.Measure
/// measured them (build/benchmark.sh runs it and hands over its measurement.json).
/// </summary>
internal static class SampleBuilds
{
    public const string OurVariant = "copy-on-write";
    public const string StockVariant = "stock";

    public static IReadOnlyList<SampleCopyTime> Read(string measurementJson, string volume)
    {
        using JsonDocument document = JsonDocument.Parse(File.ReadAllText(measurementJson));
        return document.RootElement.GetProperty("aggregates").EnumerateArray()
            .Where(aggregate => aggregate.GetProperty("volume").GetString() == volume)
            .Select(aggregate =>
            {
                JsonElement copy = aggregate.GetProperty("copyMilliseconds");
                return new SampleCopyTime(
                    aggregate.GetProperty("kind").GetString()!,
                    aggregate.GetProperty("variant").GetString()!,
                    copy.GetProperty("median").GetDouble(),
                    copy.GetProperty("min").GetDouble(),
                    copy.GetProperty("max").GetDouble(),
                    copy.GetProperty("count").GetInt32());
            })
            .ToList();
    }

    /// <summary>
    /// Where a sample build's time goes, ours against stock: the targets that run Copy in the sample (their time includes
    /// their other tasks), ResolveAssemblyReference (a task neither variant changes: when it is slower too, the whole
    /// build was, not only Copy), and the whole build. Read from each build's console log (its performance summary).
    /// </summary>
    public static IReadOnlyList<SampleStep> ReadSteps(string measurementJson, string volume)
    {
        string logs = Path.Combine(Path.GetDirectoryName(measurementJson)!, "logs");
        using JsonDocument document = JsonDocument.Parse(File.ReadAllText(measurementJson));
        var times = new List<(string Kind, string Variant, string Step, double Ms)>();
        foreach (JsonElement build in document.RootElement.GetProperty("builds").EnumerateArray().Where(b => b.GetProperty("volume").GetString() == volume))
        {
            string kind = build.GetProperty("kind").GetString()!;
            string variant = build.GetProperty("variant").GetString()!;
            times.Add((kind, variant, "whole build", build.GetProperty("wallSeconds").GetDouble() * 1000));
            string log = Path.Combine(logs, build.GetProperty("logFile").GetString()!);
            if (!File.Exists(log))
            {
                continue;
            }

            string text = File.ReadAllText(log);
            foreach (string target in CopyTargets)
            {
                times.Add((kind, variant, $"target {target}", PerformanceSummary.Milliseconds(text, PerformanceSummary.Targets, target) ?? 0));
            }

            times.Add((kind, variant, "task ResolveAssemblyReference", PerformanceSummary.Milliseconds(text, PerformanceSummary.Tasks, "ResolveAssemblyReference") ?? 0));
        }

        return times
            .GroupBy(t => (t.Kind, t.Step))
            .Where(g => g.Any(t => t.Variant == StockVariant) && g.Any(t => t.Variant == OurVariant))
            .Select(g => new SampleStep(g.Key.Kind, g.Key.Step,
                FreshProcessReport.Median(g.Where(t => t.Variant == StockVariant).Select(t => t.Ms)),
                FreshProcessReport.Median(g.Where(t => t.Variant == OurVariant).Select(t => t.Ms))))
            .ToList();
    }

    /// <summary>The sample's targets that run Copy (the common targets' and its own staging target).</summary>
    private static readonly string[] CopyTargets =
        ["_CopyFilesMarkedCopyLocal", "CopyFilesToOutputDirectory", "_CopyOutOfDateSourceItemsToOutputDirectory", "StageSnowballArtifacts"];
}
