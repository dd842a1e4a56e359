using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// The README's quick start, step by step from its own text, on XFS: the package cache on the volume and empty, the
/// packages its get-it command made (the command itself is run by GettingThePackageTests) copied into the repository
/// as it says, its NuGet.config (naming them relative to itself),
/// Directory.Build.props and global.json lines, a solution made with `dotnet new`, its build line with the summary
/// logger (the build says it cloned, and the file system agrees), its filefrag line, and its tool lines (a local tool,
/// then the doctor, which finds the repository clones what it builds); then, as a team commits it with `git add -A`
/// past .NET's ignore file, a fresh clone on an empty package cache runs the README's CI line and builds.
/// </summary>
[TestClass]
public sealed class ReadmeWalkthroughTests
{
    private static readonly string Readme = File.ReadAllText(Path.Combine(RepositoryLayout.Root, "README.md"));

    [TestMethod]
    public void A_dotnet_new_solution_set_up_as_the_READMEs_quick_start_says_clones_on_XFS_and_the_summary_the_file_system_and_the_doctor_agree()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = xfs.NewFolder("newcomer");
        string packageCache = xfs.NewFolder("empty-package-cache");
        // A repository as a team has it: in git, with .NET's own ignore file (*.nupkg, packages/) and a `packages` line.
        GitCommand.Run(repository, "init", "-q");
        ProcessResult ignoreFile = ProcessRunner.Run("dotnet", ["new", "gitignore"], repository, SdkPackage.BuildEnvironment, TimeSpan.FromMinutes(2));
        Assert.IsTrue(ignoreFile.Succeeded, ignoreFile.Output);
        File.AppendAllText(Path.Combine(repository, ".gitignore"), "\npackages\n");
        File.WriteAllText(Path.Combine(repository, "NuGet.config"), ReadmeBlock("xml", "<add key=\"copy-on-write\""));
        ProcessResult packagesCopied = RunReadmeLines(ReadmeBlock("sh", "mkdir -p eng/packages").Replace("~/cow-packages", SdkPackage.Folder, StringComparison.Ordinal), repository, SdkPackage.BuildEnvironment);
        Assert.IsTrue(packagesCopied.Succeeded, "the README's copy into the repository:\n" + packagesCopied.Output);
        File.WriteAllText(Path.Combine(repository, "Directory.Build.props"), ReadmeLine("Directory.Build.props:"));
        File.WriteAllText(Path.Combine(repository, "global.json"), ReadmeLine("global.json:").Replace("2.0.0", SdkPackage.Version, StringComparison.Ordinal));
        var environment = SdkPackage.BuildEnvironment;
        environment["NUGET_PACKAGES"] = packageCache;
        // A newcomer's CLI home: the .NET CLI's cache of local tools would otherwise point into an earlier test's package cache.
        environment["DOTNET_CLI_HOME"] = TestScratch.NewFolder("newcomer-home");
        foreach (string[] step in new[]
        {
            new[] { "new", "sln", "-n", "App" }, ["new", "console", "-n", "App", "-o", "App"], ["new", "classlib", "-n", "Lib", "-o", "Lib"],
            ["add", "App/App.csproj", "reference", "Lib/Lib.csproj"], ["sln", "add", "App/App.csproj", "Lib/Lib.csproj"],
        })
        {
            ProcessResult made = ProcessRunner.Run("dotnet", step, repository, environment, TimeSpan.FromMinutes(5));
            Assert.IsTrue(made.Succeeded, $"dotnet {string.Join(' ', step)}:\n{made.Output}");
        }

        ProcessResult build = RunReadmeLines(ReadmeBlock("sh", "dotnet build -logger:"), repository, environment);
        ProcessResult rebuild = RunReadmeLines(ReadmeBlock("sh", "dotnet build -logger:"), repository, environment);
        ProcessResult filefrag = RunReadmeLines(ReadmeBlock("sh", "filefrag -v"), repository, environment);
        ProcessResult tool = RunReadmeLines(ReadmeBlock("sh", "dotnet tool install --local").Replace("2.0.0", SdkPackage.Version, StringComparison.Ordinal), repository, environment);

        Assert.IsTrue(build.Succeeded, build.Output);
        string readmeSummary = Regex.Match(Readme, "\n(CopyOnWrite build summary: [^\n]*)").Groups[1].Value;
        // Sizes depend on the repository's path (it is in the .pdb and .deps.json files): the rest is word for word.
        static string WithoutSizes(string text) => Regex.Replace(text, @"\d+(\.\d+)? (bytes|KiB|MiB|GiB)", "SIZE");
        StringAssert.Contains(WithoutSizes(build.Output), WithoutSizes(readmeSummary), "the summary line the README shows, as this solution prints it");
        string readmeRebuild = Regex.Match(Readme, "built again, `([^`]+)`").Groups[1].Value;
        Assert.IsTrue(rebuild.Succeeded, rebuild.Output);
        StringAssert.Contains(rebuild.Output, "CopyOnWrite build summary: " + readmeRebuild, "built again, the summary the README quotes");
        string library = Path.Combine(repository, "Lib", "bin", "Debug", "net10.0", "Lib.dll");
        string copied = Path.Combine(repository, "App", "bin", "Debug", "net10.0", "Lib.dll");
        Assert.IsTrue(TestFiles.SameBytes(library, copied));
        SharedExtents.AssertAllShared(copied, "the library the console app's build copied is a clone of the library's own output");
        Assert.IsTrue(filefrag.Succeeded && int.Parse(filefrag.Output.Trim().Split('\n')[^1]) > 0, "the README's filefrag line finds shared extents:\n" + filefrag.Output);
        Assert.IsTrue(tool.Succeeded, "the README's tool lines:\n" + tool.Output);
        StringAssert.Contains(tool.Output, "What a build with CopyOnWriteMode=Required would do", tool.Output);
        Assert.IsTrue(File.Exists(Path.Combine(repository, "dotnet-tools.json")) && !Directory.Exists(Path.Combine(repository, ".config")), "without a manifest of its own, the repository gets dotnet-tools.json in its root, as the README says");

        // What the team commits is what CI gets: `git add -A`, a fresh clone, an empty package cache and CLI home, and
        // the README's CI line before the build.
        GitCommand.Run(repository, "add", "-A");
        GitCommand.Run(repository, "-c", "user.name=newcomer", "-c", "user.email=newcomer@example.invalid", "commit", "-q", "-m", "Adopt Microsoft.Build.CopyOnWrite");
        string clone = Path.Combine(xfs.NewFolder("ci"), "clone");
        GitCommand.Run(repository, "clone", "-q", repository, clone);
        var ci = SdkPackage.BuildEnvironment;
        ci["NUGET_PACKAGES"] = xfs.NewFolder("ci-empty-package-cache");
        ci["DOTNET_CLI_HOME"] = TestScratch.NewFolder("ci-home");
        string ciLine = Regex.Match(Readme, "On CI, before the build, `([^`]+)`").Groups[1].Value;
        Assert.AreEqual("dotnet tool restore && dotnet cow-measure doctor --require-clone", ciLine, "the README's CI line");
        ProcessResult doctorOnCi = RunReadmeLines(ciLine, clone, ci);
        ProcessResult buildOnCi = RunReadmeLines(ReadmeBlock("sh", "dotnet build -logger:"), clone, ci);

        Assert.IsTrue(doctorOnCi.Succeeded, "the fresh clone restores the tool and the doctor finds it clones what it builds (exit 0):\n" + doctorOnCi.Output);
        Assert.IsTrue(buildOnCi.Succeeded, buildOnCi.Output);
        StringAssert.Matches(buildOnCi.Output, new Regex(@"CopyOnWrite build summary: cloned \d+ files"), "the clone builds with our Copy from an empty package cache:\n" + buildOnCi.Output);
    }

    /// <summary>The lines of a README block, run by bash in <paramref name="folder"/> as a user types them (set -e: the first failing line fails it).</summary>
    private static ProcessResult RunReadmeLines(string block, string folder, IDictionary<string, string?> environment)
        => ProcessRunner.Run("bash", ["-ec", block], folder, environment, TimeSpan.FromMinutes(10));

    /// <summary>The first fenced block of the README in that language that contains <paramref name="containing"/>.</summary>
    private static string ReadmeBlock(string language, string containing)
    {
        string? block = Regex.Matches(Readme, $"```{language}\\n(.*?)```", RegexOptions.Singleline)
            .Select(match => match.Groups[1].Value)
            .FirstOrDefault(text => text.Contains(containing, StringComparison.Ordinal));
        Assert.IsNotNull(block, $"the README has no ```{language} block with {containing}");
        return block!;
    }

    /// <summary>What follows "<paramref name="label"/>" on the README's line that starts with it (a file's one-line content).</summary>
    private static string ReadmeLine(string label)
    {
        string? line = Readme.Split('\n').FirstOrDefault(l => l.StartsWith(label, StringComparison.Ordinal));
        Assert.IsNotNull(line, $"the README has no line starting {label}");
        return line![label.Length..].Trim();
    }
}
