using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Text.Json.Nodes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// A solution as `dotnet new` makes it (a console app referencing a class library and the package Newtonsoft.Json from
/// the public registry as served here) that turns on MSBuild's links in Directory.Build.props as large repositories
/// do (CreateHardLinksFor...IfPossible, the four of them), with our SDK by the &lt;Sdk&gt; element and its package
/// cache on the solution's volume: the setup of dotnet/msbuild#8273, where an output hard-linked into the package
/// cache corrupts the cache when anything writes into the output. Made without our SDK, it builds with MSBuild's own
/// Copy: the damage itself, for a tool that looks for it.
/// </summary>
public sealed partial class LinkingSolution
{
    public const string PackageId = "Newtonsoft.Json";

    /// <summary>Two versions served here (see the package lists of the environment), the second for the version bump of #8273.</summary>
    public const string FirstVersion = "13.0.3";

    public const string BumpedVersion = "13.0.4";

    private static readonly string[] LinkProperties =
    [
        "CreateHardLinksForCopyLocalIfPossible",
        "CreateHardLinksForCopyFilesToOutputDirectoryIfPossible",
        "CreateHardLinksForAdditionalFilesIfPossible",
        "CreateHardLinksForPublishFilesIfPossible",
    ];

    /// <summary>
    /// What `dotnet new sln`, `new console`, `new classlib`, `add reference` and `sln add` make of the solution (the
    /// template's properties, the reference between the projects), written as files: the templates are not the question.
    /// </summary>
    private static void WriteProjects(string root)
    {
        const string Properties = "<TargetFramework>net10.0</TargetFramework><ImplicitUsings>enable</ImplicitUsings><Nullable>enable</Nullable>";
        Directory.CreateDirectory(Path.Combine(root, "App"));
        Directory.CreateDirectory(Path.Combine(root, "Lib"));
        File.WriteAllText(Path.Combine(root, "Links.slnx"), """
            <Solution>
              <Project Path="App/App.csproj" />
              <Project Path="Lib/Lib.csproj" />
            </Solution>
            """);
        File.WriteAllText(Path.Combine(root, "App", "App.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <ItemGroup><ProjectReference Include="..\Lib\Lib.csproj" /></ItemGroup>
              <PropertyGroup><OutputType>Exe</OutputType>{Properties}</PropertyGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(root, "Lib", "Lib.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>{Properties}</PropertyGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(root, "Lib", "Class1.cs"), "namespace Lib;\n\npublic class Class1\n{\n}\n");
    }

    private readonly bool _withOurSdk;

    private LinkingSolution(string root, string packageCache, bool withOurSdk)
    {
        Root = root;
        PackageCache = packageCache;
        _withOurSdk = withOurSdk;
    }

    public string Root { get; }

    /// <summary>NUGET_PACKAGES of every build: on the solution's volume, so that a clone from it can happen.</summary>
    public string PackageCache { get; }

    public string SolutionFile => "Links.slnx";

    public string AppOutput => Path.Combine(Root, "App", "bin", "Debug", "net10.0");

    /// <summary>The package's assembly in the app's output: copied there from the package cache by _CopyFilesMarkedCopyLocal.</summary>
    public string PackageAssemblyInOutput => Path.Combine(AppOutput, PackageId + ".dll");

    /// <summary>The package's assembly in the package cache, for <paramref name="version"/>.</summary>
    public string PackageAssemblyInCache(string version) => Path.Combine(PackageCache, PackageId.ToLowerInvariant(), version, "lib", "net6.0", PackageId + ".dll");

    /// <summary>Makes the solution in a new folder of <paramref name="volume"/>, with its package cache beside it.</summary>
    public static LinkingSolution Create(LoopFileSystem volume) => Create(volume.NewFolder("linking-solution"), volume.NewFolder("nuget-packages"), withOurSdk: true);

    /// <summary>
    /// Makes the solution in the empty folder <paramref name="root"/>, with its package cache in <paramref name="packageCache"/>
    /// (on the same volume, for links). Without our SDK it needs no package of ours (nothing is packed), restores from the
    /// public registry alone, and its NuGet.config names the package cache, so a tool that evaluates it finds the cache.
    /// </summary>
    public static LinkingSolution Create(string root, string packageCache, bool withOurSdk)
    {
        var solution = new LinkingSolution(root, packageCache, withOurSdk);
        JsonNode globalJson = JsonNode.Parse(File.ReadAllText(Path.Combine(RepositoryLayout.Root, "global.json")))!;
        if (withOurSdk)
        {
            SdkPackage.WriteNuGetConfig(root, withPublicRegistry: true);
            globalJson["msbuild-sdks"] = new JsonObject { ["Microsoft.Build.CopyOnWrite"] = SdkPackage.Version };
        }
        else
        {
            File.WriteAllText(Path.Combine(root, "NuGet.config"), $"""
                <?xml version="1.0" encoding="utf-8"?>
                <configuration>
                  <config><add key="globalPackagesFolder" value="{packageCache}" /></config>
                  <packageSources>
                    <clear />
                    <add key="nuget.org" value="https://api.nuget.org/v3/index.json" protocolVersion="3" />
                  </packageSources>
                </configuration>
                """);
            globalJson.AsObject().Remove("msbuild-sdks");
        }

        File.WriteAllText(Path.Combine(root, "global.json"), globalJson.ToJsonString());
        solution.WriteDirectoryBuildProps(links: true, extraProperties: string.Empty);
        WriteProjects(root);
        solution.SetPackageVersion(FirstVersion);
        File.WriteAllText(Path.Combine(root, "App", "Program.cs"), "System.Console.WriteLine(Newtonsoft.Json.JsonConvert.SerializeObject(new { Lib = typeof(Lib.Class1).Name }));");
        return solution;
    }

    /// <summary>
    /// Directory.Build.props: our SDK (when made with it), the four link properties when <paramref name="links"/>, and
    /// <paramref name="extraProperties"/> (e.g. the setting, or DisableCopyOnWrite).
    /// </summary>
    public void WriteDirectoryBuildProps(bool links, string extraProperties)
    {
        string linkLines = links ? string.Concat(LinkProperties.Select(name => $"    <{name}>true</{name}>\n")) : string.Empty;
        File.WriteAllText(Path.Combine(Root, "Directory.Build.props"), $"""
            <Project>
              {(_withOurSdk ? "<Sdk Name=\"Microsoft.Build.CopyOnWrite\" />" : string.Empty)}
              <PropertyGroup>
            {linkLines}    {extraProperties}
              </PropertyGroup>
            </Project>
            """);
    }

    /// <summary>The app's reference to the package, at <paramref name="version"/> (the "bump" of #8273).</summary>
    public void SetPackageVersion(string version)
    {
        string project = Path.Combine(Root, "App", "App.csproj");
        string text = File.ReadAllText(project);
        int existing = text.IndexOf($"<PackageReference Include=\"{PackageId}\"", StringComparison.Ordinal);
        if (existing >= 0)
        {
            int end = text.IndexOf("/>", existing, StringComparison.Ordinal) + 2;
            text = text.Remove(existing, end - existing);
        }

        text = text.Replace("</Project>", $"  <ItemGroup><PackageReference Include=\"{PackageId}\" Version=\"{version}\" /></ItemGroup>\n</Project>", StringComparison.Ordinal);
        File.WriteAllText(project, text);
    }

    /// <summary>`dotnet build` of the solution (restoring), at normal verbosity so every Copy's lines are in the output.</summary>
    public ProcessResult Build(params string[] arguments)
    {
        ProcessResult build = Dotnet(["build", SolutionFile, "-nologo", "-nr:false", "-v:n", .. arguments]);
        Assert.IsTrue(build.Succeeded, "the build failed:\n" + build.Output);
        return build;
    }

    /// <summary>`dotnet restore` of the solution: the package cache's content before any build.</summary>
    public void Restore()
    {
        ProcessResult restore = Dotnet("restore", SolutionFile);
        Assert.IsTrue(restore.Succeeded, "the restore failed:\n" + restore.Output);
    }

    /// <summary>`dotnet` in the solution with its package cache, whatever the outcome.</summary>
    public ProcessResult Dotnet(params string[] arguments)
        => SdkPackage.TryDotnet(Root, arguments, new Dictionary<string, string?> { ["NUGET_PACKAGES"] = PackageCache });

    /// <summary>SHA-256 of every file in the package cache, by path relative to it.</summary>
    public IReadOnlyDictionary<string, string> PackageCacheContents()
        => Directory.EnumerateFiles(PackageCache, "*", SearchOption.AllDirectories)
            .Where(path => !new FileInfo(path).Attributes.HasFlag(FileAttributes.ReparsePoint))
            .ToDictionary(path => Path.GetRelativePath(PackageCache, path), path => Convert.ToHexString(SHA256.HashData(File.ReadAllBytes(path))), StringComparer.Ordinal);

    /// <summary>The files of the package cache whose bytes differ from <paramref name="before"/>'s (added files are not counted: a restore adds packages).</summary>
    public IReadOnlyList<string> ChangedSince(IReadOnlyDictionary<string, string> before)
    {
        IReadOnlyDictionary<string, string> now = PackageCacheContents();
        return before.Where(entry => !now.TryGetValue(entry.Key, out string? hash) || hash != entry.Value).Select(entry => entry.Key).ToList();
    }

    /// <summary>The files under the outputs of both projects that are hard links (more than one name) or symbolic links, with what stat says of them.</summary>
    public IEnumerable<string> LinkedOutputs()
        => OutputFiles().Select(path => (path, facts: UnixFileFacts.Of(path))).Where(file => file.facts.Links > 1 || file.facts.Type is not ("regular file" or "regular empty file"))
            .Select(file => $"{Path.GetRelativePath(Root, file.path)} ({file.facts.Type}, {file.facts.Links} names)");

    /// <summary>Every file under the outputs of both projects (bin and obj).</summary>
    public IReadOnlyList<string> OutputFiles()
        => new[] { "App", "Lib" }.SelectMany(project => new[] { "bin", "obj" }.Select(folder => Path.Combine(Root, project, folder)))
            .Where(Directory.Exists)
            .SelectMany(folder => Directory.EnumerateFiles(folder, "*", SearchOption.AllDirectories))
            .ToList();
}
