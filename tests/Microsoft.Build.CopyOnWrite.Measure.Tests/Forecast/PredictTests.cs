using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using Microsoft.Build.CopyOnWrite.Measure;
using Microsoft.Build.CopyOnWrite.Measure.Forecast;
using Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Forecast;

/// <summary>
/// predict on binary logs of real `dotnet build -bl` runs of a small project with MSBuild's own Copy task (no SDK of
/// ours), on the machine's temp volume (ext4 here): what it counts is what the build copied, file for file.
/// </summary>
[TestClass]
public sealed class PredictTests
{
    // Sizes that straddle the no-gain threshold (16 KiB): two large, one small, one empty.
    private static readonly (string Name, int Bytes)[] DataFiles = [("model.bin", 3 << 20), ("texture.bin", 1 << 20), ("settings.json", 2000), ("empty.txt", 0)];

    private static readonly Lazy<(string Folder, string First, string Second)> Builds = new(BuildTwice);

    [TestMethod]
    public void A_stock_clean_build_forecasts_exactly_the_files_and_bytes_it_copied()
    {
        (string folder, string firstLog, _) = Builds.Value;
        string[] written = ["bin/Debug/net10.0/Lib.dll", "bin/Debug/net10.0/Lib.pdb", .. DataFiles.SelectMany(d => new[] { $"bin/Debug/net10.0/{d.Name}", $"stage/{d.Name}" })];
        FileInfo[] onDisk = written.Select(p => new FileInfo(Path.Combine(folder, p))).ToArray();
        FileInfo[] nonEmpty = onDisk.Where(f => f.Length > 0).ToArray();

        CopyForecast forecast = PredictCommand.Forecast(firstLog);
        BuildCopies copies = BinaryLogCopies.Read(firstLog);

        CollectionAssert.AreEquivalent(onDisk.Select(f => f.FullName).ToList(), copies.CopyTasks.SelectMany(t => t.Files).Select(f => f.Destination).ToList(), "the destinations the Copy messages name are the files the build wrote");
        Assert.AreEqual(onDisk.Length, forecast.Written);
        Assert.AreEqual(nonEmpty.Length, forecast.Clonable, "every non-empty copied file would clone");
        Assert.AreEqual(nonEmpty.Sum(f => f.Length), forecast.ClonableBytes);
        Assert.AreEqual(2, forecast.Empty, "the empty file, in bin/ and in stage/");
        Assert.AreEqual(nonEmpty.Count(f => f.Length <= 16 * 1024), forecast.Small);
        Assert.AreEqual(nonEmpty.Sum(f => f.Length), forecast.OutputBytes, "each destination written once");
        Assert.AreEqual(0, forecast.OurCopyTasks, "MSBuild's own Copy task");
        CopiesBetweenVolumes pair = forecast.Pairs.Single();
        Assert.IsTrue(pair.SameVolume);
        Assert.IsFalse(pair.Source.CanClone, pair.Source.Evidence);
        Assert.IsTrue(forecast.CopyWallMilliseconds > 0 && forecast.CopyWallMilliseconds <= forecast.CopyMilliseconds + 0.001, $"{forecast.CopyWallMilliseconds} ms of {forecast.CopyMilliseconds} ms");
        Assert.IsTrue(forecast.CopyWallMilliseconds < forecast.WallSeconds * 1000);
    }

    [TestMethod]
    public void Files_skipped_as_up_to_date_by_a_second_build_are_not_counted()
    {
        (_, _, string secondLog) = Builds.Value;

        CopyForecast forecast = PredictCommand.Forecast(secondLog);

        Assert.AreEqual(0, forecast.Written, ForecastReport.Text(forecast));
        Assert.AreEqual(0, forecast.Clonable);
        Assert.AreEqual(0L, forecast.ClonableBytes);
        Assert.AreEqual(0.0, forecast.CopyWallMilliseconds, "no Copy with work for a clone ran");
        Assert.IsTrue(forecast.SkippedUnchanged >= DataFiles.Length, $"the staged files were skipped: {forecast.SkippedUnchanged}");
    }

    [TestMethod]
    public void A_package_cache_on_another_volume_is_grouped_apart_and_named_as_the_move_that_unlocks_most()
    {
        LoopFileSystem xfs = LoopFileSystems.Xfs;
        string cache = xfs.NewFolder("packages");
        var packageFiles = new[] { ("a.dll", 2 << 20), ("b.dll", 3 << 20) };
        foreach ((string name, int bytes) in packageFiles)
        {
            File.WriteAllBytes(Path.Combine(cache, name), RandomNumberGenerator.GetBytes(bytes));
        }

        string folder = TestScratch.NewFolder("predict-cache");
        WriteProject(folder, $"""
            <ItemGroup><None Include="{cache}/*.dll" CopyToOutputDirectory="PreserveNewest" /></ItemGroup>
            """);
        string log = Build(folder, "cache.binlog");

        CopyForecast forecast = PredictCommand.Forecast(log);

        CopiesBetweenVolumes fromCache = forecast.Pairs.Single(p => !p.SameVolume);
        Assert.AreEqual("xfs", fromCache.Source.FileSystem);
        Assert.AreEqual(xfs.MountPoint, fromCache.Source.MountPoint);
        Assert.AreEqual(true, fromCache.Source.CanClone, fromCache.Source.Evidence);
        Assert.AreEqual(packageFiles.Length, fromCache.Files);
        Assert.AreEqual(packageFiles.Sum(p => (long)p.Item2), fromCache.Bytes);
        CopiesBetweenVolumes local = forecast.Pairs.Single(p => p.SameVolume);
        Assert.AreEqual(fromCache.Destination.Key, local.Source.Key, "the outputs' own copies stay on the temp volume");
        Assert.AreSame(fromCache, forecast.BestMove);
        StringAssert.Contains(ForecastReport.Move(forecast), $"{MeasurementReport.MiB(5 << 20)} of {MeasurementReport.MiB(forecast.ClonableBytes)} come from {xfs.MountPoint} (xfs");
    }

    [TestMethod]
    public void A_build_on_btrfs_copies_within_one_volume_that_the_volume_component_finds_clones_and_no_move_is_needed()
    {
        LoopFileSystem btrfs = LoopFileSystems.Btrfs;
        string folder = DataFilesProject(btrfs.NewFolder("predict-btrfs"));

        CopyForecast forecast = PredictCommand.Forecast(Build(folder, "btrfs.binlog"));

        CopiesBetweenVolumes pair = forecast.Pairs.Single();
        Assert.IsTrue(pair.SameVolume);
        Assert.AreEqual(btrfs.MountPoint, pair.Source.MountPoint);
        Assert.AreEqual("btrfs", pair.Source.FileSystem);
        Assert.AreEqual(true, pair.Source.CanClone, pair.Source.Evidence);
        StringAssert.Contains(pair.Source.Evidence, "probe clone (FICLONE)", "a probe in one of the build's folders, not the file system's name");
        Assert.IsTrue(pair.ClonesHere);
        Assert.IsNull(forecast.BestMove, "everything already clones here");
    }

    /// <summary>
    /// On XFS MSBuild's own Copy clones already (.NET's File.Copy asks for a clone first on Linux): predict must count
    /// those files as clones already, claim no disk for them, and say what our SDK adds there instead.
    /// </summary>
    [TestMethod]
    public void A_stock_build_on_XFS_where_File_Copy_clones_already_claims_no_disk_saving_and_says_what_the_SDK_adds()
    {
        LoopFileSystem xfs = LoopFileSystems.Xfs;
        string folder = DataFilesProject(xfs.NewFolder("predict-xfs-stock"));

        string log = Build(folder, "xfs-stock.binlog");
        CopyForecast forecast = PredictCommand.Forecast(log);
        string text = ForecastReport.Text(forecast);

        // The premise, from the file system: the stock task's copy of model.bin shares its source's blocks.
        ProcessResult extents = ProcessRunner.Run("filefrag", "-v", Path.Combine(folder, "bin", "Debug", "net10.0", "model.bin"));
        StringAssert.Contains(extents.Output, "shared", "MSBuild's own Copy cloned on XFS");
        Assert.AreEqual(0, forecast.OurCopyTasks, "MSBuild's own Copy task");
        Assert.AreEqual(0, forecast.Clonable, text);
        Assert.AreEqual(0L, forecast.OutputBytes, "clones take no disk of their own:\n" + text);
        Assert.AreEqual(DataFiles.Count(d => d.Bytes > 0) + 2, forecast.AlreadyCloned, "the data files, Lib.dll and Lib.pdb:\n" + text);
        Assert.IsTrue(forecast.Pairs.Single().AlreadyClones, text);
        Assert.IsNull(forecast.BestMove, text);
        StringAssert.Contains(ForecastReport.Move(forecast), "are clones already");
        StringAssert.Contains(ForecastReport.Move(forecast), "would save no disk or time here");
        StringAssert.Contains(text, "atomic replace");
    }

    [TestMethod]
    public void The_ceiling_counts_overlapping_copies_once()
    {
        var start = new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        CopyTaskRun Run(int fromMs, int toMs) => new("P", start.AddMilliseconds(fromMs), start.AddMilliseconds(toMs), false, [], 0);

        TimeSpan wall = CopyForecast.WallTimeOf([Run(0, 100), Run(50, 150), Run(300, 310), Run(120, 140)]);

        Assert.AreEqual(160.0, wall.TotalMilliseconds, 0.001);
    }

    [TestMethod]
    public void A_missing_file_is_one_line_naming_it_and_exit_code_2()
    {
        string missing = Path.Combine(TestScratch.NewFolder("predict-missing"), "msbuild.binlog");

        (int exitCode, string output, string error) = Predict(missing);

        AssertBadInput(exitCode, output, error, missing, "no such file");
    }

    [TestMethod]
    public void A_file_that_is_not_a_binary_log_is_one_line_naming_it_and_exit_code_2()
    {
        string text = Path.Combine(TestScratch.NewFolder("predict-text"), "build.binlog");
        File.WriteAllText(text, "Build succeeded.\n    0 Warning(s)\n");

        (int exitCode, string output, string error) = Predict(text);

        AssertBadInput(exitCode, output, error, text, "not a binary log");
    }

    [TestMethod]
    public void A_binary_log_cut_short_is_one_line_naming_it_and_exit_code_2()
    {
        (_, string firstLog, _) = Builds.Value;
        string cut = Path.Combine(TestScratch.NewFolder("predict-cut"), "cut.binlog");
        // The first 4 KiB: the build's start and evaluation, long before its Copy tasks and its end. (Half of a small
        // build's log can still hold every event: the project files embedded at its end make up most of it.)
        File.WriteAllBytes(cut, File.ReadAllBytes(firstLog)[..4096]);

        (int exitCode, string output, string error) = Predict(cut);

        // Where the cut falls decides which of the two the reader meets: a record it cannot read, or no end of build.
        Assert.IsTrue(error.Contains("not a binary log", StringComparison.Ordinal) || error.Contains("ends before its build did", StringComparison.Ordinal), error);
        AssertBadInput(exitCode, output, error, cut, "predict");
    }

    [TestMethod]
    public void A_binary_log_of_a_build_without_a_copy_is_one_line_naming_it_and_exit_code_2()
    {
        string folder = TestScratch.NewFolder("predict-nocopy");
        File.WriteAllText(Path.Combine(folder, "nocopy.proj"), """
            <Project><Target Name="Build"><Message Text="nothing to copy" /></Target></Project>
            """);
        string log = Path.Combine(folder, "nocopy.binlog");
        BinaryLogs.Of(Path.Combine(folder, "nocopy.proj"), log);

        (int exitCode, string output, string error) = Predict(log);

        AssertBadInput(exitCode, output, error, log, "ran no Copy task");
    }

    [TestMethod]
    public void Predict_is_a_command_of_its_own_that_needs_no_volume()
    {
        System.CommandLine.ParseResult result = CommandLine.Create((_, _) => 0).Parse(["predict", "msbuild.binlog", "--json", "forecast.json"]);

        Assert.AreEqual(0, result.Errors.Count, string.Join("; ", result.Errors.Select(e => e.Message)));
        Assert.AreEqual("predict", result.CommandResult.Command.Name);
    }

    private static (string Folder, string First, string Second) BuildTwice()
    {
        string folder = TestScratch.NewFolder("predict-stock");
        foreach ((string name, int bytes) in DataFiles)
        {
            File.WriteAllBytes(Path.Combine(folder, name), RandomNumberGenerator.GetBytes(bytes));
        }

        // A library's own copies (dll and pdb to bin/, content files with PreserveNewest), and a staging step of the
        // kind many repositories add, with SkipUnchangedFiles so that a second build finds it all up to date.
        WriteProject(folder, """
            <ItemGroup><None Include="@(DataFile)" CopyToOutputDirectory="PreserveNewest" /></ItemGroup>
            <Target Name="Stage" AfterTargets="Build">
              <Copy SourceFiles="@(DataFile)" DestinationFolder="stage" SkipUnchangedFiles="true" />
            </Target>
            """, DataFiles.Select(d => d.Name));
        return (folder, Build(folder, "first.binlog"), Build(folder, "second.binlog"));
    }

    /// <summary>In <paramref name="folder"/>, the data files and a project that copies them to its output; returns the folder.</summary>
    private static string DataFilesProject(string folder)
    {
        WriteProject(folder, """<ItemGroup><None Include="@(DataFile)" CopyToOutputDirectory="PreserveNewest" /></ItemGroup>""", DataFiles.Select(d => d.Name));
        foreach ((string name, int bytes) in DataFiles)
        {
            File.WriteAllBytes(Path.Combine(folder, name), RandomNumberGenerator.GetBytes(bytes));
        }

        return folder;
    }

    private static void WriteProject(string folder, string body, IEnumerable<string>? dataFiles = null)
    {
        string items = string.Concat((dataFiles ?? []).Select(d => $"<DataFile Include=\"{d}\" />"));
        File.WriteAllText(Path.Combine(folder, "Lib.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup><TargetFramework>net10.0</TargetFramework><GenerateDocumentationFile>false</GenerateDocumentationFile></PropertyGroup>
              <ItemGroup>{items}</ItemGroup>
              {body}
            </Project>
            """);
        File.WriteAllText(Path.Combine(folder, "Greeting.cs"), "namespace Lib; public static class Greeting { public static string Text => \"hello\"; }");
    }

    private static string Build(string folder, string logName) => BinaryLogs.Of(Path.Combine(folder, "Lib.csproj"), Path.Combine(folder, logName), restore: true);

    private static (int ExitCode, string Output, string Error) Predict(string binaryLog)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        int exitCode = PredictCommand.Run(binaryLog, json: null, output, error);
        return (exitCode, output.ToString(), error.ToString());
    }

    private static void AssertBadInput(int exitCode, string output, string error, string path, string why)
    {
        Assert.AreEqual(Program.BadInput, exitCode, error);
        Assert.AreEqual(string.Empty, output);
        string[] lines = error.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.AreEqual(1, lines.Length, error);
        StringAssert.Contains(lines[0], path);
        StringAssert.Contains(lines[0], why);
    }
}
