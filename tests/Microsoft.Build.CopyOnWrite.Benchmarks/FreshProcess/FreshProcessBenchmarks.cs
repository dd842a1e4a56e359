using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.IO.Compression;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Benchmarks.FreshProcess;

/// <summary>One timed `dotnet msbuild` of the Copy project: the "Copy" row of -clp:PerformanceSummary.</summary>
internal sealed record FreshRun(string FileSystem, string Set, string Variant, int Round, double CopyMilliseconds, double LoadBefore)
{
    /// <summary>Lines of the diagnostic log, for the runs with a diagnostic file logger: how much each task had MSBuild log.</summary>
    public int? LogLines { get; init; }
}

/// <summary>
/// One untimed run of a case with <see cref="FreshProcessLogger"/>: what the JIT compiled while Copy ran and in the whole
/// process, and which task assembly ran. Not in the timed runs: MSBuild creates every low-importance message for a
/// logger it does not know, and that logger's own code is compiled by the JIT too.
/// </summary>
internal sealed record FreshProbe(string FileSystem, string Set, string Variant, long CopyJitMethods, double CopyJitMilliseconds, long JitMethods, string TaskAssembly);

/// <summary>
/// The cost every MSBuild node pays: a fresh `dotnet msbuild` process builds a project whose one target copies
/// the set's files into an empty folder, with our task (the packed SDK, as a user gets it) or the stock one
/// (-p:DisableCopyOnWrite=true). Rounds alternate which variant goes first; each run starts with the destination
/// deleted and the file system flushed (outside the measurement). Before the rounds, one probe run per case and
/// variant says where the JIT's time goes (<see cref="FreshProbe"/>).
/// </summary>
internal static class FreshProcessBenchmarks
{
    public const string Ours = "ours";
    public const string Stock = "stock";

    /// <summary>The sets: the issue's one large file, and a project's worth of small ones.</summary>
    public static readonly IReadOnlyList<(string Name, int Count, int Size)> Sets =
    [
        ("1 x 16 MiB", 1, 16 * Settings.MiB),
        ("200 x 16 KiB", 200, 16 * Settings.KiB),
    ];

    /// <summary>
    /// The sample's shape in one process: many Copy calls of a few files each (the sample's clean build makes 84 calls
    /// copying 565 files), on XFS. Measured twice: as above (-v:m), and with a file logger at diagnostic verbosity,
    /// which, like a binary log, -v:d or any logger MSBuild does not know (the measurement tool's summary logger),
    /// makes MSBuild create every low-importance message, ours and the stock task's.
    /// </summary>
    public const string ManyCalls = "84 calls x 7 x 16 KiB";

    /// <summary>A Copy with no file to copy, on XFS: what loading and running the task costs before any file work.</summary>
    public const string NoFiles = "no files";
    public const string ManyCallsVerbose = ManyCalls + ", diagnostic file logger";
    private const int ManyCallsCount = 84;
    private const int ManyCallsFiles = 7;

    public static (IReadOnlyList<FreshRun> Runs, IReadOnlyList<FreshProbe> Probes) Run(string package, IReadOnlyDictionary<string, string> mountPoints, int rounds, string loggerAssembly)
    {
        var workspaces = new Dictionary<string, string>();
        foreach ((string fs, string mountPoint) in mountPoints)
        {
            workspaces[fs] = Prepare(Path.Combine(mountPoint, "fresh-process"), package);
        }

        var probes = new List<FreshProbe>();
        foreach ((string fs, string workspace) in workspaces)
        {
            foreach ((string set, _, _) in Sets)
            {
                foreach (string variant in new[] { Ours, Stock })
                {
                    FreshProbe probe = Probe(workspace, mountPoints[fs], fs, set, variant, loggerAssembly);
                    Console.WriteLine($"fresh process, probe: {fs} {set} {variant}: JIT while Copy ran {probe.CopyJitMethods} methods {probe.CopyJitMilliseconds:0.0} ms, in the process {probe.JitMethods} methods; task {probe.TaskAssembly}");
                    probes.Add(probe);
                }
            }
        }

        var runs = new List<FreshRun>();
        for (int round = 1; round <= rounds; round++)
        {
            string[] order = round % 2 == 1 ? [Ours, Stock] : [Stock, Ours];
            foreach ((string fs, string workspace) in workspaces)
            {
                foreach ((string set, _, _) in Sets)
                {
                    foreach (string variant in order)
                    {
                        double load = Machine.LoadAverage() ?? double.NaN;
                        (double copyMilliseconds, _) = Build(workspace, mountPoints[fs], fs, set, variant, logger: null);
                        Console.WriteLine($"fresh process: round {round}/{rounds} {fs} {set} {variant}: Copy {copyMilliseconds} ms");
                        runs.Add(new FreshRun(fs, set, variant, round, copyMilliseconds, load));
                    }
                }
            }
        }

        if (workspaces.ContainsKey("xfs"))
        {
            string verboseLog = Path.Combine(Path.GetTempPath(), $"cow-bench-verbose-{Environment.ProcessId}.log");
            for (int round = 1; round <= rounds; round++)
            {
                string[] order = round % 2 == 1 ? [Ours, Stock] : [Stock, Ours];
                var cases = workspaces.Keys.Select(fs => (FileSystem: fs, Set: NoFiles)).Append(("xfs", ManyCalls)).Append(("xfs", ManyCallsVerbose));
                foreach ((string fs, string set) in cases)
                {
                    foreach (string variant in order)
                    {
                        double load = Machine.LoadAverage() ?? double.NaN;
                        string[] extra = set == ManyCallsVerbose ? [$"-flp:v=diag;logfile={verboseLog}"] : [];
                        (double copyMilliseconds, _) = Build(workspaces[fs], mountPoints[fs], fs, set, variant, logger: null, extra);
                        int? logLines = set == ManyCallsVerbose ? File.ReadLines(verboseLog).Count() : null;
                        Console.WriteLine($"fresh process: round {round}/{rounds} {fs} {set} {variant}: Copy {copyMilliseconds} ms{(logLines is null ? string.Empty : $", {logLines} log lines")}");
                        runs.Add(new FreshRun(fs, set, variant, round, copyMilliseconds, load) { LogLines = logLines });
                    }
                }
            }

            File.Delete(verboseLog);
        }

        return (runs, probes);
    }

    /// <summary>The package extracted, the sources written and one project per set, under <paramref name="workspace"/>.</summary>
    private static string Prepare(string workspace, string package)
    {
        if (Directory.Exists(workspace))
        {
            Directory.Delete(workspace, recursive: true);
        }

        string sdk = Path.Combine(workspace, "package");
        ZipFile.ExtractToDirectory(package, sdk);
        var random = new Random(12);
        foreach ((string set, int count, int size) in Sets)
        {
            string folder = Path.Combine(workspace, SetFolder(set));
            Directory.CreateDirectory(Path.Combine(folder, "src"));
            var bytes = new byte[size];
            for (int i = 0; i < count; i++)
            {
                random.NextBytes(bytes);
                File.WriteAllBytes(Path.Combine(folder, "src", $"file{i:000}.bin"), bytes);
            }

            File.WriteAllText(Path.Combine(folder, "copy.proj"), $"""
                <Project>
                  <Import Project="{sdk}/Sdk/Sdk.props" />
                  <ItemGroup><Source Include="src/*.bin" /></ItemGroup>
                  <Target Name="Build"><Copy SourceFiles="@(Source)" DestinationFolder="out" /></Target>
                  <Import Project="{sdk}/Sdk/Sdk.targets" />
                </Project>
                """);
        }

        // One Copy call per folder (batching on the Group metadata), each into a folder of its own, like a project's copies.
        string manyCalls = Path.Combine(workspace, SetFolder(ManyCalls));
        var small = new byte[16 * Settings.KiB];
        for (int call = 1; call <= ManyCallsCount; call++)
        {
            string group = Path.Combine(manyCalls, "src", $"g{call:00}");
            Directory.CreateDirectory(group);
            for (int i = 1; i <= ManyCallsFiles; i++)
            {
                random.NextBytes(small);
                File.WriteAllBytes(Path.Combine(group, $"file{i}.bin"), small);
            }
        }

        string noFiles = Path.Combine(workspace, SetFolder(NoFiles));
        Directory.CreateDirectory(noFiles);
        File.WriteAllText(Path.Combine(noFiles, "copy.proj"), $"""
            <Project>
              <Import Project="{sdk}/Sdk/Sdk.props" />
              <Target Name="Build"><Copy SourceFiles="@(NoSuchItem)" DestinationFolder="out" /></Target>
              <Import Project="{sdk}/Sdk/Sdk.targets" />
            </Project>
            """);
        File.WriteAllText(Path.Combine(manyCalls, "copy.proj"), $"""
            <Project>
              <Import Project="{sdk}/Sdk/Sdk.props" />
              <ItemGroup><Source Include="src/**/*.bin" Group="%(RecursiveDir)" /></ItemGroup>
              <Target Name="Build"><Copy SourceFiles="@(Source)" DestinationFolder="out/%(Source.Group)" /></Target>
              <Import Project="{sdk}/Sdk/Sdk.targets" />
            </Project>
            """);
        return workspace;
    }

    private static FreshProbe Probe(string workspace, string mountPoint, string fs, string set, string variant, string loggerAssembly)
    {
        string result = Path.Combine(workspace, "logger-result.txt");
        File.Delete(result);
        Build(workspace, mountPoint, fs, set, variant, logger: $"{typeof(FreshProcessLogger).FullName},{loggerAssembly};{result}");
        Dictionary<string, string> facts = File.ReadAllLines(result).Select(line => line.Split('=', 2)).ToDictionary(pair => pair[0], pair => pair[1]);
        string assembly = facts["taskAssembly"];
        if (variant == Ours ? assembly == "stock" : assembly != "stock")
        {
            throw new InvalidOperationException($"The {variant} build of {set} on {fs} ran the wrong task (task assembly: {assembly}).");
        }

        return new FreshProbe(fs, set, variant,
            long.Parse(facts["copyJitMethods"], CultureInfo.InvariantCulture), double.Parse(facts["copyJitMilliseconds"], CultureInfo.InvariantCulture),
            long.Parse(facts["jitMethods"], CultureInfo.InvariantCulture), assembly);
    }

    /// <summary>One fresh `dotnet msbuild` of the case into an empty, flushed destination: the "Copy" row (ms) and the output.</summary>
    private static (double CopyMilliseconds, string Output) Build(string workspace, string mountPoint, string fs, string set, string variant, string? logger, params string[] extraArguments)
    {
        string folder = Path.Combine(workspace, SetFolder(set == ManyCallsVerbose ? ManyCalls : set));
        string output = Path.Combine(folder, "out");
        if (Directory.Exists(output))
        {
            Directory.Delete(output, recursive: true);
        }

        Native.SyncFileSystem(mountPoint);

        var arguments = new List<string> { "msbuild", "copy.proj", "-nr:false", "-nologo", "-v:m", "-clp:PerformanceSummary" };
        if (logger is not null)
        {
            arguments.Add("-logger:" + logger);
        }

        if (variant == Stock)
        {
            arguments.Add("-p:DisableCopyOnWrite=true");
        }

        arguments.AddRange(extraArguments);
        (int exitCode, string text, string error) = DotnetCommand.Run(folder, arguments);
        double? copyMs = PerformanceSummary.Milliseconds(text, PerformanceSummary.Tasks, "Copy");
        int expectedFiles = set switch
        {
            NoFiles => 0,
            ManyCalls or ManyCallsVerbose => ManyCallsCount * ManyCallsFiles,
            _ => Sets.Single(s => s.Name == set).Count,
        };
        int copied = Directory.Exists(output) ? Directory.GetFiles(output, "*", SearchOption.AllDirectories).Length : 0;
        if (exitCode != 0 || copyMs is null || copied != expectedFiles)
        {
            throw new InvalidOperationException($"The {variant} build of {set} on {fs} failed or said nothing measurable (exit code {exitCode}, {copied} of {expectedFiles} files copied):\n{text}\n{error}");
        }

        return (copyMs.Value, text);
    }

    private static string SetFolder(string set) => set.Replace(" ", string.Empty, StringComparison.Ordinal);
}
