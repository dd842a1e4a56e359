using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Text.RegularExpressions;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// The README's one way to turn the build-wide summary on, typed as the README writes it (read from README.md and
/// run by bash) in a fresh repository set up as the README says (the &lt;Sdk&gt; element, the version in
/// global.json), on a machine whose package cache does not hold the package: empty, NUGET_PACKAGES unset, and after a
/// version bump. And the evidence for why the README shows no repository-wide switch: the response-file line it used
/// to show breaks restore on such a machine, and MSBuild's logging-arguments variable refuses loggers.
/// </summary>
[TestClass]
public sealed class SummaryWithoutTrapsTests
{
    private const string SummaryLine = "CopyOnWrite build summary:";

    [TestMethod]
    public void The_READMEs_summary_command_builds_and_prints_the_summary_with_an_empty_package_cache()
    {
        string emptyCache = TestScratch.NewFolder("empty-package-cache");
        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder("summary-empty-cache"), PackageRoute.SdkElement, packageCache: emptyCache);

        ProcessResult build = RunReadmeSummaryCommand(repository, Environment(emptyCache));

        AssertSummaryPrintedBy(build, SdkPackage.Version, emptyCache);
        ProcessResult restore = repository.Dotnet(null, "restore");
        Assert.IsTrue(restore.Succeeded, "dotnet restore in the README's repository:\n" + restore.Output);
    }

    [TestMethod]
    public void With_NUGET_PACKAGES_unset_restore_and_the_READMEs_summary_command_work_from_the_default_package_cache()
    {
        // A teammate's machine: no NUGET_PACKAGES, the default cache in a home folder that holds no package yet.
        string home = TestScratch.NewFolder("home-without-packages");
        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder("summary-unset"), PackageRoute.SdkElement, packageCache: Path.Combine(home, ".nuget", "packages"));
        IDictionary<string, string?> environment = Environment(packageCache: null);
        environment["HOME"] = home;
        environment["DOTNET_CLI_HOME"] = home;

        ProcessResult restore = ProcessRunner.Run("dotnet", ["restore"], repository.Root, environment, TimeSpan.FromMinutes(10));
        ProcessResult build = RunReadmeSummaryCommand(repository, environment);

        Assert.IsTrue(restore.Succeeded, "dotnet restore without NUGET_PACKAGES:\n" + restore.Output);
        AssertSummaryPrintedBy(build, SdkPackage.Version, Path.Combine(home, ".nuget", "packages"));
    }

    [TestMethod]
    public void After_a_version_bump_in_global_json_the_READMEs_summary_command_loads_the_new_version()
    {
        string cache = TestScratch.NewFolder("bump-package-cache");
        string feed = TestScratch.NewFolder("bump-feed");
        File.Copy(SdkPackage.PackagePath, Path.Combine(feed, Path.GetFileName(SdkPackage.PackagePath)));
        string bumped = SdkPackage.Version + "-bumped";
        RepackWithVersion(SdkPackage.PackagePath, bumped, Path.Combine(feed, $"Microsoft.Build.CopyOnWrite.{bumped}.nupkg"));
        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder("summary-bump"), PackageRoute.SdkElement, packageCache: cache);
        repository.Write("NuGet.config", $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="feed" value="{feed}" />
              </packageSources>
            </configuration>
            """);
        AssertSummaryPrintedBy(RunReadmeSummaryCommand(repository, Environment(cache)), SdkPackage.Version, cache);

        string globalJson = File.ReadAllText(Path.Combine(repository.Root, "global.json"));
        repository.Write("global.json", globalJson.Replace($"\"{SdkPackage.Version}\"", $"\"{bumped}\"", StringComparison.Ordinal));
        ProcessResult restore = repository.Dotnet(null, "restore");
        ProcessResult build = RunReadmeSummaryCommand(repository, Environment(cache));
        ProcessResult logger = repository.Dotnet(null, "msbuild", "Directory.Build.props", "-getProperty:CopyOnWriteSummaryLogger");

        Assert.IsTrue(restore.Succeeded, "dotnet restore after the bump:\n" + restore.Output);
        AssertSummaryPrintedBy(build, bumped, cache);
        StringAssert.Contains(logger.Output, $"/microsoft.build.copyonwrite/{bumped}/", "the logger comes from the bumped version");
    }

    /// <summary>
    /// With a package reference (plain or global), Directory.Build.props does not hold the logger's property: the
    /// README's line for those routes restores, then asks a project, and prints the summary from an empty cache.
    /// </summary>
    [TestMethod]
    [DataRow(PackageRoute.PackageReference)]
    [DataRow(PackageRoute.GlobalPackageReference)]
    public void The_READMEs_summary_command_for_a_package_reference_route_prints_the_summary_with_an_empty_package_cache(PackageRoute route)
    {
        string emptyCache = TestScratch.NewFolder("empty-package-cache");
        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder("summary-" + route), route, packageCache: emptyCache);
        string line = ReadmeSummaryCommand(".csproj").Replace("App/App.csproj", "Lib.csproj", StringComparison.Ordinal);

        ProcessResult build = ProcessRunner.Run("bash", ["-c", line + " -nologo -nr:false"], repository.Root, Environment(emptyCache), TimeSpan.FromMinutes(10));

        AssertSummaryPrintedBy(build, SdkPackage.Version, emptyCache);
    }

    /// <summary>
    /// Why the README no longer shows a Directory.Build.rsp: MSBuild creates loggers before restore, so the line it
    /// showed fails restore itself (MSB1021) where the package cache does not hold the package; and the variable
    /// MSBuild reads logging arguments from takes no logger (MSB1070).
    /// </summary>
    [TestMethod]
    public void Evidence_a_logger_in_Directory_Build_rsp_breaks_restore_on_an_empty_cache_and_MSBUILD_LOGGING_ARGS_takes_no_logger()
    {
        string emptyCache = TestScratch.NewFolder("rsp-empty-cache");
        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder("summary-rsp"), PackageRoute.SdkElement, packageCache: emptyCache);
        string logger = $"Microsoft.Build.CopyOnWrite.Savings.CopyOnWriteSummaryLogger,%NUGET_PACKAGES%/microsoft.build.copyonwrite/{SdkPackage.Version}/tools/net8.0/Microsoft.Build.CopyOnWrite.dll";
        repository.Write("Directory.Build.rsp", "-logger:" + logger);

        ProcessResult restore = repository.Dotnet(null, "restore");
        ProcessResult bypassed = repository.Dotnet(null, "restore", "-noAutoResponse");
        File.Delete(Path.Combine(repository.Root, "Directory.Build.rsp"));
        ProcessResult fromVariable = repository.Dotnet(new Dictionary<string, string?> { ["MSBUILD_LOGGING_ARGS"] = "-logger:" + logger.Replace("%NUGET_PACKAGES%", emptyCache, StringComparison.Ordinal) }, "build", "-nologo", "-nr:false");

        Assert.IsFalse(restore.Succeeded, "the response-file logger did not break restore:\n" + restore.Output);
        StringAssert.Contains(restore.Output, "MSB1021");
        Assert.IsTrue(bypassed.Succeeded, "-noAutoResponse skips the response file:\n" + bypassed.Output);
        Assert.IsTrue(fromVariable.Succeeded, fromVariable.Output);
        StringAssert.Contains(fromVariable.Output, "MSB1070");
        Assert.IsFalse(fromVariable.Output.Contains(SummaryLine, StringComparison.Ordinal), "MSBuild took a logger from MSBUILD_LOGGING_ARGS:\n" + fromVariable.Output);
    }

    /// <summary>The README's summary command, as the README writes it, run by bash in the repository.</summary>
    private static ProcessResult RunReadmeSummaryCommand(ConsumerRepository repository, IDictionary<string, string?> environment)
        => ProcessRunner.Run("bash", ["-c", ReadmeSummaryCommand("Directory.Build.props") + " -nologo -nr:false"], repository.Root, environment, TimeSpan.FromMinutes(10));

    /// <summary>The README's one command that turns the summary on and reads the logger from <paramref name="askedFrom"/> (Directory.Build.props: the &lt;Sdk&gt; route; .csproj: the package references').</summary>
    private static string ReadmeSummaryCommand(string askedFrom)
    {
        string[] commands = File.ReadAllLines(Path.Combine(RepositoryLayout.Root, "README.md"))
            .Where(line => line.StartsWith("dotnet ", StringComparison.Ordinal) && line.Contains("dotnet build -logger:", StringComparison.Ordinal) && line.Contains("CopyOnWriteSummaryLogger", StringComparison.Ordinal))
            .Where(line => line.Contains(askedFrom + " -getProperty", StringComparison.Ordinal))
            .Distinct()
            .ToArray();
        Assert.AreEqual(1, commands.Length, $"the README must show one command that turns the summary on from {askedFrom}: " + string.Join(" | ", commands));
        return commands[0];
    }

    /// <summary>The build environment with this package cache (NUGET_PACKAGES), or with NUGET_PACKAGES unset when null.</summary>
    private static IDictionary<string, string?> Environment(string? packageCache)
    {
        IDictionary<string, string?> environment = SdkPackage.BuildEnvironment;
        environment["NUGET_PACKAGES"] = packageCache;
        return environment;
    }

    private static void AssertSummaryPrintedBy(ProcessResult build, string version, string packageCache)
    {
        Assert.IsTrue(build.Succeeded, "the README's summary command failed:\n" + build.Output);
        Assert.AreEqual(1, Regex.Matches(build.Output, Regex.Escape(SummaryLine)).Count, "one summary:\n" + build.Output);
        Assert.IsTrue(Regex.IsMatch(build.Output, Regex.Escape(SummaryLine) + @".* [1-9][0-9]* Copy tasks? in [1-9]"), "the summary counts the build's Copy tasks:\n" + build.Output);
        string packageFolder = Path.Combine(packageCache, "microsoft.build.copyonwrite", version.ToLowerInvariant());
        Assert.IsTrue(Directory.Exists(packageFolder), $"the SDK was not fetched into {packageFolder}:\n{build.Output}");
    }

    /// <summary>Our package with another version in its .nuspec, as the next release would be.</summary>
    private static void RepackWithVersion(string package, string version, string destination)
    {
        File.Copy(package, destination);
        using ZipArchive zip = ZipFile.Open(destination, ZipArchiveMode.Update);
        ZipArchiveEntry nuspec = zip.Entries.Single(entry => entry.FullName.EndsWith(".nuspec", StringComparison.Ordinal) && !entry.FullName.Contains('/', StringComparison.Ordinal));
        string text;
        using (var reader = new StreamReader(nuspec.Open()))
        {
            text = reader.ReadToEnd();
        }

        string name = nuspec.FullName;
        nuspec.Delete();
        string bumped = Regex.Replace(text, "<version>[^<]*</version>", $"<version>{version}</version>");
        Assert.AreNotEqual(text, bumped, "the .nuspec has no <version>");
        using var writer = new StreamWriter(zip.CreateEntry(name).Open());
        writer.Write(bumped);
    }
}
