using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Text.Json;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using Microsoft.Build.CopyOnWrite.TestKit;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>The package the release command (build/pack.sh) makes of the working tree, read from the run's one .nupkg (<see cref="SdkPackage"/>).</summary>
[TestClass]
public sealed partial class PackageTests
{
    [TestMethod]
    public void The_package_is_a_development_dependency_MSBuild_SDK_with_both_task_flavours_and_no_MSBuild_assemblies()
    {
        using ZipArchive package = ZipFile.OpenRead(SdkPackage.PackagePath);
        string[] entries = package.Entries.Select(e => e.FullName).ToArray();
        (XDocument nuspec, XNamespace ns) = Nuspec(package);

        CollectionAssert.IsSubsetOf(
            new[] { "Sdk/Sdk.props", "Sdk/Sdk.targets", "Sdk/WarningsNotAsErrors.targets", "build/Microsoft.Build.CopyOnWrite.props", "build/Microsoft.Build.CopyOnWrite.targets", "tools/net8.0/Microsoft.Build.CopyOnWrite.dll", "tools/net472/Microsoft.Build.CopyOnWrite.dll", "tools/multithreaded/net10.0/Microsoft.Build.CopyOnWrite.dll", "tools/multithreaded/net472/Microsoft.Build.CopyOnWrite.dll" },
            entries);
        Assert.IsFalse(entries.Any(e => Path.GetFileName(e).StartsWith("Microsoft.Build.", StringComparison.Ordinal) && !Path.GetFileName(e).StartsWith("Microsoft.Build.CopyOnWrite", StringComparison.Ordinal)), "MSBuild's own assemblies must not ship: " + string.Join(", ", entries));
        Assert.AreEqual("MSBuildSdk", nuspec.Descendants(ns + "packageType").Single().Attribute("name")!.Value);
        Assert.AreEqual("true", nuspec.Descendants(ns + "developmentDependency").Single().Value);
        Assert.AreEqual(0, nuspec.Descendants(ns + "dependency").Count(), "the package must not drag dependencies into users' projects");
    }

    [TestMethod]
    public void The_package_carries_the_MIT_license_its_authors_copyright_description_and_tags()
    {
        using ZipArchive package = ZipFile.OpenRead(SdkPackage.PackagePath);
        (XDocument nuspec, XNamespace ns) = Nuspec(package);

        XElement license = nuspec.Descendants(ns + "license").Single();
        Assert.AreEqual("expression", license.Attribute("type")!.Value);
        Assert.AreEqual("MIT", license.Value);
        string packedLicense = Text(package, "LICENSE");
        Assert.AreEqual(File.ReadAllText(Path.Combine(RepositoryLayout.Root, "LICENSE")), packedLicense, "the package carries the repository's LICENSE");
        StringAssert.StartsWith(packedLicense, "MIT License");
        Assert.AreEqual("Microsoft.Build.CopyOnWrite contributors", nuspec.Descendants(ns + "authors").Single().Value);
        StringAssert.Contains(nuspec.Descendants(ns + "copyright").Single().Value, "Microsoft.Build.CopyOnWrite contributors");
        StringAssert.Contains(nuspec.Descendants(ns + "description").Single().Value, "clones files");
        CollectionAssert.IsSubsetOf(new[] { "msbuild", "copy-on-write", "reflink" }, nuspec.Descendants(ns + "tags").Single().Value.Split(' '));
        Assert.AreEqual("README.md", nuspec.Descendants(ns + "readme").Single().Value);
    }

    [TestMethod]
    public void The_version_sorts_above_the_Windows_only_1_x_package_of_the_same_ID()
    {
        var version = new Version(SdkPackage.Version.Split('-')[0]);

        Assert.IsTrue(version.Major >= 2, $"{SdkPackage.Version} does not sort above 1.0.x and 1.1.x");
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

    /// <summary>
    /// The package's repository facts come from the clone's origin (BuildSupport/PackageReadme.targets, SourceLink), here
    /// asked of those targets in this process, in a small git repository: a URL gives the project URL and README links
    /// at the commit (the run's package shows the same, ReleasePackageTests); a clone whose origin is a folder (a clone
    /// of a clone) names the commit and nothing it cannot know, and its README keeps the links' text.
    /// </summary>
    [TestMethod]
    [DataRow("https://github.com/stand-in-owner/stand-in-repository.git", "https://github.com/stand-in-owner/stand-in-repository")]
    [DataRow("/srv/git/a-folder-not-a-url", "")]
    public void The_package_names_the_repository_only_when_the_origin_is_a_URL_and_always_the_commit(string origin, string expectedUrl)
    {
        string root = TestScratch.NewFolder("origin");
        File.WriteAllText(Path.Combine(root, "README.md"), "# The title\n\nSee [the guide](docs/guide.md), [usage](#usage) and ![the logo](./logo.png).\n\n[reference]: docs/reference.md\n");
        string project = Path.Combine(root, "Packed.csproj");
        File.WriteAllText(project, $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <TargetFramework>net8.0</TargetFramework>
                <PublishRepositoryUrl>true</PublishRepositoryUrl>
                <RepoRoot>$(MSBuildThisFileDirectory)</RepoRoot>
              </PropertyGroup>
              <Import Project="{Path.Combine(Path.GetDirectoryName(RepositoryLayout.TaskProject)!, "BuildSupport", "PackageReadme.targets")}" />
              <!-- What pack writes into the nuspec's repository element, from NuGet's own target. -->
              <Target Name="PackageFacts" DependsOnTargets="WritePackageReadme;_InitializeNuspecRepositoryInformationProperties" />
            </Project>
            """);
        GitCommand.Run(root, "init", "--quiet");
        GitCommand.Run(root, "add", "--all");
        GitCommand.Run(root, "-c", "user.name=Test", "-c", "user.email=test@example.invalid", "commit", "--quiet", "-m", "One commit");
        GitCommand.Run(root, "remote", "add", "origin", origin);
        string commit = GitCommand.Run(root, "rev-parse", "HEAD").Trim();

        (IReadOnlyDictionary<string, string> values, string output) = InProcessMSBuild.Properties(project, "PackageFacts", new Dictionary<string, string>(), ["RepositoryUrl", "RepositoryCommit", "PackageProjectUrl", "_CopyOnWritePackageReadme"]);

        Assert.AreEqual(4, values.Count, output);
        Assert.AreEqual(expectedUrl == "" ? "" : expectedUrl + ".git", values["RepositoryUrl"], "the nuspec's repository URL");
        Assert.AreEqual(commit, values["RepositoryCommit"], "the nuspec's repository commit");
        Assert.AreEqual(expectedUrl, values["PackageProjectUrl"], "the nuspec's project URL");
        string readme = File.ReadAllText(Path.Combine(root, values["_CopyOnWritePackageReadme"]));
        StringAssert.StartsWith(readme, "# The title", "the packed README is the repository's");
        string[] expectedLinks = expectedUrl == ""
            ? []
            : [$"{expectedUrl}/blob/{commit}/docs/guide.md", $"{expectedUrl}/blob/{commit}/README.md#usage", $"{expectedUrl}/blob/{commit}/logo.png?raw=true", $"{expectedUrl}/blob/{commit}/docs/reference.md"];
        CollectionAssert.AreEqual(expectedLinks, LinkTargets(readme), readme);
        StringAssert.Contains(readme, expectedUrl == "" ? "See the guide, usage and the logo." : "[the guide](", readme);
    }

    [TestMethod]
    public void No_file_in_the_package_names_a_folder_of_the_machine_that_built_it()
    {
        using ZipArchive package = ZipFile.OpenRead(SdkPackage.PackagePath);

        AssertNoBuildMachineFolders(package, SdkPackage.PackedRepository);
    }

    /// <summary>
    /// Every DLL names its PDB by a /_/ path and every PDB its sources by /_/ paths (ContinuousIntegrationBuild), and
    /// no file of the package holds one of the building machine's folders (<see cref="PackedAssemblyFacts.BuildMachineFolders"/>).
    /// </summary>
    internal static void AssertNoBuildMachineFolders(ZipArchive package, string repositoryRoot)
    {
        ZipArchiveEntry[] dlls = package.Entries.Where(e => e.FullName.EndsWith(".dll", StringComparison.Ordinal)).ToArray();
        // tools/<flavour>/<framework>/ (IL: two flavours for two frameworks each), and the precompiled copies one folder
        // deeper (tools/<flavour>/<framework>/<runtime>-<rid>/, docs/precompiled-task.md): every one is checked.
        ZipArchiveEntry[] tasks = dlls.Where(e => e.Name == "Microsoft.Build.CopyOnWrite.dll").ToArray();
        Assert.AreEqual(4, tasks.Count(e => e.FullName.Split('/').Length == (e.FullName.Contains("/multithreaded/") ? 4 : 3)), "IL: two flavours for two frameworks each");
        Assert.IsTrue(tasks.Length > 4, "and the precompiled copies");
        CollectionAssert.AreEquivalent(
            tasks.Select(e => e.FullName.Replace("Microsoft.Build.CopyOnWrite.dll", "Microsoft.Build.CopyOnWrite.SummaryLogger.dll", StringComparison.Ordinal)).ToArray(),
            dlls.Except(tasks).Select(e => e.FullName).ToArray(),
            "the summary logger beside each task assembly, and nothing else");
        foreach (ZipArchiveEntry dll in dlls)
        {
            string pdbPath = PackedAssemblyFacts.PdbPathNamedBy(Bytes(dll));
            StringAssert.StartsWith(pdbPath, "/_/", $"{dll.FullName} names its PDB by a local path");

            ZipArchiveEntry? pdbEntry = package.GetEntry(Path.ChangeExtension(dll.FullName, ".pdb"));
            Assert.IsNotNull(pdbEntry, $"{dll.FullName} has no PDB beside it");
            byte[] pdb = Bytes(pdbEntry);
            var documents = PackedAssemblyFacts.SourceDocuments(pdb);
            int atLeast = dll.Name == "Microsoft.Build.CopyOnWrite.dll" ? 10 : 2;
            Assert.IsTrue(documents.Count > atLeast, $"{dll.FullName}'s PDB names only {documents.Count} sources");
            Assert.IsTrue(documents.All(d => d.StartsWith("/_/", StringComparison.Ordinal)), $"{dll.FullName}'s PDB names local sources: " + string.Join(", ", documents.Where(d => !d.StartsWith("/_/", StringComparison.Ordinal)).Take(5)));
        }

        foreach (ZipArchiveEntry entry in package.Entries)
        {
            byte[] bytes = Bytes(entry);
            bool writtenByTheBuild = entry.FullName.EndsWith(".dll", StringComparison.Ordinal) || entry.FullName.EndsWith(".pdb", StringComparison.Ordinal) || entry.FullName.EndsWith(".nuspec", StringComparison.Ordinal);
            foreach (string folder in PackedAssemblyFacts.BuildMachineFolders(repositoryRoot, writtenByTheBuild))
            {
                Assert.IsFalse(PackedAssemblyFacts.Contains(bytes, folder), $"{entry.FullName} holds the build machine's folder {folder}");
            }
        }
    }

    internal static (XDocument Nuspec, XNamespace Ns) Nuspec(ZipArchive package)
    {
        using Stream stream = package.Entries.Single(e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal)).Open();
        XDocument nuspec = XDocument.Load(stream);
        return (nuspec, nuspec.Root!.Name.Namespace);
    }

    internal static string Text(ZipArchive package, string entryName)
    {
        using var reader = new StreamReader(package.GetEntry(entryName)!.Open());
        return reader.ReadToEnd();
    }

    /// <summary>The targets of a Markdown text's inline links and images, and of its reference definitions.</summary>
    internal static string[] LinkTargets(string markdown)
        => InlineLinkTarget().Matches(markdown).Select(m => m.Groups[1].Value)
            .Concat(ReferenceDefinitionTarget().Matches(markdown).Select(m => m.Groups[1].Value))
            .ToArray();

    internal static bool HasScheme(string target) => Regex.IsMatch(target, "^[A-Za-z][A-Za-z0-9+.-]*:");

    private static byte[] Bytes(ZipArchiveEntry entry)
    {
        using Stream stream = entry.Open();
        using var memory = new MemoryStream();
        stream.CopyTo(memory);
        return memory.ToArray();
    }

    [GeneratedRegex(@"\]\(([^)\s]+)[^)]*\)")]
    private static partial Regex InlineLinkTarget();

    [GeneratedRegex(@"(?m)^\s{0,3}\[[^\]]+\]:\s*(\S+)")]
    private static partial Regex ReferenceDefinitionTarget();
}
