using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text.RegularExpressions;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>Everything the builds of one invocation share.</summary>
internal sealed class Session
{
    public Session(Options options, IMeasurementPlatform platform, string packageFolder, string packageVersion, string logFolder)
    {
        Options = options;
        Platform = platform;
        PackageFolder = packageFolder;
        PackageVersion = packageVersion;
        LogFolder = logFolder;
    }

    public Options Options { get; }
    public IMeasurementPlatform Platform { get; }
    public string PackageFolder { get; }
    public string PackageVersion { get; }
    public string LogFolder { get; }

    /// <summary>Numbers this machine could not give, and why (each once): the report says so instead of printing them.</summary>
    public SortedDictionary<string, string> NotMeasured { get; } = new(StringComparer.Ordinal);

    public void NoteNotMeasured(string what, string? why)
    {
        if (why is not null)
        {
            NotMeasured.TryAdd(what, why);
        }
    }

    /// <summary>The installed SDK in the current volume's package cache (set per volume).</summary>
    public string SdkFolder { get; set; } = string.Empty;

    /// <summary>
    /// The summary logger's -logger: argument (set per volume), as the installed Sdk.targets names it: the precompiled
    /// copy where the package has one, since JIT-compiling its parsing mid-build would cost our builds only.
    /// </summary>
    public string SummaryLoggerArgument { get; set; } = string.Empty;

    /// <summary>
    /// Imports our Sdk.targets into every project (CustomAfterMicrosoftCommonTargets), so a repository without the SDK
    /// is measured too; one that imports it keeps its own import, as Sdk.targets is guarded against a second.
    /// </summary>
    public IEnumerable<string> SdkProperties => [$"-p:CustomAfterMicrosoftCommonTargets={Path.Combine(SdkFolder, "Sdk", "Sdk.targets")}"];

    /// <summary>A package cache on the measured volume (where clones from it can happen, as on a Dev Drive), fresh MSBuild processes.</summary>
    public static Dictionary<string, string?> BuildEnvironment(MeasuredVolume volume)
    {
        Dictionary<string, string?> environment = FreshBuildEnvironment();
        environment["NUGET_PACKAGES"] = Path.Combine(volume.WorkFolder, "nuget-packages");
        return environment;
    }

    /// <summary>
    /// A build in fresh MSBuild processes (no node reuse, no build server), quiet, and blind to the MSBuild of the
    /// process that starts it (a test host's or a tool's own variables must not steer the build it measures).
    /// </summary>
    public static Dictionary<string, string?> FreshBuildEnvironment() => new()
    {
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

/// <summary>One invocation: every volume, warm-up, then clean and incremental builds of both Copy tasks, then the report.</summary>
internal static partial class Measurement
{
    private static readonly Stopwatch Clock = Stopwatch.StartNew();

    public static void Run(Options options, CancellationToken cancellation)
    {
        IMeasurementPlatform platform = MeasurementPlatforms.ForThisProcess();
        (string packageFolder, string version) = FindPackage(options.PackageDir);
        string runName = $"cow-measure-{DateTime.UtcNow:yyyyMMdd-HHmmss}-{Environment.ProcessId}";
        string logFolder = Path.Combine(options.Out, "logs");
        try
        {
            Directory.CreateDirectory(logFolder);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new MeasureException($"--out {options.Out}: cannot write there: {e.Message}");
        }

        var volumes = new List<MeasuredVolume>();
        try
        {
            // Every volume is checked and identified before anything is built: bad input stops the run at once.
            foreach (string requested in options.Volumes)
            {
                volumes.Add(MeasuredVolume.Open(requested, platform, options.LoopFolder, options.LoopSizeMiB, runName));
            }

            MeasuredVolume.AssignLabels(volumes);
            foreach (MeasuredVolume volume in volumes)
            {
                VolumeFacts id = volume.Identity;
                Progress($"[{volume.Label}] {volume.Folder}: {id.FileSystem}{(id.DevDrive == true ? ", Dev Drive" : string.Empty)}, "
                    + $"{(id.CanClone switch { true => "can clone", false => "cannot clone", null => "cloning unknown" })} ({id.CloneEvidence})");
            }

            var session = new Session(options, platform, packageFolder, version, logFolder);
            var results = new List<BuildMeasurement>();
            int kinds = options.Incremental ? 2 : 1;
            int totalBuilds = volumes.Count * (1 + options.Runs * 2 * kinds);
            int done = 0;
            Progress($"Measuring {options.Target} with Microsoft.Build.CopyOnWrite {version}: {totalBuilds} builds; report in {options.Out}");
            foreach (MeasuredVolume volume in volumes)
            {
                cancellation.ThrowIfCancellationRequested();
                Workspace workspace = PrepareWorkspace(session, volume);

                // One unmeasured build first: the first build after a copy pays for cold caches, whichever variant it is.
                Progress($"[{volume.Label}] warm-up build (not measured)");
                Check(Builds.Run(session, volume, workspace, Builds.OurVariant, "warmup", 0));
                done++;
                for (int run = 1; run <= options.Runs; run++)
                {
                    // Alternate which variant goes first, so neither always builds right after the other's cleanup.
                    string[] order = run % 2 == 1 ? [Builds.OurVariant, Builds.StockVariant] : [Builds.StockVariant, Builds.OurVariant];
                    foreach (string variant in order)
                    {
                        cancellation.ThrowIfCancellationRequested();
                        workspace.Clean();
                        results.Add(Report(++done, totalBuilds, Check(Builds.Run(session, volume, workspace, variant, "clean", run))));
                        if (!options.Incremental)
                        {
                            continue;
                        }

                        if (options.Touch is not null)
                        {
                            File.SetLastWriteTimeUtc(Path.Combine(workspace.Root, options.Touch), DateTime.UtcNow);
                        }

                        results.Add(Report(++done, totalBuilds, Check(Builds.Run(session, volume, workspace, variant, "incremental", run))));
                    }
                }

                workspace.Clean();
            }

            var report = new MeasurementReport(options, session, MachineInfo.Read(platform, options.Root), volumes, results);
            report.WriteAll(options.Out);
            Console.WriteLine();
            Console.WriteLine(report.ConsoleText());
            Progress($"Report: {Path.Combine(options.Out, "measurement.md")}; chart: {Path.Combine(options.Out, "chart.svg")}; data: measurement.json; build logs in {logFolder}");
        }
        finally
        {
            foreach (MeasuredVolume volume in volumes)
            {
                if (options.Keep)
                {
                    Progress($"[{volume.Label}] kept at {volume.WorkFolder} (--keep){(volume.Dedicated ? $": a mounted loop volume, unmount it with umount {volume.Folder}" : string.Empty)}");
                }

                volume.Dispose(options.Keep);
            }
        }
    }

    /// <summary>The SDK package to measure: the one this tool carries (sdk/ beside it), or --package-dir's.</summary>
    internal static (string Folder, string Version) FindPackage(string? packageDir)
    {
        string folder = packageDir ?? Path.Combine(AppContext.BaseDirectory, "sdk");
        // The informational version is the package version (plus "+commit"), prerelease label included.
        string own = (typeof(Measurement).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? string.Empty).Split('+')[0];
        var packages = (Directory.Exists(folder) ? Directory.GetFiles(folder, "Microsoft.Build.CopyOnWrite.*.nupkg") : [])
            .Select(path => (Path: path, Match: PackageName().Match(Path.GetFileName(path))))
            .Where(p => p.Match.Success)
            .Select(p => (p.Path, Version: p.Match.Groups["version"].Value))
            .ToList();
        if (packages.Count == 0)
        {
            throw new MeasureException(packageDir is null
                ? $"This tool's own SDK package is missing from {folder}; reinstall the tool, or pass --package-dir."
                : $"--package-dir {packageDir}: no Microsoft.Build.CopyOnWrite.<version>.nupkg there.");
        }

        // The tool's own version when there, else the newest package in the folder.
        (string path, string version) = packages.FirstOrDefault(p => p.Version == own) is { Path: not null } mine
            ? mine
            : packages.OrderByDescending(p => File.GetLastWriteTimeUtc(p.Path)).First();
        return (Path.GetDirectoryName(path)!, version);
    }

    /// <summary>Copies the tree onto the volume, installs our package in the volume's package cache, restores.</summary>
    private static Workspace PrepareWorkspace(Session session, MeasuredVolume volume)
    {
        Options options = session.Options;
        Progress($"[{volume.Label}] copying {options.Root} to {volume.WorkFolder}");
        Workspace workspace = Workspace.CopyFrom(options.Root, Path.Combine(volume.WorkFolder, "src"));
        Dictionary<string, string?> environment = Session.BuildEnvironment(volume);

        // The work folder may sit inside a repository whose Directory.Build.* or Directory.Packages.props (NU1008 for
        // our install project) would reach the copied tree; files of our own here end MSBuild's and NuGet's searches.
        File.WriteAllText(Path.Combine(volume.WorkFolder, "Directory.Build.props"), "<Project />");
        File.WriteAllText(Path.Combine(volume.WorkFolder, "Directory.Build.targets"), "<Project />");
        File.WriteAllText(Path.Combine(volume.WorkFolder, "Directory.Packages.props"), "<Project><PropertyGroup><ManagePackageVersionsCentrally>false</ManagePackageVersionsCentrally></PropertyGroup></Project>");

        // Installing the package through a restore puts it where both routes find it: the msbuild-sdks
        // resolver of a repository that imports the SDK, and our CustomAfterMicrosoftCommonTargets import.
        string installer = Path.Combine(volume.WorkFolder, "sdk-install");
        Directory.CreateDirectory(installer);
        File.WriteAllText(Path.Combine(installer, "NuGet.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="CopyOnWriteMeasured" value="{System.Security.SecurityElement.Escape(session.PackageFolder)}" />
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
        string logs = session.LogFolder;
        Shell.MustRun("dotnet", ["restore", "Install.csproj", "-nologo"], installer, environment, Path.Combine(logs, $"{volume.FileLabel}-sdk-install.log"));
        session.SdkFolder = Path.Combine(environment["NUGET_PACKAGES"]!, "microsoft.build.copyonwrite", session.PackageVersion);
        session.SummaryLoggerArgument = SummaryLoggerOf(installer, session, environment);

        Shell.MustRun("dotnet", ["restore", options.RelativeTarget, "-nologo", .. session.SdkProperties], workspace.Root, environment, Path.Combine(logs, $"{volume.FileLabel}-restore.log"));
        workspace.MarkPristine();
        return workspace;
    }

    /// <summary>
    /// Reads CopyOnWriteSummaryLogger from the installed Sdk.targets (the install project's package reference imports
    /// it), evaluated by the same dotnet as the builds.
    /// </summary>
    private static string SummaryLoggerOf(string installer, Session session, Dictionary<string, string?> environment)
    {
        ShellResult result = Shell.MustRun("dotnet", ["msbuild", "Install.csproj", "-nologo", "-getProperty:CopyOnWriteSummaryLogger"], installer, environment);
        string logger = result.Output.Trim();
        if (!logger.StartsWith("Microsoft.Build.CopyOnWrite.Savings.CopyOnWriteSummaryLogger,", StringComparison.Ordinal) || logger.Contains('\n'))
        {
            throw new MeasureException($"the installed SDK ({session.SdkFolder}) did not name its summary logger: `dotnet msbuild -getProperty:CopyOnWriteSummaryLogger` printed \"{logger}\".", Program.MeasurementFailed);
        }

        return logger;
    }

    private static BuildMeasurement Check(BuildMeasurement build)
    {
        if (!build.Succeeded)
        {
            string variant = build.Variant == Builds.OurVariant ? "our Copy task" : "the stock Copy task";
            throw new MeasureException($"the {build.Kind} build with {variant} on {build.Volume} failed: {Shell.FirstError(File.ReadAllText(build.LogFile))} (whole log: {build.LogFile})", Program.MeasurementFailed);
        }

        return build;
    }

    private static BuildMeasurement Report(int done, int total, BuildMeasurement build)
    {
        double perBuild = Clock.Elapsed.TotalSeconds / Math.Max(1, done);
        TimeSpan left = TimeSpan.FromSeconds(perBuild * (total - done));
        string files = build.ClonedFiles is int cloned
            ? $"cloned {cloned}, copied {build.FilesWritten - cloned}"
            : $"{build.FilesWritten} files written";
        string disk = build.DiskUsedBytes is long used ? MeasurementReport.MiB(used) : "n/a";
        Progress($"[{build.Volume}] run {build.Run} {build.Variant,-13} {build.Kind,-11} {build.WallSeconds,6:0.0} s, Copy {MeasurementReport.Ms(build.CopyTaskMilliseconds),7}, {files}, disk {disk}   ({done}/{total}, about {left:h\\:mm\\:ss} left)");
        return build;
    }

    public static void Progress(string text) => Console.WriteLine($"[{Clock.Elapsed:hh\\:mm\\:ss}] {text}");

    [GeneratedRegex(@"^Microsoft\.Build\.CopyOnWrite\.(?<version>\d+\.\d+\.\d+.*)\.nupkg$")]
    private static partial Regex PackageName();
}
