using System;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Text.Json;
using System.Xml.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>The package itself, and the PackageReference route into a build.</summary>
[TestClass]
public sealed class PackageTests
{
    [TestMethod]
    public void The_package_is_a_development_dependency_MSBuild_SDK_with_both_task_flavours_and_no_MSBuild_assemblies()
    {
        using ZipArchive package = ZipFile.OpenRead(SdkPackage.PackagePath);
        string[] entries = package.Entries.Select(e => e.FullName).ToArray();
        XDocument nuspec = XDocument.Load(package.Entries.Single(e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal)).Open());
        XNamespace ns = nuspec.Root!.Name.Namespace;

        CollectionAssert.IsSubsetOf(
            new[] { "Sdk/Sdk.props", "Sdk/Sdk.targets", "build/Microsoft.Build.CopyOnWrite.props", "build/Microsoft.Build.CopyOnWrite.targets", "tools/net8.0/Microsoft.Build.CopyOnWrite.dll", "tools/net472/Microsoft.Build.CopyOnWrite.dll", "tools/multithreaded/net10.0/Microsoft.Build.CopyOnWrite.dll", "tools/multithreaded/net472/Microsoft.Build.CopyOnWrite.dll" },
            entries);
        Assert.IsFalse(entries.Any(e => Path.GetFileName(e).StartsWith("Microsoft.Build.", StringComparison.Ordinal) && !Path.GetFileName(e).StartsWith("Microsoft.Build.CopyOnWrite", StringComparison.Ordinal)), "MSBuild's own assemblies must not ship: " + string.Join(", ", entries));
        Assert.AreEqual("MSBuildSdk", nuspec.Descendants(ns + "packageType").Single().Attribute("name")!.Value);
        Assert.AreEqual("true", nuspec.Descendants(ns + "developmentDependency").Single().Value);
        Assert.AreEqual(0, nuspec.Descendants(ns + "dependency").Count(), "the package must not drag dependencies into users' projects");
    }

    [TestMethod]
    public void A_PackageReference_replaces_Copy_and_DisableCopyOnWrite_brings_the_stock_task_back()
    {
        string folder = TestScratch.NewFolder("packagereference");
        SdkPackage.WriteNuGetConfig(folder);
        File.WriteAllText(Path.Combine(folder, "global.json"), File.ReadAllText(Path.Combine(RepositoryLayout.Root, "global.json")));
        File.WriteAllText(Path.Combine(folder, "Tool.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <OutputType>Exe</OutputType>
                <TargetFramework>net10.0</TargetFramework>
              </PropertyGroup>
              <ItemGroup>
                <PackageReference Include="Microsoft.Build.CopyOnWrite" Version="{SdkPackage.Version}" PrivateAssets="all" />
                <None Include="data.bin" CopyToOutputDirectory="PreserveNewest" />
              </ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(folder, "Program.cs"), "System.Console.WriteLine(\"tool\");");
        TestFiles.Write(folder, "data.bin", 200_000);

        var withPackage = new BuildLog(SdkPackage.Dotnet(folder, "build", "-v:n", "-nologo", "-nr:false").Output);
        Directory.Delete(Path.Combine(folder, "bin"), recursive: true);
        var disabled = new BuildLog(SdkPackage.Dotnet(folder, "build", "-v:n", "-nologo", "-nr:false", "-p:DisableCopyOnWrite=true").Output);

        Assert.IsTrue(withPackage.SummaryLines.Count > 0, "no CopyOnWrite summary through PackageReference:\n" + withPackage);
        Assert.IsTrue(File.Exists(Path.Combine(folder, "bin", "Debug", "net10.0", "data.bin")));
        Assert.AreEqual(0, disabled.SummaryLines.Count, "DisableCopyOnWrite=true still ran our task:\n" + disabled);
        Assert.IsTrue(disabled.CopyingLines.Count > 0);
    }

    [TestMethod]
    [DataRow("global.json")]
    [DataRow("samples/global.json")]
    public void Each_global_json_asks_for_the_version_this_repository_packs(string globalJsonPath)
    {
        using JsonDocument globalJson = JsonDocument.Parse(File.ReadAllText(Path.Combine(RepositoryLayout.Root, globalJsonPath)));
        string wanted = globalJson.RootElement.GetProperty("msbuild-sdks").GetProperty("Microsoft.Build.CopyOnWrite").GetString()!;

        Assert.AreEqual(SdkPackage.Version, wanted, $"{globalJsonPath} names another version than Directory.Build.props packs");
    }
}
