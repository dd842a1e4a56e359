using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text.Json;

namespace Microsoft.Build.CopyOnWrite.Benchmarks.FreshProcess;

/// <summary>One Copy call of a split build of the sample: which task ran it, where, and for how long.</summary>
internal sealed record SplitCopyCall(string Kind, int Round, string Variant, string Project, string Target, int Occurrence, bool FirstInNode, double Milliseconds);

/// <summary>
/// Ours against stock for one kind of build (clean or incremental), from the calls both tasks made in the same builds.
/// Per call: the mean over the builds where ours ran it against the mean over those where the stock task did; the
/// "per build" sums add those means up over the calls compared. Each node's first Copy (which loads the task) apart.
/// </summary>
internal sealed record SplitComparison(
    string Kind,
    int Builds,
    int CallsCompared,
    double StockPerBuild,
    double OursPerBuild,
    int OursSlower,
    double MedianDifference,
    IReadOnlyList<double> StockFirstInNode,
    IReadOnlyList<double> OursFirstInNode,
    IReadOnlyList<(string Target, int Calls, double StockPerBuild, double OursPerBuild)> ByTarget);

/// <summary>
/// The sample's builds with half of its projects on each task: the stock task (DisableCopyOnWrite=true, set per project)
/// in one half, ours in the other, the halves swapped from one build to the next. Every Copy call is timed by
/// <see cref="CopyCallLogger"/> and compared with the same call (project, target, order) in the builds where the other
/// task ran it. Both tasks run in the same processes at the same moments, so what drifts from one build to the next on a
/// shared machine - more than the difference sought (section 4's spread) - falls on both alike. The builds are those of
/// the measurement tool: `dotnet build` of the solution, a fresh MSBuild process, `-v:n`, the summary logger attached.
/// </summary>
internal static class SampleSplitBuilds
{
    public const string Clean = "clean";
    public const string Incremental = "incremental";
    private const string Solution = "Snowball/Snowball.sln";
    private const string TouchedFile = "Snowball/Snowball.Lib01/Layer01.cs";

    public static IReadOnlyList<SplitCopyCall> Run(string package, string samples, string mountPoint, int rounds, string loggerAssembly)
    {
        string workspace = Path.Combine(mountPoint, "sample-split");
        // The files that steer and record the builds live beside the tree, where a clean build does not remove them.
        string control = Path.Combine(mountPoint, "sample-split-control");
        Directory.CreateDirectory(control);
        var environment = new Dictionary<string, string> { ["NUGET_PACKAGES"] = Path.Combine(workspace, ".nuget-packages") };
        HashSet<string> pristine = Prepare(workspace, samples, package, environment);
        string summaryLogger = SummaryLogger(workspace, environment);
        List<string> projects = Directory.GetFiles(Path.Combine(workspace, "Snowball"), "*.csproj", SearchOption.AllDirectories)
            .Select(path => Path.GetFileNameWithoutExtension(path)).OrderBy(name => name, StringComparer.Ordinal).ToList();

        var calls = new List<SplitCopyCall>();
        for (int round = 1; round <= rounds; round++)
        {
            // Every other project (in name order) on the stock task; the other half in the next round.
            HashSet<string> stock = projects.Where((_, index) => index % 2 == round % 2).ToHashSet(StringComparer.Ordinal);
            string split = Path.Combine(control, "split.targets");
            File.WriteAllText(split, $"""
                <Project>
                  <PropertyGroup Condition="{string.Join(" or ", stock.Select(p => $"'$(MSBuildProjectName)' == '{p}'"))}">
                    <DisableCopyOnWrite>true</DisableCopyOnWrite>
                  </PropertyGroup>
                </Project>
                """);
            foreach (string kind in new[] { Clean, Incremental })
            {
                if (kind == Clean)
                {
                    RemoveOutputs(workspace, pristine);
                }
                else
                {
                    File.SetLastWriteTimeUtc(Path.Combine(workspace, TouchedFile), DateTime.UtcNow);
                }

                Native.SyncFileSystem(mountPoint);
                string callsFile = Path.Combine(control, "calls.tsv");
                string summaryFile = Path.Combine(control, "summary.json");
                File.Delete(callsFile);
                File.Delete(summaryFile);
                (int exitCode, string output, string error) = DotnetCommand.Run(workspace,
                [
                    "build", Solution, "--no-restore", "-nologo", "-nr:false", "-c", "Debug", "-v:n", "-clp:PerformanceSummary;ForceNoAlign",
                    $"-logger:{summaryLogger};SummaryFile={summaryFile}",
                    $"-logger:{typeof(CopyCallLogger).FullName},{loggerAssembly};{callsFile}",
                    $"-p:CustomAfterMicrosoftCommonTargets={split}",
                ], environment);
                if (exitCode != 0 || !File.Exists(callsFile))
                {
                    throw new InvalidOperationException($"The split {kind} build of the sample (round {round}) failed (exit code {exitCode}):\n{output}\n{error}");
                }

                List<SplitCopyCall> build = ReadCalls(callsFile, kind, round, stock);
                CheckSplit(build, summaryFile, kind, round);
                Console.WriteLine($"sample, split: round {round}/{rounds} {kind}: {build.Count} Copy calls, stock {Sum(build, FreshProcessBenchmarks.Stock):0.0} ms in {build.Count(c => c.Variant == FreshProcessBenchmarks.Stock)}, ours {Sum(build, FreshProcessBenchmarks.Ours):0.0} ms in {build.Count(c => c.Variant == FreshProcessBenchmarks.Ours)}");
                calls.AddRange(build);
            }
        }

        // The builds leave a compiler server waiting for more work: the report counts dotnet processes still alive as others'.
        DotnetCommand.Run(workspace, ["build-server", "shutdown"]);
        return calls;
    }

    public static IReadOnlyList<SplitComparison> Compare(IReadOnlyList<SplitCopyCall> calls)
    {
        var comparisons = new List<SplitComparison>();
        foreach (IGrouping<string, SplitCopyCall> ofKind in calls.GroupBy(c => c.Kind))
        {
            var pairs = ofKind.Where(c => !c.FirstInNode)
                .GroupBy(c => (c.Project, c.Target, c.Occurrence))
                .Select(g => (g.Key.Target,
                    Stock: g.Where(c => c.Variant == FreshProcessBenchmarks.Stock).Select(c => c.Milliseconds).ToList(),
                    Ours: g.Where(c => c.Variant == FreshProcessBenchmarks.Ours).Select(c => c.Milliseconds).ToList()))
                .Where(p => p.Stock.Count > 0 && p.Ours.Count > 0)
                .Select(p => (p.Target, Stock: p.Stock.Average(), Ours: p.Ours.Average()))
                .ToList();
            if (pairs.Count == 0)
            {
                continue;
            }

            comparisons.Add(new SplitComparison(
                ofKind.Key,
                ofKind.Select(c => c.Round).Distinct().Count(),
                pairs.Count,
                pairs.Sum(p => p.Stock),
                pairs.Sum(p => p.Ours),
                pairs.Count(p => p.Ours > p.Stock),
                FreshProcessReport.Median(pairs.Select(p => p.Ours - p.Stock)),
                ofKind.Where(c => c.FirstInNode && c.Variant == FreshProcessBenchmarks.Stock).Select(c => c.Milliseconds).ToList(),
                ofKind.Where(c => c.FirstInNode && c.Variant == FreshProcessBenchmarks.Ours).Select(c => c.Milliseconds).ToList(),
                pairs.GroupBy(p => p.Target)
                    .Select(g => (g.Key, g.Count(), g.Sum(p => p.Stock), g.Sum(p => p.Ours)))
                    .OrderByDescending(t => t.Item3)
                    .ToList()));
        }

        return comparisons;
    }

    /// <summary>The sample and its SDK on the volume, restored: returns every file and folder then present (what a clean build keeps).</summary>
    private static HashSet<string> Prepare(string workspace, string samples, string package, IReadOnlyDictionary<string, string> environment)
    {
        if (Directory.Exists(workspace))
        {
            Directory.Delete(workspace, recursive: true);
        }

        CopySources(samples, workspace);
        // Only the packed SDK under test: the sample has no other package.
        File.WriteAllText(Path.Combine(workspace, "NuGet.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="CopyOnWriteUnderTest" value="{Path.GetDirectoryName(package)}" />
              </packageSources>
            </configuration>
            """);
        (int exitCode, string output, string error) = DotnetCommand.Run(workspace, ["restore", Solution, "-nologo"], environment);
        if (exitCode != 0)
        {
            throw new InvalidOperationException($"Restoring the sample for the split builds failed (exit code {exitCode}):\n{output}\n{error}");
        }

        return Directory.GetFileSystemEntries(workspace, "*", SearchOption.AllDirectories).ToHashSet(StringComparer.Ordinal);
    }

    /// <summary>The sample's sources: no build output or package folder a local build may have left in the repository.</summary>
    private static void CopySources(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (string file in Directory.GetFiles(from).Where(f => Path.GetFileName(f) != "NuGet.config"))
        {
            File.Copy(file, Path.Combine(to, Path.GetFileName(file)));
        }

        foreach (string folder in Directory.GetDirectories(from))
        {
            if (Path.GetFileName(folder) is not ("bin" or "obj" or "artifacts"))
            {
                CopySources(folder, Path.Combine(to, Path.GetFileName(folder)));
            }
        }
    }

    /// <summary>The -logger: argument the SDK publishes (README, "See what it saved"), as the measurement tool passes it.</summary>
    private static string SummaryLogger(string workspace, IReadOnlyDictionary<string, string> environment)
    {
        (int exitCode, string output, string error) = DotnetCommand.Run(workspace, ["msbuild", "Directory.Build.props", "-nologo", "-getProperty:CopyOnWriteSummaryLogger"], environment);
        string logger = output.Trim();
        if (exitCode != 0 || logger.Length == 0)
        {
            throw new InvalidOperationException($"The SDK named no summary logger (exit code {exitCode}):\n{output}\n{error}");
        }

        return logger;
    }

    /// <summary>Everything the builds made, folders too (as the measurement tool's clean does): a clean build creates its folders.</summary>
    private static void RemoveOutputs(string workspace, HashSet<string> pristine)
    {
        foreach (string file in Directory.GetFiles(workspace, "*", SearchOption.AllDirectories).Where(f => !pristine.Contains(f)))
        {
            File.Delete(file);
        }

        foreach (string folder in Directory.GetDirectories(workspace, "*", SearchOption.AllDirectories).Where(f => !pristine.Contains(f)).OrderByDescending(f => f.Length))
        {
            if (Directory.Exists(folder))
            {
                Directory.Delete(folder, recursive: true);
            }
        }
    }

    private static List<SplitCopyCall> ReadCalls(string callsFile, string kind, int round, HashSet<string> stock)
    {
        var occurrences = new Dictionary<(string Project, string Target), int>();
        var calls = new List<SplitCopyCall>();
        foreach (string line in File.ReadAllLines(callsFile))
        {
            string[] fields = line.Split('\t');
            (string project, string target) = (fields[2], fields[3]);
            int occurrence = occurrences.TryGetValue((project, target), out int seen) ? seen + 1 : 1;
            occurrences[(project, target)] = occurrence;
            calls.Add(new SplitCopyCall(kind, round, stock.Contains(project) ? FreshProcessBenchmarks.Stock : FreshProcessBenchmarks.Ours,
                project, target, occurrence, fields[1] == "first", double.Parse(fields[4], CultureInfo.InvariantCulture)));
        }

        return calls;
    }

    /// <summary>
    /// The split took: our summary logger counted Copy tasks (so ours ran), no more than the projects meant for ours made (so
    /// the others ran the stock task), and both halves made calls. (It counts the calls that had files to write or skip.)
    /// </summary>
    private static void CheckSplit(List<SplitCopyCall> build, string summaryFile, string kind, int round)
    {
        int oursCalls = build.Count(c => c.Variant == FreshProcessBenchmarks.Ours);
        using JsonDocument summary = JsonDocument.Parse(File.ReadAllText(summaryFile));
        int counted = summary.RootElement.GetProperty("copyTasks").GetInt32();
        if (counted == 0 || counted > oursCalls || oursCalls == build.Count)
        {
            throw new InvalidOperationException($"The split {kind} build (round {round}) did not split: our summary logger counted {counted} Copy tasks, the projects meant for ours made {oursCalls} of {build.Count} calls.");
        }
    }

    private static double Sum(IEnumerable<SplitCopyCall> calls, string variant) => calls.Where(c => c.Variant == variant).Sum(c => c.Milliseconds);
}
