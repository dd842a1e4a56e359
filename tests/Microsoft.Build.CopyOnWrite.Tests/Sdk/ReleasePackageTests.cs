using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Text.Json;
using System.Xml.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// The package a release makes: the run's one pack (<see cref="SdkPackage"/>), made by the release command in a clone
/// whose origin is a stand-in of the public repository's URL.
/// </summary>
[TestClass]
public sealed class ReleasePackageTests
{
    private const string StandInRepository = SdkPackage.StandInRepository;

    private static string s_root = null!;

    private static string s_commit = null!;

    [ClassInitialize]
    public static void FindTheReleaseClone(TestContext context)
    {
        s_root = SdkPackage.PackedRepository;
        Assert.AreEqual(StandInRepository + ".git", GitCommand.Run(s_root, "remote", "get-url", "origin").Trim(), "the release clone's origin");
        s_commit = GitCommand.Run(s_root, "rev-parse", "HEAD").Trim();
    }

    [TestMethod]
    public void The_package_names_the_repository_its_commit_and_its_project_page()
    {
        using ZipArchive package = ZipFile.OpenRead(SdkPackage.PackagePath);
        (XDocument nuspec, XNamespace ns) = PackageTests.Nuspec(package);

        XElement repository = nuspec.Descendants(ns + "repository").Single();
        Assert.AreEqual(StandInRepository + ".git", repository.Attribute("url")?.Value, repository.ToString());
        Assert.AreEqual(s_commit, repository.Attribute("commit")?.Value);
        Assert.AreEqual(StandInRepository, nuspec.Descendants(ns + "projectUrl").Single().Value);
    }

    [TestMethod]
    public void The_release_command_builds_under_artifacts_and_writes_nothing_beside_the_sources()
    {
        // ReadyToRun images included: under -artifacts-path the intermediate folder is absolute, not below the project.
        string written = GitCommand.Run(s_root, "status", "--porcelain", "--ignored").Trim();
        Assert.AreEqual("!! artifacts/", written, written);
    }

    [TestMethod]
    public void Every_link_of_the_package_README_into_the_repository_points_at_the_packed_commit()
    {
        using ZipArchive package = ZipFile.OpenRead(SdkPackage.PackagePath);
        string readme = PackageTests.Text(package, "README.md");
        string[] targets = PackageTests.LinkTargets(readme);
        string atCommit = $"{StandInRepository}/blob/{s_commit}/";

        Assert.IsTrue(targets.Count(target => target.StartsWith(atCommit, System.StringComparison.Ordinal)) > 0, "no link into the repository at all:\n" + string.Join("\n", targets));
        Assert.AreEqual(0, targets.Count(target => !PackageTests.HasScheme(target)), "relative links left: " + string.Join(", ", targets.Where(t => !PackageTests.HasScheme(t))));
        foreach (string target in targets.Where(t => t.StartsWith(StandInRepository, System.StringComparison.Ordinal)))
        {
            StringAssert.StartsWith(target, atCommit, "a link into the repository must name the packed commit");
            string path = target[atCommit.Length..].Split('#', '?')[0];
            Assert.IsTrue(File.Exists(Path.Combine(s_root, path)) || Directory.Exists(Path.Combine(s_root, path)), $"{target} points at {path}, which the repository does not have");
        }
    }

    [TestMethod]
    public void Each_PDB_links_its_sources_to_the_packed_commit()
    {
        using ZipArchive package = ZipFile.OpenRead(SdkPackage.PackagePath);
        string expected = $"https://raw.githubusercontent.com/stand-in-owner/stand-in-repository/{s_commit}/*";

        foreach (ZipArchiveEntry pdb in package.Entries.Where(e => e.FullName.EndsWith(".pdb", System.StringComparison.Ordinal)))
        {
            using var memory = new MemoryStream();
            using (Stream stream = pdb.Open())
            {
                stream.CopyTo(memory);
            }

            string? sourceLink = PackedAssemblyFacts.SourceLinkJson(memory.ToArray());
            Assert.IsNotNull(sourceLink, $"{pdb.FullName} has no SourceLink");
            using JsonDocument json = JsonDocument.Parse(sourceLink);
            Assert.AreEqual(expected, json.RootElement.GetProperty("documents").GetProperty("/_/*").GetString(), pdb.FullName);
        }

    }
}
