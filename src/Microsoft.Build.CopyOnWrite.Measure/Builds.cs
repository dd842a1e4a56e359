using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Text.RegularExpressions;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>One measured build.</summary>
internal sealed record BuildMeasurement(
    string Volume,
    string Variant,
    string Kind,
    int Run,
    bool Succeeded,
    double WallSeconds,
    double CopyTaskMilliseconds,
    int CopyTaskCalls,
    int? ClonedFiles,
    long? ClonedBytes,
    int FilesWritten,
    long BytesWritten,
    long? DiskUsedBytes,
    long AddedApparentBytes,
    double? LoadAverageBefore,
    double? FlushSecondsAfter,
    string LogFile);

/// <summary>Runs one `dotnet build` and reads what it did from its console log and our summary logger's JSON.</summary>
internal static partial class Builds
{
    public const string OurVariant = "copy-on-write";
    public const string StockVariant = "stock";

    public static BuildMeasurement Run(Session session, MeasuredVolume volume, Workspace workspace, string variant, string kind, int run)
    {
        string name = $"{volume.FileLabel}-{variant}-{kind}-{run}";
        string logFile = Path.Combine(session.LogFolder, name + ".log");
        string summaryFile = Path.Combine(session.LogFolder, name + ".summary.json");
        File.Delete(summaryFile);

        var arguments = new List<string>
        {
            "build", session.Options.RelativeTarget, "--no-restore", "-nologo", "-nr:false",
            "-c", session.Options.Configuration,
            "-v:n", "-clp:PerformanceSummary;ForceNoAlign",
            $"-logger:{session.SummaryLoggerArgument};SummaryFile={summaryFile}",
        };
        arguments.AddRange(session.SdkProperties);
        if (variant == StockVariant)
        {
            arguments.Add("-p:DisableCopyOnWrite=true");
        }

        var filesBefore = workspace.Snapshot();
        Reading<long> usedBefore = volume.UsedBytes(out _);
        Reading<double> load = session.Platform.LoadAverage();
        ShellResult build = Shell.Run("dotnet", arguments, workspace.Root, Session.BuildEnvironment(volume));
        Reading<long> usedAfter = volume.UsedBytes(out Reading<TimeSpan> flush);
        session.NoteNotMeasured($"Disk used on {volume.Label}", usedAfter.Unavailable ?? usedBefore.Unavailable);
        session.NoteNotMeasured("Flush after", flush.Unavailable);
        session.NoteNotMeasured("Load", load.Unavailable);
        File.WriteAllText(logFile, $"dotnet {string.Join(' ', arguments)}\n(in {workspace.Root})\n\n{build.Output}");

        (double copyMs, int copyCalls) = CopyTaskTime(build.Output);
        int? clonedFiles = null;
        long? clonedBytes = null;
        int filesWritten;
        long bytesWritten;
        if (variant == OurVariant && File.Exists(summaryFile))
        {
            using JsonDocument summary = JsonDocument.Parse(File.ReadAllText(summaryFile));
            JsonElement root = summary.RootElement;
            clonedFiles = root.GetProperty("cloned").GetProperty("files").GetInt32();
            clonedBytes = root.GetProperty("cloned").GetProperty("bytes").GetInt64();
            filesWritten = clonedFiles.Value + root.GetProperty("copied").GetProperty("files").GetInt32();
            bytesWritten = clonedBytes.Value + root.GetProperty("copied").GetProperty("bytes").GetInt64();
        }
        else
        {
            // The stock task says only "Copying file from A to B": count them, and size what arrived.
            var destinations = CopyingLine().Matches(build.Output).Select(m => m.Groups["to"].Value).Distinct(StringComparer.Ordinal).ToList();
            filesWritten = CopyingLine().Matches(build.Output).Count;
            bytesWritten = destinations.Select(path => new FileInfo(path)).Where(f => f.Exists).Sum(f => f.Length);
        }

        long apparent = workspace.BytesWrittenSince(filesBefore);
        long? diskUsed = usedAfter.Value - usedBefore.Value;
        if (diskUsed is long used && !volume.Dedicated && !Plausible(used, apparent, volume.Identity.CanClone))
        {
            session.NoteNotMeasured($"Disk used on {volume.Label} in some builds", $"the used space moved by {MeasurementReport.MiB(used)} while the build wrote {MeasurementReport.MiB(apparent)}: other programs wrote to or freed space on this shared volume meanwhile");
            diskUsed = null;
        }

        return new BuildMeasurement(volume.Label, variant, kind, run, build.Succeeded, build.Elapsed.TotalSeconds, copyMs, copyCalls,
            clonedFiles, clonedBytes, filesWritten, bytesWritten, diskUsed, apparent, load.Value, flush.Value?.TotalSeconds, logFile);
    }

    /// <summary>
    /// Whether a used-space difference on a volume others also write to can be the build's own: a build takes at most
    /// what it wrote (plus a little metadata), and on a file system that cannot clone at least most of it.
    /// </summary>
    private static bool Plausible(long used, long apparent, bool? canClone)
        => used >= (canClone == false ? apparent * 9 / 10 : 0) && used <= apparent + apparent / 10 + (8 << 20);

    /// <summary>
    /// The Copy row of the console logger's "Task Performance Summary" (-clp:PerformanceSummary): total time of
    /// all Copy task invocations, summed over nodes. (0, 0) when the build ran no Copy.
    /// </summary>
    public static (double Milliseconds, int Calls) CopyTaskTime(string output)
    {
        int section = output.LastIndexOf("Task Performance Summary:", StringComparison.Ordinal);
        if (section < 0)
        {
            return (double.NaN, 0);
        }

        foreach (string line in output[section..].Split('\n').Skip(1))
        {
            if (line.Trim().Length == 0)
            {
                break;
            }

            Match row = PerformanceRow().Match(line);
            if (row.Success && row.Groups["name"].Value == "Copy")
            {
                return (double.Parse(row.Groups["ms"].Value, CultureInfo.InvariantCulture), int.Parse(row.Groups["calls"].Value, CultureInfo.InvariantCulture));
            }
        }

        return (0, 0);
    }

    // "      269 ms  Copy                                      84 calls" (a node prefix like "1>" may precede it).
    [GeneratedRegex(@"^\s*(?:\d+>)?\s*(?<ms>\d+) ms\s+(?<name>\S+)\s+(?<calls>\d+) calls\s*$")]
    private static partial Regex PerformanceRow();

    [GeneratedRegex("Copying file from \"(?<from>[^\"]+)\" to \"(?<to>[^\"]+)\"")]
    private static partial Regex CopyingLine();
}
