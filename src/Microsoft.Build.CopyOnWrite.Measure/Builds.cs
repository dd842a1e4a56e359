using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Text.RegularExpressions;

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
    long DiskUsedBytes,
    long AddedApparentBytes,
    double LoadAverageBefore,
    double FlushSecondsAfter,
    string LogFile);

/// <summary>Runs one `dotnet build` and reads what it did from its console log and our summary logger's JSON.</summary>
internal static partial class Builds
{
    public const string OurVariant = "copy-on-write";
    public const string StockVariant = "stock";

    public static BuildMeasurement Run(Session session, Volume volume, Workspace workspace, string variant, string kind, int run)
    {
        string name = $"{volume.Label}-{variant}-{kind}-{run}";
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

        long usedBefore = volume.UsedBytes();
        double load = LoadAverage();
        ShellResult build = Shell.Run("dotnet", arguments, workspace.Root, session.BuildEnvironment(volume));
        long usedAfter = volume.UsedBytes(out TimeSpan flush);
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

        return new BuildMeasurement(volume.Label, variant, kind, run, build.Succeeded, build.Elapsed.TotalSeconds, copyMs, copyCalls,
            clonedFiles, clonedBytes, filesWritten, bytesWritten, usedAfter - usedBefore, workspace.AddedBytes(), load, flush.TotalSeconds, logFile);
    }

    /// <summary>The 1-minute load average before a build: well above 0 means something else was using the processors.</summary>
    private static double LoadAverage()
        => File.Exists("/proc/loadavg") && double.TryParse(File.ReadAllText("/proc/loadavg").Split(' ')[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double load) ? load : double.NaN;

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
