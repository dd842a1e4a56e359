using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// Our package, packed once per test run from the working tree with the release command in a release clone
/// (build/pack-release-clone.sh): by build/test.sh for all its test processes (COW_TEST_PACKAGES), else by the first
/// test that needs it; and the environment a build needs to consume it like a user: a NuGet.config naming only that
/// folder, and a package cache of its own so a package of the same version from an earlier run can never be picked up
/// instead.
/// </summary>
public static class SdkPackage
{
    /// <summary>The release clone's origin is this .git: a stand-in of GitHub's shape (SourceLink knows github.com), not a real repository; build/test.sh names it too.</summary>
    public const string StandInRepository = "https://github.com/stand-in-owner/stand-in-repository";

    private static readonly Lazy<(string Folder, string Version, string Output, string Repository)> Packed = new(Pack);

    private static readonly Lazy<string> ExtractedFolder = new(() =>
    {
        string folder = TestScratch.NewFolder("extracted-package");
        ZipFile.ExtractToDirectory(PackagePath, folder);
        return folder;
    });

    public static string Folder => Packed.Value.Folder;

    public static string Version => Packed.Value.Version;

    /// <summary>What the release command printed when it packed <see cref="Folder"/>: the README's "Get it" command's output.</summary>
    public static string PackOutput => Packed.Value.Output;

    public static string PackagePath => Path.Combine(Folder, $"Microsoft.Build.CopyOnWrite.{Version}.nupkg");

    /// <summary>The release clone the packages were packed in: the working tree's files as one commit, origin <see cref="StandInRepository"/>.git.</summary>
    public static string PackedRepository => Packed.Value.Repository;

    public static string PackageCache { get; } = Path.Combine(TestScratch.RootFolder, "nuget-packages");

    /// <summary>The package unzipped once, for tests that import its Sdk/ files directly or read its assemblies.</summary>
    public static string Extracted => ExtractedFolder.Value;

    /// <summary>
    /// The folder name of the task assembly precompiled for this process's runtime, OS and architecture
    /// (net10.0-linux-x64): what Sdk.targets looks for under a flavour's tools/ folder, since the test runs on the
    /// runtime the builds it starts run on.
    /// </summary>
    public static string PrecompiledFolderForThisMachine
    {
        get
        {
            string os = OperatingSystem.IsWindows() ? "win" : OperatingSystem.IsMacOS() ? "osx" : "linux";
            return $"net{Environment.Version.Major}.0-{os}-{RuntimeInformation.ProcessArchitecture.ToString().ToLowerInvariant()}";
        }
    }

    /// <summary>The package path of the assembly Sdk.targets loads on this machine from a flavour's folder (tools/net8.0): the precompiled one when packed, else the IL one.</summary>
    public static string TaskAssemblyForThisMachine(string flavourFolder)
    {
        string precompiled = $"{flavourFolder}/{PrecompiledFolderForThisMachine}/Microsoft.Build.CopyOnWrite.dll";
        return File.Exists(Path.Combine(Extracted, precompiled)) ? precompiled : $"{flavourFolder}/Microsoft.Build.CopyOnWrite.dll";
    }

    /// <summary>Variables for every `dotnet` child process: the private package cache, no build servers to outlive the test.</summary>
    /// <summary>
    /// A project that imports Sdk.props and Sdk.targets straight from an extracted package (no SDK resolver needed)
    /// and copies one file, in a new scratch folder <paramref name="name"/>.
    /// </summary>
    public static (string Folder, string Project) ProjectImportingTheSdk(string name, string extractedPackage)
    {
        string folder = TestScratch.NewFolder(name);
        File.WriteAllText(Path.Combine(folder, "a.txt"), "payload");
        string project = Path.Combine(folder, "copy.proj");
        File.WriteAllText(project, $"""
            <Project>
              <Import Project="{Path.Combine(extractedPackage, "Sdk", "Sdk.props")}" />
              <Target Name="Build"><Copy SourceFiles="a.txt" DestinationFolder="out" /></Target>
              <Import Project="{Path.Combine(extractedPackage, "Sdk", "Sdk.targets")}" />
            </Project>
            """);
        return (folder, project);
    }

    /// <summary>MSBuild's detailed-log line naming the assembly the Copy task came from, for a task assembly of <paramref name="extractedPackage"/>.</summary>
    public static string TaskLoadedFrom(string extractedPackage, string packagePath)
        => $"Using \"Copy\" task from assembly \"{Path.Combine(extractedPackage, "Sdk", "..", packagePath)}\"";

    public static IDictionary<string, string?> BuildEnvironment => new Dictionary<string, string?>
    {
        ["NUGET_PACKAGES"] = PackageCache,
        ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
        ["MSBUILDDISABLENODEREUSE"] = "1",
        ["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0",
        ["MSBUILDTERMINALLOGGER"] = "off",
        // The test host's own MSBuild variables must not leak into the builds under test.
        ["MSBuildExtensionsPath"] = null,
        ["MSBuildSDKsPath"] = null,
        ["MSBUILD_EXE_PATH"] = null,
    };

    /// <summary>The build environment with each of <paramref name="layers"/> set over it in turn (a null value unsets a variable).</summary>
    public static IDictionary<string, string?> BuildEnvironmentWith(params IDictionary<string, string?>?[] layers)
    {
        IDictionary<string, string?> environment = BuildEnvironment;
        foreach (IDictionary<string, string?>? layer in layers)
        {
            foreach ((string name, string? value) in layer ?? new Dictionary<string, string?>())
            {
                environment[name] = value;
            }
        }

        return environment;
    }

    /// <summary>
    /// Writes a NuGet.config into <paramref name="folder"/> that reads packages only from our packed folder and, when
    /// asked, from the public registry (nuget.org, as served to this machine) for what the .NET SDK does not carry.
    /// </summary>
    public static void WriteNuGetConfig(string folder, bool withPublicRegistry = false)
        => File.WriteAllText(Path.Combine(folder, "NuGet.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="CopyOnWriteUnderTest" value="{Folder}" />
                {(withPublicRegistry ? "<add key=\"nuget.org\" value=\"https://api.nuget.org/v3/index.json\" protocolVersion=\"3\" />" : string.Empty)}
              </packageSources>
            </configuration>
            """);

    /// <summary>
    /// The tests' one `dotnet` runner for a build under test: `dotnet` with <paramref name="arguments"/> in
    /// <paramref name="workingDirectory"/>, with the build environment and each of <paramref name="layers"/> over it
    /// (a package cache of its own, a setting in the environment), whatever the outcome; ten minutes at most.
    /// </summary>
    public static ProcessResult TryDotnet(string workingDirectory, IEnumerable<string> arguments, params IDictionary<string, string?>?[] layers)
        => ProcessRunner.Run("dotnet", arguments, workingDirectory, BuildEnvironmentWith(layers), TimeSpan.FromMinutes(10));

    /// <summary>As <see cref="TryDotnet"/> with the build environment alone, and fails the test, showing the output, if it fails.</summary>
    public static ProcessResult Dotnet(string workingDirectory, params string[] arguments)
    {
        ProcessResult result = TryDotnet(workingDirectory, arguments);
        Assert.IsTrue(result.Succeeded, $"dotnet {string.Join(' ', arguments)} failed in {workingDirectory}:\n{result.Output}");
        return result;
    }

    /// <summary>
    /// The environment build/pack.sh runs in: the build environment, but with the developer's own package cache
    /// (restoring MSBuild's reference assemblies again per run is slow).
    /// </summary>
    public static IDictionary<string, string?> PackEnvironment
    {
        get
        {
            IDictionary<string, string?> environment = BuildEnvironment;
            environment.Remove("NUGET_PACKAGES");
            return environment;
        }
    }

    /// <summary>
    /// The folder build/test.sh packed both packages into, once for the run's test processes (COW_TEST_PACKAGES, with
    /// what it printed in the file COW_TEST_PACK_OUTPUT names and the release clone in COW_TEST_PACKED_REPOSITORY), or
    /// null when a test process runs alone and packs them itself.
    /// </summary>
    private static string? PackedForTheRun
        => Environment.GetEnvironmentVariable("COW_TEST_PACKAGES") is { Length: > 0 } folder ? folder : null;

    private static (string, string, string, string) Pack()
    {
        string folder, output, repository;
        if (PackedForTheRun is string packed)
        {
            folder = packed;
            string? printed = Environment.GetEnvironmentVariable("COW_TEST_PACK_OUTPUT");
            output = printed is { Length: > 0 } && File.Exists(printed) ? File.ReadAllText(printed) : string.Empty;
            repository = Environment.GetEnvironmentVariable("COW_TEST_PACKED_REPOSITORY") ?? string.Empty;
            Assert.IsTrue(Directory.Exists(Path.Combine(repository, ".git")), $"COW_TEST_PACKED_REPOSITORY ('{repository}') should name the release clone build/test.sh packed COW_TEST_PACKAGES ({packed}) in");
        }
        else
        {
            // The one pack of a test process run alone, as build/test.sh makes it, into a folder of the process.
            string release = TestScratch.NewFolder("release");
            ProcessResult pack = ProcessRunner.Run("bash", [Path.Combine(RepositoryLayout.Root, "build", "pack-release-clone.sh"), release, StandInRepository + ".git"], RepositoryLayout.Root, PackEnvironment, TimeSpan.FromMinutes(10));
            Assert.IsTrue(pack.Succeeded, $"Packing the SDK failed:\n{pack.Output}");
            (folder, output, repository) = (Path.Combine(release, "packages"), pack.Output, Path.Combine(release, "repository"));
        }

        string[] packages = Directory.Exists(folder) ? Directory.GetFiles(folder, "Microsoft.Build.CopyOnWrite.*.nupkg").Where(path => Regex.IsMatch(Path.GetFileName(path), @"^Microsoft\.Build\.CopyOnWrite\.[0-9]")).ToArray() : [];
        Assert.AreEqual(1, packages.Length, $"{folder} should hold the one SDK package the release command packed for this run (and the tool's)");
        string version = Regex.Match(Path.GetFileName(packages[0]), @"^Microsoft\.Build\.CopyOnWrite\.(.+)\.nupkg$").Groups[1].Value;
        return (folder, version, output, repository);
    }
}
