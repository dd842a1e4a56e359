using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Savings;

/// <summary>
/// CopyOnWriteMode set where users set properties (Directory.Build.props, a project file) reaches every Copy:
/// Required turns a missed clone into error COW001 (a CI check for an XFS / Dev Drive setup), Off brings back
/// the stock task, a typo is COW003.
/// </summary>
[TestClass]
public sealed class CopyOnWriteModeTests
{
    [TestMethod]
    public void Required_in_Directory_Build_props_fails_the_build_on_ext4_with_COW001_naming_the_file_the_reason_and_the_fix()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Ext4.NewFolder("required"), directoryBuildProps: "<CopyOnWriteMode>Required</CopyOnWriteMode>");

        ProcessResult build = projects.TryBuild("-v:m");

        Assert.IsFalse(build.Succeeded, "a Required build on ext4 must fail:\n" + build.Output);
        var errors = SavingsProjects.DistinctLinesContaining(build.Output, "error COW001");
        Assert.IsTrue(errors.Count > 0, "no COW001:\n" + build.Output);
        string error = errors[0];
        StringAssert.Contains(error, "was copied to", "names the file");
        StringAssert.Contains(error, "because ext4 cannot clone", "says why");
        StringAssert.Contains(error, "Build on a volume that clones", "says what to do");
        StringAssert.Contains(error, "CopyOnWriteMode to Auto", "says how to accept copies");
        Assert.IsFalse(build.Output.Contains("error MSB", System.StringComparison.Ordinal), "only our code fails the build:\n" + build.Output);
    }

    [TestMethod]
    public void Required_in_the_project_file_passes_on_XFS_where_every_file_is_cloned()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("required"), appProperties: "<CopyOnWriteMode>Required</CopyOnWriteMode>");

        string output = projects.Build("-v:n");

        Assert.AreEqual(0, SavingsProjects.LinesContaining(output, "COW001").Count, output);
        var appSummaries = SavingsProjects.LinesContaining(output, "CopyOnWrite: cloned");
        Assert.IsTrue(appSummaries.Count > 0, "our task ran and cloned:\n" + output);
        SharedExtents.AssertAllShared(Path.Combine(projects.Root, "App", "bin", "Debug", "net10.0", "first.bin"), "Lib's content cloned into App's output on XFS");
    }

    [TestMethod]
    public void Required_applies_only_to_the_project_that_sets_it()
    {
        // App is Required, Lib is not: on ext4 Lib's own copies pass, App's copy of Lib.dll fails. Both
        // projects run on one node (-m:1), so this also shows that one project's setting does not leak into another's Copy.
        var projects = SavingsProjects.Create(LoopFileSystems.Ext4.NewFolder("required-app"), appProperties: "<CopyOnWriteMode>Required</CopyOnWriteMode>");

        ProcessResult build = projects.TryBuild("-v:m", "-m:1");

        Assert.IsFalse(build.Succeeded, build.Output);
        var errors = SavingsProjects.DistinctLinesContaining(build.Output, "error COW001");
        Assert.IsTrue(errors.Count > 0 && errors.All(e => e.Contains("/App/bin/", System.StringComparison.Ordinal)), "only App's copies may fail:\n" + string.Join("\n", errors));
        Assert.IsTrue(File.Exists(Path.Combine(projects.Root, "Lib", "bin", "Debug", "net10.0", "first.bin")), "Lib built and copied normally");
    }

    [TestMethod]
    public void Off_brings_back_the_stock_task_and_a_misspelt_mode_is_COW003()
    {
        var off = SavingsProjects.Create(LoopFileSystems.Ext4.NewFolder("off"), directoryBuildProps: "<CopyOnWriteMode>Off</CopyOnWriteMode>");
        string offOutput = off.Build("-v:n");
        Assert.AreEqual(0, SavingsProjects.LinesContaining(offOutput, "CopyOnWrite:").Count, "Off still ran our task:\n" + offOutput);
        Assert.IsTrue(SavingsProjects.LinesContaining(offOutput, "Copying file from").Count > 0);

        var typo = SavingsProjects.Create(LoopFileSystems.Ext4.NewFolder("typo"), directoryBuildProps: "<CopyOnWriteMode>Requried</CopyOnWriteMode>");
        ProcessResult typoBuild = typo.TryBuild("-v:m");
        Assert.IsFalse(typoBuild.Succeeded, typoBuild.Output);
        var errors = SavingsProjects.DistinctLinesContaining(typoBuild.Output, "error COW003");
        Assert.IsTrue(errors.Count > 0 && errors[0].Contains("\"Requried\"", System.StringComparison.Ordinal), typoBuild.Output);
    }

    [TestMethod]
    public void A_relative_folder_in_CopyOnWriteAcceptCopiesFrom_is_COW003_naming_it()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Ext4.NewFolder("accept-relative"), directoryBuildProps: "<CopyOnWriteAcceptCopiesFrom>assets</CopyOnWriteAcceptCopiesFrom>");

        ProcessResult build = projects.TryBuild("-v:m");

        Assert.IsFalse(build.Succeeded, build.Output);
        var errors = SavingsProjects.DistinctLinesContaining(build.Output, "error COW003");
        Assert.IsTrue(errors.Count > 0 && errors[0].Contains("CopyOnWriteAcceptCopiesFrom lists \"assets\", which is not a full path", System.StringComparison.Ordinal), build.Output);
    }
}
