using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>
/// The report: what each volume is, on each volume ours against stock (what the task brings), across volumes the same
/// task (what the file system brings), the notes to read them right, the machine, the method and every number.
/// </summary>
/// <remarks>Here: the measured data and its aggregates; the other parts are partial files (Report/README.md).</remarks>
internal sealed partial class MeasurementReport
{
    private readonly Options _options;
    private readonly Session _session;
    private readonly MachineInfo _machine;
    private readonly IReadOnlyList<MeasuredVolume> _volumes;
    private readonly List<BuildMeasurement> _builds;
    private readonly List<Aggregate> _aggregates;
    private readonly DateTime _when = DateTime.UtcNow;

    public MeasurementReport(Options options, Session session, MachineInfo machine, IReadOnlyList<MeasuredVolume> volumes, List<BuildMeasurement> builds)
    {
        _options = options;
        _session = session;
        _machine = machine;
        _volumes = volumes;
        _builds = builds;
        _aggregates = builds
            .GroupBy(b => (b.Volume, b.Variant, b.Kind))
            .Select(g => new Aggregate(g.Key.Volume, g.Key.Variant, g.Key.Kind,
                Stat.Of(g.Select(b => b.WallSeconds)),
                Stat.Of(g.Select(b => b.CopyTaskMilliseconds)),
                Stat.Of(g.Select(b => (double)b.CopyTaskCalls)),
                Stat.Of(g.Select(b => b.ClonedFiles is int f ? f : double.NaN)),
                Stat.Of(g.Select(b => b.ClonedBytes is long n ? n : double.NaN)),
                Stat.Of(g.Select(b => (double)b.FilesWritten)),
                Stat.Of(g.Select(b => (double)b.BytesWritten)),
                Stat.Of(g.Select(b => b.DiskUsedBytes is long d ? d : double.NaN)),
                Stat.Of(g.Select(b => (double)b.AddedApparentBytes)),
                Stat.Of(g.Select(b => b.FlushSecondsAfter ?? double.NaN))))
            .ToList();
    }

    internal IReadOnlyList<Aggregate> Aggregates => _aggregates;

    internal IReadOnlyList<string> Volumes => _volumes.Select(v => v.Label).ToList();

    internal string Title => $"Microsoft.Build.CopyOnWrite on {TargetName}: clean builds, median of {_options.Runs}";

    private string TargetName => Path.GetFileName(_options.Target.TrimEnd('/', '\\'));

    private static string[] Variants => [Builds.OurVariant, Builds.StockVariant];

    private IEnumerable<string> Kinds => _options.Incremental ? ["clean", "incremental"] : ["clean"];

    /// <summary>Across volumes, each is set against the first that cannot clone (else the first named).</summary>
    private MeasuredVolume Baseline => _volumes.FirstOrDefault(v => v.Identity.CanClone == false) ?? _volumes[0];

    private Aggregate? Find(string volume, string variant, string kind) => _aggregates.FirstOrDefault(a => a.Volume == volume && a.Variant == variant && a.Kind == kind);

    public void WriteAll(string folder)
    {
        File.WriteAllText(Path.Combine(folder, "measurement.md"), Markdown());
        File.WriteAllText(Path.Combine(folder, "measurement.json"), Json());
        File.WriteAllText(Path.Combine(folder, "chart.svg"), Chart.Svg(this));
    }
}
