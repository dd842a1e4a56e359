using System;
using System.Collections.Generic;
using System.IO;
using System.Text.Json.Nodes;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// One repository written twice, in two folders: as it is (stock) and after adopting our packed SDK by one
/// <see cref="PackageRoute"/> the way the README shows, nothing else changed. Each copy has the NuGet.config,
/// global.json, Directory.Build.props and Directory.Build.targets a user's repository has; the NuGet.config names our
/// package folder, the public registry (as served to this machine) for the project's other packages, and the test
/// run's package cache as the global packages folder, so that MSBuild in this process resolves the SDK as `dotnet`
/// does.
/// </summary>
public sealed class AdoptionPair
{
    public const string ProjectFileName = "App.csproj";

    private AdoptionPair(string stock, string adopted)
    {
        Stock = stock;
        Adopted = adopted;
    }

    /// <summary>The repository without our SDK.</summary>
    public string Stock { get; }

    /// <summary>The same repository with our SDK.</summary>
    public string Adopted { get; }

    public string StockProject => Path.Combine(Stock, ProjectFileName);

    public string AdoptedProject => Path.Combine(Adopted, ProjectFileName);

    /// <param name="folder">An empty folder; the two repositories go to its stock/ and adopted/.</param>
    /// <param name="route">How the adopted copy gets our SDK.</param>
    /// <param name="projectFile">The project file, whose body may hold <see cref="PackageReferencePlaceholder"/> where a package reference may go.</param>
    /// <param name="directoryBuildProps">Elements inside Directory.Build.props' Project (after our &lt;Sdk&gt;, whose Sdk.targets comes at the file's end).</param>
    /// <param name="directoryBuildTargets">Elements inside Directory.Build.targets' Project.</param>
    public static AdoptionPair Create(string folder, PackageRoute route, string projectFile, string directoryBuildProps = "", string directoryBuildTargets = "")
        => Create(folder, route, [new RepositoryProject("", projectFile, directoryBuildProps, directoryBuildTargets)]);

    /// <summary>A repository of several projects, each in its own folder with its own Directory.Build.props and .targets.</summary>
    public static AdoptionPair Create(string folder, PackageRoute route, IReadOnlyList<RepositoryProject> projects)
    {
        if (route == PackageRoute.GlobalPackageReference)
        {
            throw new ArgumentException("central package management is not one of the routes this pair writes", nameof(route));
        }

        string stock = Path.Combine(folder, "stock");
        string adopted = Path.Combine(folder, "adopted");
        foreach ((string root, bool adopt) in new[] { (stock, false), (adopted, true) })
        {
            WriteRepositoryFiles(root);
            foreach (RepositoryProject project in projects)
            {
                WriteProject(Path.Combine(root, project.Folder), route, adopt, project);
            }
        }

        return new AdoptionPair(stock, adopted);
    }

    /// <summary>Marks where in a project file an ItemGroup of package references may go.</summary>
    public const string PackageReferencePlaceholder = "<!-- package references -->";

    private static void WriteRepositoryFiles(string root)
    {
        Directory.CreateDirectory(root);
        File.WriteAllText(Path.Combine(root, "NuGet.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <config>
                <add key="globalPackagesFolder" value="{SdkPackage.PackageCache}" />
              </config>
              <packageSources>
                <clear />
                <add key="CopyOnWriteUnderTest" value="{SdkPackage.Folder}" />
                <add key="nuget.org" value="https://api.nuget.org/v3/index.json" protocolVersion="3" />
              </packageSources>
            </configuration>
            """);
        JsonNode globalJson = JsonNode.Parse(File.ReadAllText(Path.Combine(RepositoryLayout.Root, "global.json")))!;
        globalJson["msbuild-sdks"] = new JsonObject { ["Microsoft.Build.CopyOnWrite"] = SdkPackage.Version };
        File.WriteAllText(Path.Combine(root, "global.json"), globalJson.ToJsonString());
    }

    private static void WriteProject(string folder, PackageRoute route, bool adopt, RepositoryProject project)
    {
        Directory.CreateDirectory(folder);
        string sdkInProps = adopt && route == PackageRoute.SdkElement ? """<Sdk Name="Microsoft.Build.CopyOnWrite" />""" : "";
        string sdkInTargets = adopt && route == PackageRoute.SdkElementWithVersion ? $"""<Sdk Name="Microsoft.Build.CopyOnWrite" Version="{SdkPackage.Version}" />""" : "";
        File.WriteAllText(Path.Combine(folder, "Directory.Build.props"), $"""
            <Project>
              {sdkInProps}
              {project.DirectoryBuildProps}
            </Project>
            """);
        File.WriteAllText(Path.Combine(folder, "Directory.Build.targets"), $"""
            <Project>
              {sdkInTargets}
              {project.DirectoryBuildTargets}
            </Project>
            """);
        string packageReference = adopt && route == PackageRoute.PackageReference
            ? $"""<ItemGroup><PackageReference Include="Microsoft.Build.CopyOnWrite" Version="{SdkPackage.Version}" PrivateAssets="all" /></ItemGroup>"""
            : "";
        File.WriteAllText(Path.Combine(folder, project.FileName), project.ProjectFile.Replace(PackageReferencePlaceholder, packageReference, StringComparison.Ordinal));
        File.WriteAllText(Path.Combine(folder, "Program.cs"), "public static class Program { public static void Main() { } }");
    }
}

/// <summary>One project of an <see cref="AdoptionPair"/>, in <paramref name="Folder"/> (relative; empty: the repository's root).</summary>
public sealed record RepositoryProject(string Folder, string ProjectFile, string DirectoryBuildProps = "", string DirectoryBuildTargets = "")
{
    /// <summary>App.csproj at the root, else named after its folder: a solution's projects need names of their own.</summary>
    public string FileName => Folder.Length == 0 ? AdoptionPair.ProjectFileName : Folder + ".csproj";
}
