using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// Whatever a repository says about warnings as errors (its project files, Directory.Build.props and .targets, the
/// command line, the environment), a real build with our SDK ends as the same build without it: the same warnings
/// kept, the same turned into errors, the same exit code. Only COW006 differs, by design: never an error.
/// Each project of the repository warns XX1001, XX1002, XX1003 and COW006 (as our engine-fault warning would); two
/// also restore a package version the source does not have, so NuGet warns NU1603 (the warning a public repository's
/// kept list held and that importing the SDK turned into 56 errors). The builds run in this process (our targets are
/// the question, not `dotnet`'s command line): the command line's switches go to MSBuild as the command line hands them.
/// </summary>
[TestClass]
public sealed class WarningsAsErrorsParityTests
{
    private const string Warnings = """
        <Target Name="EmitWarnings">
          <Warning Code="XX1001" Text="first" />
          <Warning Code="XX1002" Text="second" />
          <Warning Code="XX1003" Text="third" />
          <Warning Code="COW006" Text="as our engine-fault warning" />
        </Target>
        """;

    /// <summary>A version below every one the package source serves (1.7.8 is the next): restore warns NU1603.</summary>
    private const string UnservedVersion = """<ItemGroup><PackageReference Include="Microsoft.Build.Locator" Version="1.7.0" /></ItemGroup>""";

    private const string Kept = "<MSBuildTreatWarningsAsErrors>true</MSBuildTreatWarningsAsErrors><WarningsNotAsErrors>XX1001;NU1603</WarningsNotAsErrors>";

    private static readonly RepositoryProject[] Projects =
    [
        Project("kept-in-props", props: Kept, packages: UnservedVersion),
        Project("kept-in-project", body: Kept, packages: UnservedVersion),
        Project("kept-in-targets", targets: Kept),
        Project("treat-in-props", props: "<TreatWarningsAsErrors>true</TreatWarningsAsErrors><WarningsNotAsErrors>XX1002</WarningsNotAsErrors>"),
        Project("as-errors-and-nowarn", body: "<WarningsAsErrors>XX1001</WarningsAsErrors><NoWarn>$(NoWarn);XX1002</NoWarn>"),
        Project("msbuild-properties", body: "<MSBuildTreatWarningsAsErrors>true</MSBuildTreatWarningsAsErrors><MSBuildWarningsNotAsErrors>XX1002</MSBuildWarningsNotAsErrors><MSBuildWarningsAsMessages>XX1003</MSBuildWarningsAsMessages>"),
        Project("msbuild-as-errors-in-props", props: "<MSBuildWarningsAsErrors>XX1002</MSBuildWarningsAsErrors><WarningsNotAsErrors>XX1001</WarningsNotAsErrors>"),
        Project("nowarn-in-targets", targets: "<TreatWarningsAsErrors>true</TreatWarningsAsErrors><NoWarn>$(NoWarn);XX1003</NoWarn><WarningsNotAsErrors>XX1002</WarningsNotAsErrors>"),
        Project("plain"),
    ];

    [TestMethod]
    [DataRow(PackageRoute.SdkElement, "")]
    [DataRow(PackageRoute.SdkElement, "-warnAsError")]
    [DataRow(PackageRoute.SdkElement, "-warnAsError -warnNotAsError:XX1002")]
    [DataRow(PackageRoute.SdkElement, "-p:MSBuildTreatWarningsAsErrors=true -p:WarningsNotAsErrors=XX1003")]
    [DataRow(PackageRoute.SdkElement, "environment: MSBuildTreatWarningsAsErrors=true WarningsNotAsErrors=XX1002")]
    [DataRow(PackageRoute.PackageReference, "")]
    [DataRow(PackageRoute.PackageReference, "-warnAsError")]
    [DataRow(PackageRoute.PackageReference, "-warnAsError -warnNotAsError:XX1002")]
    [DataRow(PackageRoute.PackageReference, "-p:MSBuildTreatWarningsAsErrors=true -p:WarningsNotAsErrors=XX1003")]
    [DataRow(PackageRoute.PackageReference, "environment: MSBuildTreatWarningsAsErrors=true WarningsNotAsErrors=XX1002")]
    public void A_build_ends_as_it_does_without_the_SDK_except_that_our_warnings_are_never_errors(PackageRoute route, string commandLine)
    {
        AdoptionPair pair = AdoptionPair.Create(TestScratch.NewFolder("warnings-as-errors"), route, Projects);
        File.WriteAllText(Path.Combine(pair.Adopted, "All.slnx"), Solution());
        (ProcessResult Restore, ProcessResult Build, string Root) stock = StockOutcomes.GetOrAdd(commandLine, _ =>
        {
            File.WriteAllText(Path.Combine(pair.Stock, "All.slnx"), Solution());
            (ProcessResult restore, ProcessResult build) = RestoreThenEmitWarnings(pair.Stock, commandLine);
            return (restore, build, pair.Stock);
        });
        (ProcessResult adoptedRestore, ProcessResult adopted) = RestoreThenEmitWarnings(pair.Adopted, commandLine);

        Assert.IsTrue(Outcome(stock.Build.Output, stock.Root).Any(line => line.Contains(" XX1001", StringComparison.Ordinal)), "the stock build did not run the projects:\n" + stock.Build.Output);
        string[] stockRestoreOutcome = Outcome(stock.Restore.Output, stock.Root);
        Assert.IsTrue(stockRestoreOutcome.Contains("kept-in-props: warning NU1603") || stockRestoreOutcome.Contains("kept-in-props: error NU1603"), "restore did not warn NU1603:\n" + stock.Restore.Output);
        AssertSameOutcome("restore", commandLine, (stock.Restore, stock.Root), (adoptedRestore, pair.Adopted));
        AssertSameOutcome("build", commandLine, (stock.Build, stock.Root), (adopted, pair.Adopted));
    }

    /// <summary>The repository without the SDK is the same for every package route: built once per command line.</summary>
    private static readonly ConcurrentDictionary<string, (ProcessResult Restore, ProcessResult Build, string Root)> StockOutcomes = new();

    /// <summary>
    /// The solution's restore, then its warnings, each a build in this process with the command line's switches or its
    /// environment: restore apart from the build, so that where restore fails (NU1603 under -warnAsError) the build of
    /// the warnings still runs.
    /// </summary>
    private static (ProcessResult Restore, ProcessResult Build) RestoreThenEmitWarnings(string root, string commandLine)
    {
        (string[] arguments, Dictionary<string, string?> environment) = Parse(commandLine);
        string solution = Path.Combine(root, "All.slnx");
        return (InProcessBuild.Build(solution, ["-t:Restore", "-v:m", .. arguments], environment), InProcessBuild.Build(solution, ["-t:EmitWarnings", "-v:m", .. arguments], environment));
    }

    private static void AssertSameOutcome(string step, string commandLine, (ProcessResult Result, string Root) stock, (ProcessResult Result, string Root) adopted)
    {
        string[] stockOutcome = Outcome(stock.Result.Output, stock.Root);
        string[] adoptedOutcome = Outcome(adopted.Result.Output, adopted.Root);
        string[] expected = stockOutcome.Select(line => line.Replace(": error COW006", ": warning COW006", StringComparison.Ordinal)).Distinct().Order(StringComparer.Ordinal).ToArray();
        CollectionAssert.AreEqual(expected, adoptedOutcome, $"""
            {step} with "{commandLine}": the adopted repository ended otherwise than the stock one (COW006 aside):
            stock:   {string.Join(", ", stockOutcome)}
            adopted: {string.Join(", ", adoptedOutcome)}
            {adopted.Result.Output}
            """);
        Assert.AreEqual(expected.Any(line => line.Contains(": error ", StringComparison.Ordinal)), !adopted.Result.Succeeded, $"{step} exit code {adopted.Result.ExitCode}:\n{adopted.Result.Output}");
    }

    private static RepositoryProject Project(string folder, string props = "", string body = "", string targets = "", string packages = "")
        => new(folder, $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup><TargetFramework>net10.0</TargetFramework>{body}</PropertyGroup>
              {packages}
              {AdoptionPair.PackageReferencePlaceholder}
              {Warnings}
            </Project>
            """, $"<PropertyGroup>{props}</PropertyGroup>", $"<PropertyGroup>{targets}</PropertyGroup>");

    private static string Solution()
        => "<Solution>\n" + string.Concat(Projects.Select(project => $"  <Project Path=\"{project.Folder}/{project.FileName}\" />\n")) + "</Solution>\n";

    private static (string[] Arguments, Dictionary<string, string?> Environment) Parse(string commandLine)
    {
        const string EnvironmentPrefix = "environment: ";
        if (!commandLine.StartsWith(EnvironmentPrefix, StringComparison.Ordinal))
        {
            return (commandLine.Split(' ', StringSplitOptions.RemoveEmptyEntries), []);
        }

        return ([], commandLine[EnvironmentPrefix.Length..].Split(' ').Select(pair => pair.Split('=')).ToDictionary(pair => pair[0], pair => (string?)pair[1]));
    }

    /// <summary>"project: warning CODE" or "project: error CODE" for each diagnostic of ours or the test's, once, sorted.</summary>
    private static string[] Outcome(string output, string root)
        => Regex.Matches(output, @"^\s*(?<file>/\S+?)(\(\d+,\d+\))?\s*: (?<kind>warning|error) (?<code>XX\d+|COW\d+|NU\d+):", RegexOptions.Multiline)
            .Select(match => $"{ProjectOf(match.Groups["file"].Value, root)}: {match.Groups["kind"].Value} {match.Groups["code"].Value}")
            .Distinct()
            .Order(StringComparer.Ordinal)
            .ToArray();

    private static string ProjectOf(string file, string root)
        => Path.GetRelativePath(root, file).Split('/')[0];
}
