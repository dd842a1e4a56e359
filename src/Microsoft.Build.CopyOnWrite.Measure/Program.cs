using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>Everything the runs of one invocation share.</summary>
internal sealed class Session
{
    public Session(Options options, string packageFolder, string packageVersion, string logFolder)
    {
        Options = options;
        PackageFolder = packageFolder;
        PackageVersion = packageVersion;
        LogFolder = logFolder;
    }

    public Options Options { get; }
    public string PackageFolder { get; }
    public string PackageVersion { get; }
    public string LogFolder { get; }

    /// <summary>The installed SDK in the current volume's package cache (set per volume).</summary>
    public string SdkFolder { get; set; } = string.Empty;

    public string SummaryLoggerArgument => $"Microsoft.Build.CopyOnWrite.Savings.CopyOnWriteSummaryLogger,{Path.Combine(SdkFolder, "tools", "net8.0", "Microsoft.Build.CopyOnWrite.dll")}";

    /// <summary>
    /// Imports our Sdk.targets into every project through the common targets' CustomAfterMicrosoftCommonTargets
    /// hook, so a repository that does not reference the SDK is measured too. A repository that does import it
    /// (like samples/) keeps its own import: Sdk.targets is guarded against a second import.
    /// </summary>
    public IEnumerable<string> SdkProperties => [$"-p:CustomAfterMicrosoftCommonTargets={Path.Combine(SdkFolder, "Sdk", "Sdk.targets")}"];

    /// <summary>A package cache on the measured volume (where clones from it can happen, as on a Dev Drive), fresh MSBuild processes.</summary>
    public Dictionary<string, string?> BuildEnvironment(Volume volume) => new()
    {
        ["NUGET_PACKAGES"] = Path.Combine(volume.Root, "nuget-packages"),
        ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
        ["DOTNET_NOLOGO"] = "1",
        ["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1",
        ["MSBUILDDISABLENODEREUSE"] = "1",
        ["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0",
        ["MSBUILDTERMINALLOGGER"] = "off",
        ["MSBuildExtensionsPath"] = null,
        ["MSBuildSDKsPath"] = null,
        ["MSBUILD_EXE_PATH"] = null,
    };
}

internal static class Program
{
    private static readonly Stopwatch Clock = Stopwatch.StartNew();

    public static int Main(string[] args)
    {
        try
        {
            Options options = Options.Parse(args);
            if (options.HelpRequested)
            {
                Console.WriteLine(Options.Usage);
                return 0;
            }

            Run(options);
            return 0;
        }
        catch (MeasureException e)
        {
            Console.Error.WriteLine(e.Message);
            return 2;
        }
    }

    private static void Run(Options options)
    {
        string scratch = Path.Combine(options.Work, DateTime.UtcNow.ToString("yyyyMMdd-HHmmss") + "-" + Environment.ProcessId);
        Directory.CreateDirectory(scratch);
        Directory.CreateDirectory(options.Out);
        string logFolder = Path.Combine(options.Out, "logs");
        Directory.CreateDirectory(logFolder);

        Progress($"Measuring {options.Target} (copied from {options.Root}); {options.Runs} runs on {string.Join(", ", options.Volumes)}; report in {options.Out}");
        (string packageFolder, string version) = PreparePackage(options, scratch);
        var session = new Session(options, packageFolder, version, logFolder);
        var machine = MachineInfo.Read(options.Root!);
        var results = new List<BuildMeasurement>();
        var volumes = new List<(string Label, string FileSystem, string Description)>();
        int totalBuilds = options.Volumes.Count * (1 + options.Runs * 4);
        int done = 0;

        foreach (string label in options.Volumes)
        {
            Progress($"[{label}] making the volume");
            Volume volume = Volume.Create(label, scratch, options.VolumeSizeMiB);
            volumes.Add((label, volume.FileSystem, volume.Description));
            try
            {
                Workspace workspace = PrepareWorkspace(session, volume);

                // One unmeasured build first: the first build after a copy pays for cold caches, whichever variant it is.
                Progress($"[{label}] warm-up build (not measured)");
                BuildMeasurement warmUp = Builds.Run(session, volume, workspace, Builds.OurVariant, "warmup", 0);
                Check(warmUp);
                done++;
                workspace.Clean();

                for (int run = 1; run <= options.Runs; run++)
                {
                    // Alternate which variant goes first, so neither always builds right after the other's cleanup.
                    string[] order = run % 2 == 1 ? [Builds.OurVariant, Builds.StockVariant] : [Builds.StockVariant, Builds.OurVariant];
                    foreach (string variant in order)
                    {
                        workspace.Clean();
                        BuildMeasurement clean = Builds.Run(session, volume, workspace, variant, "clean", run);
                        Check(clean);
                        results.Add(clean);
                        Report(++done, totalBuilds, clean);

                        if (options.Touch is not null)
                        {
                            File.SetLastWriteTimeUtc(Path.Combine(workspace.Root, options.Touch), DateTime.UtcNow);
                        }

                        BuildMeasurement incremental = Builds.Run(session, volume, workspace, variant, "incremental", run);
                        Check(incremental);
                        results.Add(incremental);
                        Report(++done, totalBuilds, incremental);
                    }
                }

                workspace.Clean();
            }
            finally
            {
                if (options.Keep)
                {
                    Progress($"[{label}] kept at {volume.Root} (--keep): unmount it yourself");
                }
                else
                {
                    volume.Dispose();
                }
            }
        }

        var report = new MeasurementReport(options, session, machine, volumes, results);
        report.WriteAll(options.Out);
        Console.WriteLine();
        Console.WriteLine(report.ConsoleTable());
        Progress($"Report: {Path.Combine(options.Out, "measurement.md")}, measurement.json, chart.svg; build logs in {logFolder}");
        if (!options.Keep)
        {
            try
            {
                Directory.Delete(scratch, recursive: true);
            }
            catch (IOException)
            {
            }
        }
    }

    private static void Check(BuildMeasurement build)
    {
        if (!build.Succeeded)
        {
            throw new MeasureException($"The {build.Variant} {build.Kind} build on {build.Volume} failed; see {build.LogFile}:\n{Shell.Tail(File.ReadAllText(build.LogFile), 40)}");
        }
    }

    private static void Report(int done, int total, BuildMeasurement build)
    {
        double perBuild = Clock.Elapsed.TotalSeconds / Math.Max(1, done);
        TimeSpan left = TimeSpan.FromSeconds(perBuild * (total - done));
        string files = build.ClonedFiles is int cloned
            ? $"cloned {cloned}, copied {build.FilesWritten - cloned}"
            : $"{build.FilesWritten} files copied";
        Progress($"[{build.Volume}] run {build.Run} {build.Variant,-13} {build.Kind,-11} {build.WallSeconds,6:0.0} s, Copy {build.CopyTaskMilliseconds,6:0} ms, {files}, disk {Mib(build.DiskUsedBytes)}   ({done}/{total}, about {left:h\\:mm\\:ss} left)");
    }

    public static string Mib(long bytes) => $"{bytes / 1048576.0:+0.0;-0.0;0} MiB";

    private static void Progress(string text) => Console.WriteLine($"[{Clock.Elapsed:hh\\:mm\\:ss}] {text}");

    /// <summary>Packs this repository's SDK (or takes --package-dir) and returns the folder and version.</summary>
    private static (string Folder, string Version) PreparePackage(Options options, string scratch)
    {
        string folder = options.PackageDir ?? Path.Combine(scratch, "packages");
        if (options.PackageDir is null)
        {
            string repository = FindRepositoryRoot() ?? throw new MeasureException("Cannot find this repository (Microsoft.Build.CopyOnWrite.sln above the tool) to pack the SDK; pass --package-dir.");
            Progress($"Packing the SDK from {repository}");
            Shell.MustRun("dotnet", ["pack", Path.Combine(repository, "src", "Microsoft.Build.CopyOnWrite"), "-c", "Release", "-o", folder, "-nologo", "-v:q"], repository);
        }

        string package = Directory.GetFiles(folder, "Microsoft.Build.CopyOnWrite.*.nupkg").OrderByDescending(File.GetLastWriteTimeUtc).FirstOrDefault()
            ?? throw new MeasureException($"No Microsoft.Build.CopyOnWrite.*.nupkg in {folder}.");
        string version = Regex.Match(Path.GetFileName(package), @"^Microsoft\.Build\.CopyOnWrite\.(.+)\.nupkg$").Groups[1].Value;
        return (folder, version);
    }

    private static string? FindRepositoryRoot()
    {
        foreach (string start in new[] { AppContext.BaseDirectory, Environment.CurrentDirectory })
        {
            for (DirectoryInfo? folder = new(start); folder is not null; folder = folder.Parent)
            {
                if (File.Exists(Path.Combine(folder.FullName, "Microsoft.Build.CopyOnWrite.sln")))
                {
                    return folder.FullName;
                }
            }
        }

        return null;
    }

    /// <summary>Copies the tree onto the volume, installs our package in the volume's package cache, restores.</summary>
    private static Workspace PrepareWorkspace(Session session, Volume volume)
    {
        Options options = session.Options;
        Progress($"[{volume.Label}] copying {options.Root} to {volume.Root}");
        Workspace workspace = Workspace.CopyFrom(options.Root!, Path.Combine(volume.Root, "src"));
        Dictionary<string, string?> environment = session.BuildEnvironment(volume);

        // Installing the package through a restore puts it where both routes find it: the msbuild-sdks
        // resolver of a repository that imports the SDK, and our CustomAfterMicrosoftCommonTargets import.
        string installer = Path.Combine(volume.Root, "sdk-install");
        Directory.CreateDirectory(installer);
        File.WriteAllText(Path.Combine(installer, "NuGet.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="CopyOnWriteMeasured" value="{session.PackageFolder}" />
              </packageSources>
            </configuration>
            """);
        File.WriteAllText(Path.Combine(installer, "Install.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup><TargetFramework>net{Environment.Version.Major}.0</TargetFramework></PropertyGroup>
              <ItemGroup><PackageReference Include="Microsoft.Build.CopyOnWrite" Version="[{session.PackageVersion}]" PrivateAssets="all" /></ItemGroup>
            </Project>
            """);
        Progress($"[{volume.Label}] installing Microsoft.Build.CopyOnWrite {session.PackageVersion} and restoring");
        Shell.MustRun("dotnet", ["restore", "Install.csproj", "-nologo"], installer, environment);
        session.SdkFolder = Path.Combine(environment["NUGET_PACKAGES"]!, "microsoft.build.copyonwrite", session.PackageVersion);

        Shell.MustRun("dotnet", ["restore", options.RelativeTarget, "-nologo", .. session.SdkProperties], workspace.Root, environment);
        workspace.MarkPristine();
        return workspace;
    }
}
