using System;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Text.Json;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>The package the release command (build/pack.sh) makes of the working tree, read from the .nupkg.</summary>
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

    /// <summary>The working tree has no origin URL: the package names the commit and nothing it cannot know.</summary>
    [TestMethod]
    public void Without_a_repository_URL_the_package_names_the_commit_and_its_README_no_relative_link()
    {
        using ZipArchive package = ZipFile.OpenRead(SdkPackage.PackagePath);
        (XDocument nuspec, XNamespace ns) = Nuspec(package);
        string readme = Text(package, "README.md");

        XElement repository = nuspec.Descendants(ns + "repository").Single();
        Assert.AreEqual("git", repository.Attribute("type")!.Value);
        Assert.IsTrue(Regex.IsMatch(repository.Attribute("commit")?.Value ?? "", "^[0-9a-f]{40}$"), repository.ToString());
        Assert.IsNull(repository.Attribute("url"), "no URL was known, none may be made up: " + repository);
        Assert.AreEqual(0, nuspec.Descendants(ns + "projectUrl").Count());
        Assert.AreEqual(0, LinkTargets(readme).Count(target => !HasScheme(target)), "relative links in the packed README: " + string.Join(", ", LinkTargets(readme)));
        StringAssert.StartsWith(readme, File.ReadLines(Path.Combine(RepositoryLayout.Root, "README.md")).First(), "the packed README is the repository's");
    }

    [TestMethod]
    public void No_file_in_the_package_names_a_folder_of_the_machine_that_built_it()
    {
        using ZipArchive package = ZipFile.OpenRead(SdkPackage.PackagePath);

        AssertNoBuildMachineFolders(package, RepositoryLayout.Root);
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
