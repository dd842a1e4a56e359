using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;

namespace Microsoft.Build.CopyOnWrite.Benchmarks.FreshProcess;

/// <summary>Time in Copy of one kind of sample build for one variant (median, min, max over the runs), from the measurement tool.</summary>
internal sealed record SampleCopyTime(string Kind, string Variant, double Median, double Min, double Max, int Runs);

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
}
