using System;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// A newcomer's first ten minutes, taken from the README's own text: the packages its get-it command made (the
/// command itself is run by GettingThePackageTests), its NuGet.config, its Directory.Build.props and global.json lines,
/// a solution made with `dotnet new`, the package cache on the repository's volume and empty, and a plain
/// `dotnet build` with the README's summary logger line, on XFS: the build says it cloned, and the file system agrees.
/// </summary>
[TestClass]
public sealed class ReadmeWalkthroughTests
{
    private static readonly string Readme = File.ReadAllText(Path.Combine(RepositoryLayout.Root, "README.md"));

    [TestMethod]
    public void A_dotnet_new_solution_set_up_as_the_README_says_clones_on_XFS_and_the_summary_says_so()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = xfs.NewFolder("newcomer");
        string packageCache = xfs.NewFolder("empty-package-cache");
        File.WriteAllText(Path.Combine(repository, "NuGet.config"), ReadmeBlock("xml", "<add key=\"copy-on-write\"").Replace("/home/me/cow-packages", SdkPackage.Folder, StringComparison.Ordinal));
        File.WriteAllText(Path.Combine(repository, "Directory.Build.props"), ReadmeLine("Directory.Build.props:"));
        File.WriteAllText(Path.Combine(repository, "global.json"), ReadmeLine("global.json:").Replace("2.0.0", SdkPackage.Version, StringComparison.Ordinal));
        var environment = SdkPackage.BuildEnvironment;
        environment["NUGET_PACKAGES"] = packageCache;
        foreach (string[] step in new[]
        {
            new[] { "new", "sln", "-n", "App" }, ["new", "console", "-n", "App", "-o", "App"], ["new", "classlib", "-n", "Lib", "-o", "Lib"],
            ["add", "App/App.csproj", "reference", "Lib/Lib.csproj"], ["sln", "add", "App/App.csproj", "Lib/Lib.csproj"],
        })
        {
            ProcessResult made = ProcessRunner.Run("dotnet", step, repository, environment, TimeSpan.FromMinutes(5));
            Assert.IsTrue(made.Succeeded, $"dotnet {string.Join(' ', step)}:\n{made.Output}");
        }

        string buildLine = ReadmeBlock("sh", "dotnet build -logger:").Split('\n').Single(line => line.StartsWith("dotnet build -logger:", StringComparison.Ordinal));

        ProcessResult build = ProcessRunner.Run("bash", ["-c", buildLine], repository, environment, TimeSpan.FromMinutes(10));

        Assert.IsTrue(build.Succeeded, build.Output);
        StringAssert.Matches(build.Output, new Regex(@"CopyOnWrite build summary: cloned \d+ files"), "the summary logger says what it cloned:\n" + build.Output);
        string library = Path.Combine(repository, "Lib", "bin", "Debug", "net10.0", "Lib.dll");
        string copied = Path.Combine(repository, "App", "bin", "Debug", "net10.0", "Lib.dll");
        Assert.IsTrue(TestFiles.SameBytes(library, copied));
        SharedExtents.AssertAllShared(copied, "the library the console app's build copied is a clone of the library's own output");
    }

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
