using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Savings;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Settings;

/// <summary>
/// CopyOnWriteMode and CopyOnWriteWarnWhenNotCloned given on the command line (-p:) or in the environment, the way
/// a CI job sets them, are read by the task itself: no task factory is involved, so they work in a multi-threaded
/// build (-mt) too, where MSBuild refuses custom task factories. Set in a project file they need the factory, which
/// under -mt fails the build with COW004 and the -p: to use instead.
/// </summary>
[TestClass]
public sealed class SettingsOutsideProjectFilesTests
{
    /// <summary>What MSBuild says when it meets a custom task factory under -mt (ours speaks first, so it never does).</summary>
    private const string FactoryRefusedUnderMt = "does not support out of process TaskHost execution";

    [TestMethod]
    public void Required_given_with_p_fails_a_multi_threaded_build_on_ext4_with_COW001()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Ext4.NewFolder("required-global-mt"));

        ProcessResult build = projects.TryDotnetBuild(new Dictionary<string, string?>(), "-v:m", "-mt", "-p:CopyOnWriteMode=Required");

        Assert.IsFalse(build.Succeeded, "a Required build on ext4 must fail:\n" + build.Output);
        Assert.IsFalse(build.Output.Contains(FactoryRefusedUnderMt, System.StringComparison.Ordinal), "-p: must not need the task factory:\n" + build.Output);
        var errors = SavingsProjects.DistinctLinesContaining(build.Output, "error COW001");
        Assert.IsTrue(errors.Count > 0 && errors[0].Contains("because ext4 cannot clone", System.StringComparison.Ordinal), "no COW001:\n" + build.Output);
        Assert.IsFalse(build.Output.Contains("error MSB", System.StringComparison.Ordinal), "only our code fails the build:\n" + build.Output);
    }

    [TestMethod]
    public void Required_from_the_environment_fails_the_build_on_ext4_and_is_loaded_without_the_task_factory()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Ext4.NewFolder("required-environment"));

        ProcessResult build = projects.TryBuildWithEnvironment(new Dictionary<string, string?> { ["CopyOnWriteMode"] = "Required" }, "-v:d", "-m:1");

        Assert.IsFalse(build.Succeeded, build.Output);
        Assert.IsTrue(SavingsProjects.DistinctLinesContaining(build.Output, "error COW001").Count > 0, "no COW001:\n" + build.Output);
        Assert.IsFalse(build.Output.Contains("task from the task factory \"CopyTaskFactory\"", System.StringComparison.Ordinal), "the environment must not need the task factory:\n" + build.Output);
    }

    [TestMethod]
    public void WarnWhenNotCloned_from_the_environment_makes_COW002_in_a_multi_threaded_build()
    {
        string content = LoopFileSystems.Ext4.NewFolder("content-mt");
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("crossvolume-environment-mt"), contentFolder: content);

        ProcessResult build = projects.TryDotnetBuild(new Dictionary<string, string?> { ["CopyOnWriteWarnWhenNotCloned"] = "true" }, "-v:m", "-mt");

        Assert.IsTrue(build.Succeeded, build.Output);
        Assert.IsTrue(SavingsProjects.DistinctLinesContaining(build.Output, "warning COW002").Count > 0, "no COW002:\n" + build.Output);
    }

    [TestMethod]
    public void A_project_file_value_wins_over_the_environment()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Ext4.NewFolder("project-over-environment"), directoryBuildProps: "<CopyOnWriteMode>Auto</CopyOnWriteMode>");

        ProcessResult build = projects.TryBuildWithEnvironment(new Dictionary<string, string?> { ["CopyOnWriteMode"] = "Required" }, "-v:m");

        Assert.IsTrue(build.Succeeded, "Directory.Build.props says Auto, so copies on ext4 are fine:\n" + build.Output);
        Assert.AreEqual(0, SavingsProjects.LinesContaining(build.Output, "COW001").Count, build.Output);
    }

    /// <summary>
    /// MSBuild refuses custom task factories under -mt, and a value set in a project file reaches the task only through
    /// ours: the build fails with our code and the command-line form of the setting, and that form then works.
    /// </summary>
    [TestMethod]
    public void Required_set_in_a_project_file_fails_a_multi_threaded_build_with_COW004_whose_fix_works()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("required-project-mt"), directoryBuildProps: "<CopyOnWriteMode>Required</CopyOnWriteMode>");

        ProcessResult refused = projects.TryDotnetBuild(new Dictionary<string, string?>(), "-v:m", "-mt");

        Assert.IsFalse(refused.Succeeded, refused.Output);
        var errors = SavingsProjects.DistinctLinesContaining(refused.Output, "error ");
        Assert.IsTrue(errors.Count > 0 && errors.All(e => e.Contains("error COW004", System.StringComparison.Ordinal)), "only COW004, not MSBuild's factory error or MSB4060:\n" + refused.Output);
        StringAssert.Contains(errors[0], "CopyOnWriteMode=Required is set in a project file");
        StringAssert.Contains(errors[0], "(\"-p:CopyOnWriteMode=Required\")", "the fix, ready to paste");

        // The refused build's copies fell back to the stock task; start from no outputs so ours does them all.
        projects.DeleteOutputs();
        ProcessResult fixedBuild = projects.TryDotnetBuild(new Dictionary<string, string?>(), "-v:n", "-mt", "-p:CopyOnWriteMode=Required");

        Assert.IsTrue(fixedBuild.Succeeded, "with the value on the command line, a Required build on XFS passes under -mt:\n" + fixedBuild.Output);
        Assert.IsTrue(SavingsProjects.LinesContaining(fixedBuild.Output, "CopyOnWrite: cloned").Count > 0, "our task ran:\n" + fixedBuild.Output);
        SharedExtents.AssertAllShared(System.IO.Path.Combine(projects.Root, "App", "bin", "Debug", "net10.0", "first.bin"), "cloned under -mt with Required");
    }
}
