using System;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Security.Cryptography;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// Each way the README shows to get the package, as a real build of a small repository from the packed package
/// in a package cache of the test run's own. "Our Copy ran" is MSBuild's own word: its "Using Copy task from
/// assembly" line names the task assembly in that cache, and our summary line and the copied file are there.
/// </summary>
[TestClass]
public sealed class GettingThePackageTests
{
    [TestMethod]
    [DataRow(PackageRoute.SdkElement)]
    [DataRow(PackageRoute.SdkElementWithVersion)]
    [DataRow(PackageRoute.PackageReference)]
    [DataRow(PackageRoute.GlobalPackageReference)]
    public void Each_route_into_a_repository_runs_our_Copy(PackageRoute route)
    {
        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder($"route-{route}"), route);

        ProcessResult build = repository.TryBuild();

        repository.AssertOurCopyRan(build);
    }

    /// <summary>
    /// No version is published, so the README's "Get it" builds both packages from this clone: its command
    /// (`./build/pack.sh ~/cow-packages`), run as written but into a folder of the test's, not yet made. Both packages
    /// land there and nothing else; it prints that folder, a NuGet.config naming it as a source (without and with
    /// packageSourceMapping) and the tool's install line from it; one version is one set of bytes (the SDK package the
    /// tool carries is the one beside it, and the same script packed the same bytes earlier in this run); and the
    /// printed NuGet.config with packageSourceMapping, as printed, lets a repository with an empty package cache build
    /// with our Copy.
    /// </summary>
    [TestMethod]
    public void The_READMEs_get_it_command_packs_both_packages_into_one_folder_and_prints_how_to_use_them()
    {
        const string ReadmeFolder = "~/cow-packages";
        string[] commands = File.ReadAllLines(Path.Combine(RepositoryLayout.Root, "README.md")).Where(line => line.StartsWith("./build/pack.sh ", StringComparison.Ordinal)).Distinct().ToArray();
        Assert.AreEqual(1, commands.Length, "the README shows one command that packs: " + string.Join(" | ", commands));
        StringAssert.Contains(commands[0], ReadmeFolder);
        string earlierSdkPackage = SdkPackage.PackagePath;
        string folder = Path.Combine(TestScratch.NewFolder("get-it"), "cow-packages");

        ProcessResult pack = ProcessRunner.Run("bash", ["-c", commands[0].Replace(ReadmeFolder, folder, StringComparison.Ordinal)], RepositoryLayout.Root, SdkPackage.PackEnvironment, TimeSpan.FromMinutes(10));

        Assert.IsTrue(pack.Succeeded, pack.Output);
        string version = SdkPackage.Version;
        string sdk = $"Microsoft.Build.CopyOnWrite.{version}.nupkg";
        string tool = $"Microsoft.Build.CopyOnWrite.Measure.{version}.nupkg";
        CollectionAssert.AreEquivalent(new[] { sdk, tool }, Directory.GetFiles(folder).Select(Path.GetFileName).ToArray());
        string sdkHash = Sha256(File.ReadAllBytes(Path.Combine(folder, sdk)));
        using (ZipArchive toolPackage = ZipFile.OpenRead(Path.Combine(folder, tool)))
        {
            ZipArchiveEntry carried = toolPackage.Entries.Single(entry => entry.FullName.EndsWith("/sdk/" + sdk, StringComparison.Ordinal));
            using var bytes = new MemoryStream();
            using (Stream stream = carried.Open())
            {
                stream.CopyTo(bytes);
            }

            Assert.AreEqual(sdkHash, Sha256(bytes.ToArray()), "the tool carries another SDK package of the same version than the one beside it");
        }

        Assert.AreEqual(Sha256(File.ReadAllBytes(earlierSdkPackage)), sdkHash, "packing the same tree at the same commit twice gave two SDK packages of one version (every file's time in the package is the HEAD commit's: a commit between the two packs changes it)");

        StringAssert.Contains(pack.Output, $"Packed version {version} into {folder}:");
        StringAssert.Contains(pack.Output, $"dotnet tool install --local Microsoft.Build.CopyOnWrite.Measure --version {version} --add-source {folder}");
        XDocument[] configs = Regex.Matches(pack.Output, @"<\?xml.*?</configuration>", RegexOptions.Singleline).Select(match => XDocument.Parse(match.Value)).ToArray();
        Assert.AreEqual(2, configs.Length, "a NuGet.config without and one with packageSourceMapping:\n" + pack.Output);
        foreach (XDocument config in configs)
        {
            Assert.AreEqual(folder, config.Descendants("add").Single(add => (string?)add.Attribute("key") == "copy-on-write").Attribute("value")?.Value);
        }

        Assert.IsFalse(configs[0].Descendants("packageSourceMapping").Any());
        string[] mapped = configs[1].Descendants("packageSource").Single(source => (string?)source.Attribute("key") == "copy-on-write").Elements("package").Select(package => (string)package.Attribute("pattern")!).ToArray();
        CollectionAssert.AreEquivalent(new[] { "Microsoft.Build.CopyOnWrite", "Microsoft.Build.CopyOnWrite.Measure" }, mapped);

        string readme = File.ReadAllText(Path.Combine(RepositoryLayout.Root, "README.md"));
        StringAssert.Contains(readme, "<add key=\"copy-on-write\" value=", "the README shows the NuGet.config the command prints");
        StringAssert.Contains(readme, "<packageSource key=\"copy-on-write\"><package pattern=\"Microsoft.Build.CopyOnWrite\" /></packageSource>", "and its mapping");
        StringAssert.Contains(readme, $"--add-source {ReadmeFolder}", "and installs the tool from the same folder");

        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder("get-it-repository"), PackageRoute.SdkElement, packageCache: TestScratch.NewFolder("empty-package-cache"));
        repository.Write("NuGet.config", configs[1].ToString());
        repository.AssertOurCopyRan(repository.TryBuild());
    }

    private static string Sha256(byte[] bytes) => Convert.ToHexString(SHA256.HashData(bytes));

    /// <summary>Central package management keeps versions out of project files, so the plain PackageReference snippet fails there.</summary>
    [TestMethod]
    public void Under_central_package_management_a_PackageReference_with_a_version_fails_with_NU1008()
    {
        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder("cpm-packagereference"), PackageRoute.PackageReference);
        repository.Write("Directory.Packages.props", """
            <Project>
              <PropertyGroup>
                <ManagePackageVersionsCentrally>true</ManagePackageVersionsCentrally>
              </PropertyGroup>
            </Project>
            """);

        ProcessResult build = repository.TryBuild();

        Assert.IsFalse(build.Succeeded, "expected NU1008:\n" + build.Output);
        StringAssert.Contains(build.Output, "error NU1008");
        StringAssert.Contains(build.Output, "Microsoft.Build.CopyOnWrite");
    }

    /// <summary>
    /// The &lt;Sdk&gt; element without a version takes it from global.json's msbuild-sdks: a missing entry or a mistyped
    /// version is MSBuild's MSB4236, the case the README's troubleshooting entry names.
    /// </summary>
    [TestMethod]
    [DataRow("missing")]
    [DataRow("2.0.O")]
    public void A_missing_or_mistyped_msbuild_sdks_entry_in_global_json_is_MSB4236_as_the_README_says(string entry)
    {
        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder("global-json"), PackageRoute.SdkElement, packageCache: TestScratch.NewFolder("empty-package-cache"));
        string globalJson = File.ReadAllText(Path.Combine(repository.Root, "global.json"));
        repository.Write("global.json", entry == "missing"
            ? System.Text.RegularExpressions.Regex.Replace(globalJson, @",?\s*""msbuild-sdks""\s*:\s*\{[^}]*\}", string.Empty)
            : globalJson.Replace($"\"{SdkPackage.Version}\"", $"\"{entry}\"", System.StringComparison.Ordinal));

        ProcessResult build = repository.TryBuild();

        Assert.IsFalse(build.Succeeded, build.Output);
        StringAssert.Contains(build.Output, "error MSB4236");
        const string Why = "did not resolve this SDK because there was no version specified in the project or global.json";
        StringAssert.Contains(build.Output, Why, "a mistyped version reads as none to NuGet");
        string readme = string.Join(" ", File.ReadAllLines(Path.Combine(RepositoryLayout.Root, "README.md")));
        StringAssert.Contains(readme, "**MSB4236**");
        StringAssert.Contains(readme, Why, "the README's entry quotes the resolver's reason");
        StringAssert.Contains(readme, "no `msbuild-sdks` entry for it, or a mistyped version", "and names both causes");
    }

    /// <summary>
    /// With packageSourceMapping, NuGet looks for a package only on the sources mapped to it. A repository whose
    /// mapping sends every ID to its own feed cannot resolve the SDK (MSB4236) until our package is mapped to the
    /// source that serves it. The package cache starts empty, as on a fresh machine: a package already in the cache
    /// is used without asking any source.
    /// </summary>
    [TestMethod]
    public void With_package_source_mapping_the_SDK_is_not_found_until_our_package_is_mapped_to_its_source()
        => AssertSourceMappingNeedsOurPackageMapped("source-mapping", PackageRoute.SdkElement, expectedError: "error MSB4236");

    [TestMethod]
    public void With_package_source_mapping_a_GlobalPackageReference_needs_the_same_entry()
        => AssertSourceMappingNeedsOurPackageMapped("source-mapping-cpm", PackageRoute.GlobalPackageReference, expectedError: "error NU1101");

    /// <summary>
    /// Builds a repository taking our package by <paramref name="route"/>, from an empty package cache, once with a
    /// NuGet.config whose source mapping leaves our package out (the build fails with <paramref name="expectedError"/>
    /// and NuGet's source-mapping explanation) and once with our package mapped to its source (our Copy runs).
    /// </summary>
    private static void AssertSourceMappingNeedsOurPackageMapped(string name, PackageRoute route, string expectedError)
    {
        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder(name), route, packageCache: TestScratch.NewFolder("empty-package-cache"));
        string companyFeed = TestScratch.NewFolder("company-feed");

        repository.Write("NuGet.config", NuGetConfigWithSourceMapping(companyFeed, mapOurPackage: false));
        ProcessResult unmapped = repository.TryBuild();
        repository.Write("NuGet.config", NuGetConfigWithSourceMapping(companyFeed, mapOurPackage: true));
        ProcessResult mapped = repository.TryBuild();

        Assert.IsFalse(unmapped.Succeeded, unmapped.Output);
        StringAssert.Contains(unmapped.Output, expectedError);
        StringAssert.Contains(unmapped.Output, "PackageSourceMapping is enabled");
        repository.AssertOurCopyRan(mapped);
    }

    /// <summary>A repository's NuGet.config that maps every package to its own feed, and ours (when asked) to the source serving it.</summary>
    private static string NuGetConfigWithSourceMapping(string companyFeed, bool mapOurPackage)
    {
        string ourMapping = mapOurPackage
            ? """
              <packageSource key="copy-on-write">
                  <package pattern="Microsoft.Build.CopyOnWrite" />
                </packageSource>
              """
            : "";
        return $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="company" value="{companyFeed}" />
                <add key="copy-on-write" value="{SdkPackage.Folder}" />
              </packageSources>
              <packageSourceMapping>
                <packageSource key="company">
                  <package pattern="*" />
                </packageSource>
                {ourMapping}
              </packageSourceMapping>
            </configuration>
            """;
    }
}
