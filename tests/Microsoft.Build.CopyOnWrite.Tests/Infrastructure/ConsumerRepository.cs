using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json.Nodes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>How a repository gets our package: each way the README shows.</summary>
public enum PackageRoute
{
    /// <summary>&lt;Sdk Name="Microsoft.Build.CopyOnWrite" /&gt; in Directory.Build.props, the version in global.json's msbuild-sdks.</summary>
    SdkElement,

    /// <summary>&lt;Sdk Name="Microsoft.Build.CopyOnWrite" Version="..." /&gt; in Directory.Build.targets: how the 1.x package's README put it.</summary>
    SdkElementWithVersion,

    /// <summary>&lt;PackageReference Include="Microsoft.Build.CopyOnWrite" Version="..." PrivateAssets="all" /&gt; in the project file.</summary>
    PackageReference,

    /// <summary>Central package management: &lt;GlobalPackageReference Include="Microsoft.Build.CopyOnWrite" Version="..." /&gt; in Directory.Packages.props.</summary>
    GlobalPackageReference,
}

/// <summary>
/// A repository of one small class library with one content file, that gets our packed package by one
/// <see cref="PackageRoute"/> with our package folder as its only NuGet source (the package cache is the test
/// run's own), built with the real `dotnet build` as a user builds it. The files it writes are the README's
/// snippets, so a test over it proves a snippet.
/// </summary>
public sealed class ConsumerRepository
{
    public const string ContentFile = "data.bin";

    private ConsumerRepository(string root, string packageCache)
    {
        Root = root;
        PackageCache = packageCache;
    }

    public string Root { get; }

    /// <summary>The NuGet package cache (NUGET_PACKAGES) the builds use.</summary>
    public string PackageCache { get; }

    /// <summary>Where the build copies the content file to.</summary>
    public string CopiedContent => Path.Combine(Root, "bin", "Debug", "net10.0", ContentFile);

    /// <param name="folder">An empty folder for the repository.</param>
    /// <param name="route">How the repository gets the package.</param>
    /// <param name="projectProperties">Extra XML inside the project file's PropertyGroup.</param>
    /// <param name="directoryBuildProps">Extra XML inside Directory.Build.props' PropertyGroup.</param>
    /// <param name="packageCache">
    /// The package cache, by default the test run's (where our package may already be, so NuGet need not ask a source
    /// for it): a test of how NuGet finds the package gives an empty one, as a fresh machine has.
    /// </param>
    public static ConsumerRepository Create(string folder, PackageRoute route, string projectProperties = "", string directoryBuildProps = "", string? packageCache = null)
    {
        SdkPackage.WriteNuGetConfig(folder);
        File.WriteAllText(Path.Combine(folder, "global.json"), GlobalJson(withOurSdk: route == PackageRoute.SdkElement));
        File.WriteAllText(Path.Combine(folder, "Directory.Build.props"), $"""
            <Project>
              {(route == PackageRoute.SdkElement ? """<Sdk Name="Microsoft.Build.CopyOnWrite" />""" : "")}
              <PropertyGroup>
                {directoryBuildProps}
              </PropertyGroup>
            </Project>
            """);
        if (route == PackageRoute.SdkElementWithVersion)
        {
            File.WriteAllText(Path.Combine(folder, "Directory.Build.targets"), $"""
                <Project>
                  <Sdk Name="Microsoft.Build.CopyOnWrite" Version="{SdkPackage.Version}" />
                </Project>
                """);
        }

        if (route == PackageRoute.GlobalPackageReference)
        {
            File.WriteAllText(Path.Combine(folder, "Directory.Packages.props"), $"""
                <Project>
                  <PropertyGroup>
                    <ManagePackageVersionsCentrally>true</ManagePackageVersionsCentrally>
                  </PropertyGroup>
                  <ItemGroup>
                    <GlobalPackageReference Include="Microsoft.Build.CopyOnWrite" Version="{SdkPackage.Version}" />
                  </ItemGroup>
                </Project>
                """);
        }

        string packageReference = route == PackageRoute.PackageReference
            ? $"""<PackageReference Include="Microsoft.Build.CopyOnWrite" Version="{SdkPackage.Version}" PrivateAssets="all" />"""
            : "";
        File.WriteAllText(Path.Combine(folder, "Lib.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <TargetFramework>net10.0</TargetFramework>
                {projectProperties}
              </PropertyGroup>
              <ItemGroup>
                {packageReference}
                <None Include="{ContentFile}" CopyToOutputDirectory="PreserveNewest" />
              </ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(folder, "Lib.cs"), "public static class Lib { }");
        TestFiles.Write(folder, ContentFile, 100_000);
        return new ConsumerRepository(folder, packageCache ?? SdkPackage.PackageCache);
    }

    /// <summary>Replaces one of the repository's files (a NuGet.config with source mapping, a project file...).</summary>
    public void Write(string relativePath, string text) => File.WriteAllText(Path.Combine(Root, relativePath), text);

    /// <summary>`dotnet build -v:d` whatever its outcome; detailed, so MSBuild says where it loaded Copy from.</summary>
    public ProcessResult TryBuild(IDictionary<string, string?>? environmentVariables = null, params string[] arguments)
        => Dotnet(environmentVariables, ["build", "Lib.csproj", "-v:d", "-nologo", "-nr:false", .. arguments]);

    /// <summary>
    /// As <see cref="TryBuild"/>, in this test process (<see cref="InProcessBuild"/>): for questions about our targets and
    /// task, where `dotnet` itself is not the question.
    /// </summary>
    public ProcessResult TryBuildInProcess(IDictionary<string, string?>? environmentVariables = null, params string[] arguments)
    {
        var environment = new Dictionary<string, string?>(environmentVariables ?? new Dictionary<string, string?>()) { ["NUGET_PACKAGES"] = PackageCache };
        return InProcessBuild.DotnetBuild(Path.Combine(Root, "Lib.csproj"), ["-v:d", .. arguments], environment);
    }

    /// <summary>`dotnet` with these arguments in the repository, with its package cache, whatever the outcome.</summary>
    public ProcessResult Dotnet(IDictionary<string, string?>? environmentVariables, params string[] arguments)
        => Run(launcher: [], arguments, environmentVariables);

    /// <summary>As <see cref="Dotnet"/>, with `dotnet` started by <paramref name="launcher"/> (a program and its arguments; empty: none).</summary>
    public ProcessResult Run(IReadOnlyList<string> launcher, string[] arguments, IDictionary<string, string?>? environmentVariables = null)
    {
        var packageCache = new Dictionary<string, string?> { ["NUGET_PACKAGES"] = PackageCache };
        return launcher.Count == 0
            ? SdkPackage.TryDotnet(Root, arguments, packageCache, environmentVariables)
            : ProcessRunner.Run(launcher[0], [.. launcher.Skip(1), "dotnet", .. arguments], Root, SdkPackage.BuildEnvironmentWith(packageCache, environmentVariables), TimeSpan.FromMinutes(10));
    }

    /// <summary>Asserts that the build succeeded, that every Copy of it was ours, loaded from the package under test, and that it copied the content file.</summary>
    public void AssertOurCopyRan(ProcessResult build)
    {
        Assert.IsTrue(build.Succeeded, "the build failed:\n" + build.Output);
        var log = new BuildLog(build.Output);
        string packageFolder = $"/microsoft.build.copyonwrite/{SdkPackage.Version}/";
        Assert.IsTrue(log.CopyTaskAssemblies.Count > 0, "MSBuild did not say where Copy came from:\n" + build.Output);
        Assert.IsTrue(
            log.CopyTaskAssemblies.All(assembly => assembly.StartsWith(PackageCache, StringComparison.Ordinal) && assembly.Contains(packageFolder, StringComparison.Ordinal)),
            "Copy came from elsewhere than the package under test: " + string.Join(", ", log.CopyTaskAssemblies));
        Assert.IsTrue(log.SummaryLines.Count > 0, "our task wrote no summary line:\n" + build.Output);
        Assert.IsTrue(File.Exists(CopiedContent), $"{ContentFile} was not copied to the output");
    }

    /// <summary>Asserts that the build succeeded with MSBuild's own Copy task only, which copied the content file.</summary>
    public void AssertStockCopyRan(ProcessResult build)
    {
        Assert.IsTrue(build.Succeeded, "the build failed:\n" + build.Output);
        var log = new BuildLog(build.Output);
        Assert.IsTrue(log.CopyTaskAssemblies.Count > 0, "MSBuild did not say where Copy came from:\n" + build.Output);
        Assert.IsTrue(
            log.CopyTaskAssemblies.All(assembly => assembly.StartsWith("Microsoft.Build.Tasks.Core,", StringComparison.Ordinal)),
            "expected MSBuild's own Copy task, got: " + string.Join(", ", log.CopyTaskAssemblies));
        Assert.AreEqual(0, log.SummaryLines.Count, "our task ran:\n" + string.Join("\n", log.SummaryLines));
        Assert.IsTrue(File.Exists(CopiedContent), $"{ContentFile} was not copied to the output");
    }

    /// <summary>This repository's global.json (the SDK it builds with), with our SDK's version in msbuild-sdks or without it.</summary>
    private static string GlobalJson(bool withOurSdk)
    {
        JsonNode globalJson = JsonNode.Parse(File.ReadAllText(Path.Combine(RepositoryLayout.Root, "global.json")))!;
        globalJson.AsObject().Remove("msbuild-sdks");
        if (withOurSdk)
        {
            globalJson["msbuild-sdks"] = new JsonObject { ["Microsoft.Build.CopyOnWrite"] = SdkPackage.Version };
        }

        return globalJson.ToJsonString(new System.Text.Json.JsonSerializerOptions { WriteIndented = true });
    }
}
