using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.Savings;

/// <summary>
/// The build-wide CopyOnWrite summary: adds up the data line every Copy invocation logs (<see cref="CopyData"/>)
/// over all projects and nodes, and prints the totals when the build ends.
/// </summary>
/// <remarks>Turned on by the -logger: value the SDK's CopyOnWriteSummaryLogger gives; see docs/visibility.md.</remarks>
public sealed class CopyOnWriteSummaryLogger : ILogger
{
    private readonly object _lock = new();
    private readonly HashSet<string> _projects = new(StringComparer.Ordinal);
    private readonly Dictionary<(string Reason, string Detail), (int Files, long Bytes)> _reasons = new();
    private readonly List<CopyData.CrossVolumeEntry> _crossVolume = new();
    private readonly Dictionary<(string Volume, string FileSystem), (int Files, long Bytes)> _clonedOn = new();
    private readonly Dictionary<(string Volume, string FileSystem), (int Files, long Bytes)> _copiedOn = new();
    private int _copyTasks;
    private readonly CopyCounts _total = new();
    private string? _summaryFile;
    private LoggerVerbosity? _verbosityParameter;
    private readonly TextWriter _output = Console.Out;

    public LoggerVerbosity Verbosity { get; set; } = LoggerVerbosity.Normal;

    public string? Parameters { get; set; }

    public void Initialize(IEventSource eventSource)
    {
        foreach (string parameter in (Parameters ?? string.Empty).Split(new[] { ';' }, StringSplitOptions.RemoveEmptyEntries))
        {
            int equals = parameter.IndexOf('=');
            string name = (equals < 0 ? parameter : parameter.Substring(0, equals)).Trim();
            string value = equals < 0 ? string.Empty : parameter.Substring(equals + 1).Trim();
            if (name.Equals("SummaryFile", StringComparison.OrdinalIgnoreCase) && value.Length > 0)
            {
                _summaryFile = value;
            }
            else if ((name.Equals("Verbosity", StringComparison.OrdinalIgnoreCase) || name.Equals("v", StringComparison.OrdinalIgnoreCase)) && TryParseVerbosity(value, out LoggerVerbosity verbosity))
            {
                _verbosityParameter = verbosity;
            }
        }

        eventSource.MessageRaised += OnMessage;
        eventSource.BuildFinished += OnBuildFinished;
    }

    public void Shutdown()
    {
    }

    private LoggerVerbosity EffectiveVerbosity => _verbosityParameter ?? Verbosity;

    private void OnMessage(object sender, BuildMessageEventArgs e)
    {
        // Cheap test first: this sees every message of the build.
        string? message = e.Message;
        if (message is null || message.Length < CopyData.Prefix.Length || message[0] != 'C' || !message.StartsWith(CopyData.Prefix, StringComparison.Ordinal))
        {
            return;
        }

        CopyData? data = CopyDataReader.TryParse(message);
        if (data is null)
        {
            return;
        }

        lock (_lock)
        {
            _copyTasks++;
            _projects.Add(e.ProjectFile ?? e.BuildEventContext?.ProjectInstanceId.ToString(CultureInfo.InvariantCulture) ?? string.Empty);
            _total.Add(data);
            foreach (CopyData.ReasonEntry reason in data.Reasons)
            {
                AddTo(_reasons, (reason.Reason, reason.Detail), reason.Files, reason.Bytes);
            }

            _crossVolume.AddRange(data.CrossVolume);
            foreach (CopyData.CopiedOnEntry copied in data.CopiedOn)
            {
                AddTo(_copiedOn, (copied.Volume, copied.FileSystem), copied.Files, copied.Bytes);
            }

            if (data.ClonedOnVolume.Length > 0)
            {
                AddTo(_clonedOn, (data.ClonedOnVolume, data.ClonedOnFileSystem), data.ClonedFiles, data.ClonedBytes);
            }
        }
    }

    private void OnBuildFinished(object sender, BuildFinishedEventArgs e)
    {
        List<string> lines;
        lock (_lock)
        {
            lines = SummaryLines();
            if (_summaryFile is not null)
            {
                WriteSummaryFile(_summaryFile);
            }
        }

        if (EffectiveVerbosity == LoggerVerbosity.Quiet || (_copyTasks == 0 && EffectiveVerbosity < LoggerVerbosity.Normal))
        {
            return;
        }

        foreach (string line in lines)
        {
            _output.WriteLine(line);
        }

        _output.Flush();
    }

    /// <summary>The lines printed at the end of the build (caller holds the lock).</summary>
    internal List<string> SummaryLines()
    {
        var lines = new List<string>();
        if (_copyTasks == 0)
        {
            lines.Add("CopyOnWrite build summary: no Copy task of Microsoft.Build.CopyOnWrite ran in this build.");
            return lines;
        }

        var because = _reasons.Select(entry => new CopiedBecause(Describe(entry.Key, entry.Value.Files), entry.Value.Files)).ToList();
        var counts = new StringBuilder();
        _total.AppendDescription(counts, because);

        // One vocabulary with predict and the measurement tool: "not written, thanks to clones" is against a byte copy;
        // it is no gain over MSBuild's own Copy where File.Copy clones too (Linux, macOS, recent Windows on Dev Drive).
        const string Baseline = ", thanks to clones (MSBuild's own Copy clones too where .NET's File.Copy does).";
        string notWritten = _total.ClonedFiles == 0 ? string.Empty
            : _total.ClonedFiles == 1 ? $" The clone shares its source's storage: {FileSizeText.Format(_total.ClonedBytes)} not written{Baseline}"
            : $" The clones share their sources' storage: {FileSizeText.Format(_total.ClonedBytes)} not written{Baseline}";
        lines.Add($"CopyOnWrite build summary: {counts}; {_copyTasks} Copy {(_copyTasks == 1 ? "task" : "tasks")} in {_projects.Count} {(_projects.Count == 1 ? "project" : "projects")}.{notWritten}");

        lines.AddRange(TrafficByVolumeLines());
        foreach (CrossVolumeGroup group in CrossVolumeGroups())
        {
            lines.Add(CopyOnWriteCodes.CrossVolumeText(group.Files, group.Bytes, group.SourceRoot, group.DestinationRoot, group.Origin, inThisBuild: true));
        }

        return lines;
    }

    /// <summary>
    /// A line per source -> destination volume. Clones and same-volume copies (whose reasons the summary line gives)
    /// pair a volume with itself; copies from another volume name both.
    /// </summary>
    private IEnumerable<string> TrafficByVolumeLines()
    {
        List<VolumeTraffic> pairs = TrafficByVolume();
        if (pairs.Count == 0)
        {
            yield break;
        }

        yield return "CopyOnWrite by volume, source -> destination:";
        foreach (VolumeTraffic pair in pairs)
        {
            var what = new List<string>();
            if (pair.ClonedFiles > 0)
            {
                what.Add($"cloned {CopyCounts.Files(pair.ClonedFiles)} ({FileSizeText.Format(pair.ClonedBytes)})");
            }

            if (pair.CopiedFiles > 0)
            {
                what.Add($"copied {CopyCounts.Files(pair.CopiedFiles)} ({FileSizeText.Format(pair.CopiedBytes)}){(pair.From == pair.To ? string.Empty : ", another volume")}");
            }

            yield return $"  {pair.From} -> {pair.To}: {string.Join(", ", what)}";
        }
    }

    /// <summary>The volume pairs files went between, most bytes first: cloned within a volume, copied across two.</summary>
    private List<VolumeTraffic> TrafficByVolume()
    {
        var pairs = new List<VolumeTraffic>();
        foreach ((string Volume, string FileSystem) key in _clonedOn.Keys.Union(_copiedOn.Keys))
        {
            string volume = $"{key.Volume} ({key.FileSystem})";
            _clonedOn.TryGetValue(key, out (int Files, long Bytes) cloned);
            _copiedOn.TryGetValue(key, out (int Files, long Bytes) copied);
            pairs.Add(new VolumeTraffic(volume, volume, cloned.Files, cloned.Bytes, copied.Files, copied.Bytes));
        }

        foreach (var copied in _crossVolume.GroupBy(e => ($"{e.SourceVolume} ({e.SourceFileSystem})", $"{e.DestinationVolume} ({e.DestinationFileSystem})")))
        {
            pairs.Add(new VolumeTraffic(copied.Key.Item1, copied.Key.Item2, 0, 0, copied.Sum(e => e.Files), copied.Sum(e => e.Bytes)));
        }

        return pairs.OrderByDescending(p => p.ClonedBytes + p.CopiedBytes).ToList();
    }

    /// <summary>What went from one volume to another (or within one) in the build; not the engine's <see cref="Cloning.VolumePair"/>, which keys its cache.</summary>
    private sealed record VolumeTraffic(string From, string To, int ClonedFiles, long ClonedBytes, int CopiedFiles, long CopiedBytes);

    /// <summary>The cross-volume copies of the build, one group per pair of volumes and kind of source.</summary>
    private IEnumerable<CrossVolumeGroup> CrossVolumeGroups()
        => _crossVolume
            .GroupBy(entry => (entry.SourceVolume, entry.DestinationVolume, entry.Origin))
            .Select(group => new CrossVolumeGroup(
                group.Select(entry => entry.SourceRoot).Aggregate(NotClonedFiles.CommonFolder),
                group.Key.SourceVolume,
                group.First().SourceFileSystem,
                group.Select(entry => entry.DestinationRoot).Aggregate(NotClonedFiles.CommonFolder),
                group.Key.DestinationVolume,
                group.First().DestinationFileSystem,
                group.Key.Origin,
                group.Sum(entry => entry.Files),
                group.Sum(entry => entry.Bytes)))
            .OrderByDescending(group => group.Bytes);

    private static string Describe((string Reason, string Detail) key, int files)
        => Enum.TryParse(key.Reason, out FallbackReason reason)
            ? CopySummary.DescribeFallback(reason, key.Detail.Length == 0 ? null : key.Detail, files)
            : key.Reason;

    private void WriteSummaryFile(string path)
    {
        var json = new StringBuilder();
        json.Append('{');
        json.Append("\"copyTasks\":").Append(_copyTasks).Append(',');
        json.Append("\"projects\":").Append(_projects.Count).Append(',');
        json.Append("\"cloned\":{\"files\":").Append(_total.ClonedFiles).Append(",\"bytes\":").Append(_total.ClonedBytes).Append("},");
        json.Append("\"copied\":{\"files\":").Append(_total.CopiedFiles).Append(",\"bytes\":").Append(_total.CopiedBytes).Append("},");
        json.Append("\"linked\":{\"files\":").Append(_total.LinkedFiles).Append("},");
        json.Append("\"clonedInsteadOfLinks\":{\"files\":").Append(_total.ClonedInsteadOfLinksFiles).Append(",\"bytes\":").Append(_total.ClonedInsteadOfLinksBytes).Append("},");
        json.Append("\"replacedLinks\":{\"files\":").Append(_total.ReplacedLinksFiles).Append(",\"bytes\":").Append(_total.ReplacedLinksBytes).Append("},");
        json.Append("\"upToDate\":{\"files\":").Append(_total.UpToDateFiles).Append(",\"bytes\":").Append(_total.UpToDateBytes).Append("},");
        json.Append("\"copiedBecause\":[");
        json.Append(string.Join(",", _reasons.Select(entry =>
            $"{{\"reason\":{Json(entry.Key.Reason)},{DetailField(entry.Key)}\"text\":{Json(Describe(entry.Key, entry.Value.Files))},\"files\":{entry.Value.Files},\"bytes\":{entry.Value.Bytes}}}")));
        json.Append("],\"crossVolume\":[");
        json.Append(string.Join(",", CrossVolumeGroups().Select(group =>
            $"{{\"sourceRoot\":{Json(group.SourceRoot)},\"sourceVolume\":{Json(group.SourceVolume)},\"sourceFileSystem\":{Json(group.SourceFileSystem)},"
            + $"\"destinationRoot\":{Json(group.DestinationRoot)},\"destinationVolume\":{Json(group.DestinationVolume)},\"destinationFileSystem\":{Json(group.DestinationFileSystem)},"
            + $"\"sourceOrigin\":{Json(group.Origin.ToString())},\"accepted\":{(CopySources.IsAccepted(group.Origin) ? "true" : "false")},\"files\":{group.Files},\"bytes\":{group.Bytes}}}")));
        json.Append("],\"volumePairs\":[");
        json.Append(string.Join(",", TrafficByVolume().Select(pair =>
            $"{{\"from\":{Json(pair.From)},\"to\":{Json(pair.To)},\"cloned\":{{\"files\":{pair.ClonedFiles},\"bytes\":{pair.ClonedBytes}}},\"copied\":{{\"files\":{pair.CopiedFiles},\"bytes\":{pair.CopiedBytes}}}}}")));
        json.Append("]}");
        try
        {
            string? folder = Path.GetDirectoryName(Path.GetFullPath(path));
            if (!string.IsNullOrEmpty(folder))
            {
                Directory.CreateDirectory(folder);
            }

            File.WriteAllText(path, json.ToString());
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            _output.WriteLine($"CopyOnWrite build summary: could not write {path}: {e.Message}");
        }
    }

    /// <summary>A reason's detail under the name of what it is, so no field leaves open whose file system it names.</summary>
    private static string DetailField((string Reason, string Detail) key)
    {
        if (key.Detail.Length == 0)
        {
            return string.Empty;
        }

        string? name = key.Reason switch
        {
            nameof(FallbackReason.FileSystemCannotClone) => "destinationFileSystem",
            nameof(FallbackReason.FileSystemRefused) => "error",
            nameof(FallbackReason.PlatformCannotClone) => "processor",
            nameof(FallbackReason.EngineFailed) => "fault",
            _ => null,
        };
        return name is null ? string.Empty : $"{Json(name)}:{Json(key.Detail)},";
    }

    private static string Json(string value) => JsonText.Quote(value);

    private static void AddTo<TKey>(Dictionary<TKey, (int Files, long Bytes)> totals, TKey key, int files, long bytes)
        where TKey : notnull
    {
        totals.TryGetValue(key, out (int Files, long Bytes) sofar);
        totals[key] = (sofar.Files + files, sofar.Bytes + bytes);
    }

    private static bool TryParseVerbosity(string text, out LoggerVerbosity verbosity)
    {
        switch (text.ToLowerInvariant())
        {
            case "q": case "quiet": verbosity = LoggerVerbosity.Quiet; return true;
            case "m": case "minimal": verbosity = LoggerVerbosity.Minimal; return true;
            case "n": case "normal": verbosity = LoggerVerbosity.Normal; return true;
            case "d": case "detailed": verbosity = LoggerVerbosity.Detailed; return true;
            case "diag": case "diagnostic": verbosity = LoggerVerbosity.Diagnostic; return true;
            default: verbosity = LoggerVerbosity.Normal; return false;
        }
    }

    private sealed record CrossVolumeGroup(
        string SourceRoot,
        string SourceVolume,
        string SourceFileSystem,
        string DestinationRoot,
        string DestinationVolume,
        string DestinationFileSystem,
        SourceOrigin Origin,
        int Files,
        long Bytes);
}
