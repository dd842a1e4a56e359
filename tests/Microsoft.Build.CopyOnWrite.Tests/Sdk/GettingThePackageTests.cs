using System;
using System.Collections.Generic;
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
    /// (`./build/pack.sh ~/cow-packages`), which is the run's one pack (build/pack-release-clone.sh runs it in a clone of the
    /// working tree, into a folder of the run's). Both packages land there and nothing else; it prints that folder, how to
    /// copy them into the repository, a NuGet.config naming that folder relative to itself (no path of this machine),
    /// the packageSourceMapping entry to add and the tool's install line (no --add-source, no new manifest); one version is
    /// one set of bytes (the SDK package the tool carries is the one beside it, and every file in it has the packed
    /// commit's time, not the time of packing); and those lines, as printed, in a repository whose NuGet.config clears
    /// the sources and maps every package to a public feed under a key of its own, with a tool manifest already, build
    /// with our Copy from an empty package cache and install the tool into that manifest.
    /// </summary>
    [TestMethod]
    public void The_READMEs_get_it_command_packs_both_packages_into_one_folder_and_prints_how_to_use_them()
    {
        string[] commands = File.ReadAllLines(Path.Combine(RepositoryLayout.Root, "README.md")).Where(line => line.StartsWith("./build/pack.sh ", StringComparison.Ordinal)).Distinct().ToArray();
        Assert.AreEqual(1, commands.Length, "the README shows one command that packs: " + string.Join(" | ", commands));
        Assert.AreEqual("./build/pack.sh ~/cow-packages", commands[0].Trim(), "the README's command is the run's pack with a folder of the user's, no other argument");
        string folder = SdkPackage.Folder;
        var pack = new ProcessResult(0, SdkPackage.PackOutput);
        const string ReadmeCopy = "mkdir -p eng/packages && cp ~/cow-packages/";
        StringAssert.Contains(File.ReadAllText(Path.Combine(RepositoryLayout.Root, "README.md")), ReadmeCopy, "the README copies the packages into the repository");

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

        // Packing the same commit twice gives the same bytes because nothing in the package carries the time of packing.
        long commitTime = long.Parse(ProcessRunner.Run("git", ["-C", SdkPackage.PackedRepository, "log", "-1", "--format=%ct"]).Output.Trim());
        using (ZipArchive sdkPackage = ZipFile.OpenRead(Path.Combine(folder, sdk)))
        {
            string[] otherTimes = sdkPackage.Entries.Where(entry => Math.Abs(entry.LastWriteTime.ToUnixTimeSeconds() - commitTime) > 2).Select(entry => $"{entry.FullName} {entry.LastWriteTime:O}").ToArray();
            Assert.AreEqual(string.Empty, string.Join("\n", otherTimes), $"every file in the package has the packed commit's time ({DateTimeOffset.FromUnixTimeSeconds(commitTime):O})");
        }

        StringAssert.Contains(pack.Output, $"Packed version {version} into {folder}:");
        string install = $"dotnet tool install --local Microsoft.Build.CopyOnWrite.Measure --version {version}";
        Assert.AreEqual(install, pack.Output.Split('\n').Single(line => line.StartsWith("dotnet tool install", StringComparison.Ordinal)).Trim(), "no --add-source: the CLI refuses it beside package source mapping");
        Assert.IsFalse(pack.Output.Contains("dotnet new tool-manifest", StringComparison.Ordinal), "no second manifest beside a repository's own");
        XDocument[] configs = Regex.Matches(pack.Output, @"<\?xml.*?</configuration>", RegexOptions.Singleline).Select(match => XDocument.Parse(match.Value)).ToArray();
        Assert.AreEqual(1, configs.Length, "one NuGet.config:\n" + pack.Output);
        XElement source = configs[0].Descendants("add").Single(add => (string?)add.Attribute("key") == "copy-on-write");
        Assert.AreEqual("eng/packages", source.Attribute("value")?.Value, "a folder inside the repository, relative to its NuGet.config: no path of this machine");
        XElement mapping = XElement.Parse(Regex.Match(pack.Output, @"<packageSource key=""copy-on-write"">.*?</packageSource>", RegexOptions.Singleline).Value);
        CollectionAssert.AreEquivalent(new[] { "Microsoft.Build.CopyOnWrite", "Microsoft.Build.CopyOnWrite.Measure" }, mapping.Elements("package").Select(package => (string)package.Attribute("pattern")!).ToArray());
        string copy = pack.Output.Split('\n').Single(line => line.StartsWith("mkdir -p eng/packages", StringComparison.Ordinal));
        string commit = pack.Output.Split('\n').Single(line => line.StartsWith("git add -f eng/packages", StringComparison.Ordinal));
        StringAssert.Contains(File.ReadAllText(Path.Combine(RepositoryLayout.Root, "README.md")), commit, "the README commits them past an ignore file as the command prints");

        string readme = File.ReadAllText(Path.Combine(RepositoryLayout.Root, "README.md"));
        StringAssert.Contains(readme, source.ToString(), "the README shows the NuGet.config the command prints");
        StringAssert.Contains(readme, "<packageSource key=\"copy-on-write\"><package pattern=\"Microsoft.Build.CopyOnWrite\" /><package pattern=\"Microsoft.Build.CopyOnWrite.Measure\" /></packageSource>", "and its mapping");
        StringAssert.Contains(readme, "dotnet tool install --local Microsoft.Build.CopyOnWrite.Measure --version 2.0.0\n", "and the same install line");

        // A repository as real ones are: a NuGet.config that clears the sources and maps every package to its public
        // feed under a key of its own, and a tool manifest already. The printed lines, as printed, in it.
        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder("get-it-repository"), PackageRoute.SdkElement, packageCache: TestScratch.NewFolder("empty-package-cache"));
        repository.Write("NuGet.config", $"""
            <configuration>
              <packageSources>
                <clear />
                <add key="our-public-feed" value="https://api.nuget.org/v3/index.json" protocolVersion="3" />
                {source}
              </packageSources>
              <packageSourceMapping>
                <packageSource key="our-public-feed"><package pattern="*" /></packageSource>
                {mapping}
              </packageSourceMapping>
            </configuration>
            """);
        Directory.CreateDirectory(Path.Combine(repository.Root, ".config"));
        repository.Write(".config/dotnet-tools.json", """{ "version": 1, "isRoot": true, "tools": {} }""");
        ProcessResult copied = ProcessRunner.Run("bash", ["-ec", copy], repository.Root, SdkPackage.BuildEnvironment, TimeSpan.FromMinutes(1));
        Assert.IsTrue(copied.Succeeded, copied.Output);
        repository.AssertOurCopyRan(repository.TryBuild());

        IDictionary<string, string?> newcomer = SdkPackage.BuildEnvironmentWith(new Dictionary<string, string?> { ["NUGET_PACKAGES"] = repository.PackageCache, ["DOTNET_CLI_HOME"] = TestScratch.NewFolder("get-it-home") });
        ProcessResult installed = ProcessRunner.Run("bash", ["-ec", install + " && dotnet cow-measure --version"], repository.Root, newcomer, TimeSpan.FromMinutes(5));
        Assert.IsTrue(installed.Succeeded, installed.Output);
        Assert.IsFalse(File.Exists(Path.Combine(repository.Root, "dotnet-tools.json")), "a second manifest was made beside .config/dotnet-tools.json");
        StringAssert.Contains(File.ReadAllText(Path.Combine(repository.Root, ".config", "dotnet-tools.json")), "microsoft.build.copyonwrite.measure", "the tool goes into the repository's own manifest");
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
