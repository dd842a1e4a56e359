using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Benchmarks;

/// <summary>
/// The benchmark program (tests/Microsoft.Build.CopyOnWrite.Benchmarks) keeps compiling and running: its one-Copy-call
/// benchmark (section 5 of docs/results/benchmarks.md) in its smoke mode, a reduced matrix of 1 and 20 files of 1 KiB, new and
/// existing destinations, both loggers, 3 iterations, on ext4 and on XFS. Its numbers are not looked at, only that
/// every case has them.
/// </summary>
[TestClass]
public sealed class CopyCallBenchmarkSmokeTests
{
    private static readonly int[] FileCounts = [1, 20];
    private static readonly string[] Destinations = ["new", "existing"];
    private static readonly string[] LoggingLevels = ["normal", "low"];

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void The_copy_call_benchmark_runs_in_smoke_mode_and_reports_both_tasks_for_every_case(string fileSystem)
    {
        string folder = FolderOn(fileSystem);
        string scratch = TestScratch.NewFolder("calls-smoke");
        string report = Path.Combine(scratch, "calls.md");
        var environment = new Dictionary<string, string?>
        {
            ["COW_BENCH_XFS"] = null,
            ["COW_BENCH_BTRFS"] = null,
            ["COW_BENCH_EXT4"] = null,
            ["COW_BENCH_" + fileSystem.ToUpperInvariant()] = folder,
            ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
            // The test host's own MSBuild variables must not steer the program's MSBuildLocator.
            ["MSBuildExtensionsPath"] = null,
            ["MSBuildSDKsPath"] = null,
            ["MSBUILD_EXE_PATH"] = null,
        };

        // From the repository's root, as build/benchmark.sh runs it: global.json there picks the SDK whose Copy is "stock".
        ProcessResult run = ProcessRunner.Run(
            "dotnet",
            [RepositoryLayout.Benchmarks, "--only", "calls", "--smoke", "--out", report, "--artifacts", Path.Combine(scratch, "artifacts")],
            RepositoryLayout.Root,
            environment,
            TimeSpan.FromMinutes(2));

        Assert.AreEqual(0, run.ExitCode, "The benchmark program failed:\n" + run.Output);
        Assert.IsTrue(File.Exists(report), "The benchmark program wrote no report:\n" + run.Output);
        string markdown = File.ReadAllText(report);
        int section = markdown.IndexOf("\n## 5. One Copy call", StringComparison.Ordinal);
        Assert.IsTrue(section >= 0, "The report has no section 5 (one Copy call):\n" + markdown);
        string calls = markdown[section..];
        calls = calls[..calls.IndexOf("\n## ", 1, StringComparison.Ordinal)];
        StringAssert.Contains(calls, "| file system | files | size | destination | logging | stock Copy (µs per call) | our Copy (µs per call) |");
        StringAssert.Contains(calls, $"{fileSystem}: `normal`: 0 data lines received", "the report states the logging check");
        StringAssert.Contains(calls, "`low`: 1 data line received", "the report states the logging check");

        string[][] rows = calls.Split('\n')
            .Where(line => line.StartsWith($"| {fileSystem} | ", StringComparison.Ordinal))
            .Select(line => line.Trim().Trim('|').Split(" | ").Select(cell => cell.Trim()).ToArray())
            .Where(cells => cells.Length >= 7 && cells[3] is "new" or "existing") // the main table's rows, not the per-file table's
            .ToArray();
        var missing = new List<string>();
        foreach (int files in FileCounts)
        {
            foreach (string destination in Destinations)
            {
                foreach (string logging in LoggingLevels)
                {
                    string[]? row = rows.SingleOrDefault(cells => cells[1] == files.ToString(CultureInfo.InvariantCulture) && cells[2] == "1 KiB" && cells[3] == destination && cells[4] == logging);
                    if (row is null)
                    {
                        missing.Add($"{files} x 1 KiB {destination} {logging}: no row");
                        continue;
                    }

                    foreach ((string task, string cell) in new[] { ("stock", row[5]), ("ours", row[6]) })
                    {
                        if (Microseconds(cell) is not > 0)
                        {
                            missing.Add($"{files} x 1 KiB {destination} {logging}: {task} not measured (\"{cell}\")");
                        }
                    }
                }
            }
        }

        Assert.AreEqual(0, missing.Count, $"Cases missing from the report's table on {fileSystem}:\n{string.Join("\n", missing)}\n\n{calls}");
        Assert.AreEqual(FileCounts.Length * Destinations.Length * LoggingLevels.Length, rows.Length, "one row per case run:\n" + calls);
    }

    /// <summary>"65.7 (sd 4.62)": the median; null for "failed" or anything else.</summary>
    private static double? Microseconds(string cell)
        => double.TryParse(cell.Split(' ')[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double value) ? value : null;

    /// <summary>
    /// ext4: a scratch folder in the temp folder, which is on the checkout's ext4 disk here (a loop-mounted ext4 where
    /// it is not, e.g. a tmpfs); XFS: the suite's loop-mounted XFS with reflink. Skipped with the reason when none can be made.
    /// </summary>
    private static string FolderOn(string fileSystem)
    {
        if (fileSystem == "ext4")
        {
            string folder = TestScratch.NewFolder("calls-smoke-ext4");
            ProcessResult type = ProcessRunner.Run("stat", "-f", "-c", "%T", folder);
            if (type.Succeeded && type.Output.Trim() == "ext2/ext3")
            {
                return folder;
            }
        }

        return LoopFileSystems.Require(fileSystem).NewFolder("calls-smoke");
    }
}
