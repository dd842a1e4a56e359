using System;
using System.IO;
using System.Linq;
using System.Text.Json;
using Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.EndToEnd;

/// <summary>
/// dotnet cow-measure installed from its package into a folder with no repository around it, measuring a solution
/// on two folders passed as paths: one on a loop-mounted XFS (reflink) volume and one on ext4.
/// </summary>
[TestClass]
public sealed class InstalledToolTests
{
    /// <summary>
    /// The ext4 folder lies inside a repository whose settings would break the tool's own install project if they reached
    /// it: central package management (a versioned PackageReference is NU1008) and a Directory.Build.targets that fails
    /// every build. The tool's projects stay out of the repository's reach, so the measurement runs there too.
    /// </summary>
    [TestMethod]
    public void Installed_outside_any_repository_it_measures_a_solution_on_an_XFS_and_an_ext4_folder_and_compares_ours_with_stock_on_each()
    {
        string xfs = Path.Combine(LoopFileSystems.Xfs.NewFolder("measured"), "cow");
        string repository = LoopFileSystems.Ext4.NewFolder("repository-with-cpm");
        File.WriteAllText(Path.Combine(repository, "Directory.Packages.props"),
            "<Project><PropertyGroup><ManagePackageVersionsCentrally>true</ManagePackageVersionsCentrally></PropertyGroup></Project>");
        File.WriteAllText(Path.Combine(repository, "Directory.Build.targets"),
            "<Project><Target Name=\"RepositoryOnly\" BeforeTargets=\"Restore;_GenerateRestoreGraph;Build\"><Error Text=\"the repository's own targets reached a project outside it\" /></Target></Project>");
        Directory.CreateDirectory(Path.Combine(repository, "artifacts"));
        string ext4 = Path.Combine(repository, "artifacts", "measure");
        string solution = TinySolution.WriteInto(TestScratch.NewFolder("tiny"));
        string report = TestScratch.NewFolder("report");

        ToolRun run = InstalledTool.Run(InstalledTool.OutsideAnyRepository, [solution, "--volume", xfs, "--volume", ext4, "--runs", "1", "--out", report]);

        Assert.AreEqual(0, run.ExitCode, run.ToString());
        Assert.AreEqual(string.Empty, run.Error.Trim(), run.ToString());
        using JsonDocument json = JsonDocument.Parse(File.ReadAllText(Path.Combine(report, "measurement.json")));
        JsonElement[] volumes = json.RootElement.GetProperty("volumes").EnumerateArray().ToArray();
        Assert.AreEqual("xfs", volumes[0].GetProperty("fileSystem").GetString());
        Assert.IsTrue(volumes[0].GetProperty("canClone").GetBoolean(), "the XFS folder must be reported as able to clone");
        Assert.AreEqual("ext4", volumes[1].GetProperty("fileSystem").GetString());
        Assert.IsFalse(volumes[1].GetProperty("canClone").GetBoolean(), "the ext4 folder must be reported as unable to clone");
        Assert.AreEqual(InstalledTool.Version, json.RootElement.GetProperty("package").GetProperty("version").GetString(), "the tool measures the SDK of its own version");

        // Our task's own accounting: every file cloned on XFS, none on ext4.
        JsonElement oursOnXfs = Aggregate(json, "xfs", "copy-on-write", "clean");
        JsonElement oursOnExt4 = Aggregate(json, "ext4", "copy-on-write", "clean");
        Assert.IsTrue(Median(oursOnXfs, "clonedFiles") > 0 && Median(oursOnXfs, "clonedFiles") == Median(oursOnXfs, "filesWritten"), "ours must clone every file on XFS");
        Assert.AreEqual(0, Median(oursOnExt4, "clonedFiles"), "ours cannot clone on ext4");
        Assert.IsTrue(Median(oursOnExt4, "filesWritten") > 0, "ours built the solution and wrote its files in the folder inside the repository");

        // The file systems' own evidence (statfs used space): the data files' 16 MiB take next to nothing on XFS, all of it on ext4, with either task.
        foreach (string variant in new[] { "copy-on-write", "stock" })
        {
            double onXfs = Median(Aggregate(json, "xfs", variant, "clean"), "diskUsedBytes");
            double onExt4 = Median(Aggregate(json, "ext4", variant, "clean"), "diskUsedBytes");
            Assert.IsTrue(onXfs < TinySolution.DataFileBytes / 2, $"{variant} on XFS used {onXfs} bytes: the clones should share the data");
            Assert.IsTrue(onExt4 >= 2 * TinySolution.DataFileBytes, $"{variant} on ext4 used {onExt4} bytes: both copies of the data should take space");
        }

        // The summary logger is loaded from the folder Sdk.targets picks for this runtime, beside the precompiled task
        // assembly it reads, as users get it through CopyOnWriteSummaryLogger.
        string firstBuild = File.ReadLines(Directory.GetFiles(Path.Combine(report, "logs"), "*-copy-on-write-clean-1.log").First()).First();
        string precompiled = $"/net{Environment.Version.Major}.0-linux-{System.Runtime.InteropServices.RuntimeInformation.ProcessArchitecture.ToString().ToLowerInvariant()}/Microsoft.Build.CopyOnWrite.SummaryLogger.dll;SummaryFile=";
        StringAssert.Contains(firstBuild, precompiled, "the -logger: argument of the measured builds");

        StringAssert.Contains(run.Output, "On each volume");
        StringAssert.Contains(run.Output, "Across volumes (against ext4)");
        StringAssert.Contains(run.Output, "On Linux the stock Copy task clones too");
        StringAssert.Contains(run.Output, Path.Combine(report, "chart.svg"));
        Assert.IsTrue(File.Exists(Path.Combine(report, "chart.svg")));
        Assert.IsTrue(File.Exists(Path.Combine(report, "measurement.md")));
        Assert.IsFalse(Directory.Exists(xfs) || Directory.Exists(ext4), "the folders the tool created for the run must be gone");
    }

    [TestMethod]
    public void Help_lists_every_option_and_version_is_the_package_version()
    {
        ToolRun help = InstalledTool.Run(InstalledTool.OutsideAnyRepository, ["--help"]);
        ToolRun version = InstalledTool.Run(InstalledTool.OutsideAnyRepository, ["--version"]);

        Assert.AreEqual(0, help.ExitCode, help.ToString());
        foreach (string option in new[] { "--volume", "--runs", "--no-incremental", "--touch", "--configuration", "--root", "--out", "--loop-dir", "--loop-size", "--package-dir", "--keep" })
        {
            StringAssert.Contains(help.Output, option);
        }

        Assert.AreEqual(0, version.ExitCode, version.ToString());
        Assert.AreEqual(InstalledTool.Version, version.Output.Trim().Split('+')[0]);
    }

    private static JsonElement Aggregate(JsonDocument json, string volume, string variant, string kind)
        => json.RootElement.GetProperty("aggregates").EnumerateArray().Single(a =>
            a.GetProperty("volume").GetString() == volume && a.GetProperty("variant").GetString() == variant && a.GetProperty("kind").GetString() == kind);

    private static double Median(JsonElement aggregate, string quantity) => aggregate.GetProperty(quantity).GetProperty("median").GetDouble();
}
