using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Savings;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Settings;

/// <summary>
/// A setting the task would not understand fails the build before any file is written (the SDK's targets check it
/// first), and a setting that another switches off says so once. Real builds of the two-project repository, in this process.
/// </summary>
[TestClass]
public sealed class SettingsCheckedFirstTests
{
    [TestMethod]
    [DataRow("-p:CopyOnWriteMode=Bogus", "CopyOnWriteMode has the value \"Bogus\"")]
    [DataRow("-p:CopyOnWriteMode=no", "CopyOnWriteMode has the value \"no\"")] // a condition's == takes no for Off
    [DataRow("-p:CopyOnWriteWarnWhenNotCloned=yes", "CopyOnWriteWarnWhenNotCloned has the value \"yes\"")]
    [DataRow("-p:CopyOnWriteInsteadOfLinks=yes", "CopyOnWriteInsteadOfLinks has the value \"yes\"")]
    [DataRow("-p:CopyOnWriteAcceptCopiesFrom=assets", "CopyOnWriteAcceptCopiesFrom lists \"assets\", which is not a full path")]
    public void A_bad_setting_fails_with_COW003_before_anything_is_copied(string setting, string expected)
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("bad-setting"));

        ProcessResult build = projects.TryBuild("-v:n", setting);

        Assert.IsFalse(build.Succeeded, "a bad setting must fail the build:\n" + build.Output);
        var errors = SavingsProjects.DistinctLinesContaining(build.Output, "error COW003");
        Assert.IsTrue(errors.Count > 0 && errors.All(e => e.Contains(expected, System.StringComparison.Ordinal)), "no COW003 naming the value:\n" + build.Output);
        StringAssert.Contains(errors[0], "nothing was copied");
        Assert.AreEqual(0, SavingsProjects.LinesContaining(build.Output, "CopyOnWrite: cloned").Count + SavingsProjects.LinesContaining(build.Output, "CopyOnWrite: copied").Count, "a Copy ran before the check:\n" + build.Output);
        Assert.IsFalse(Directory.Exists(Path.Combine(projects.Root, "Lib", "bin")) || Directory.Exists(Path.Combine(projects.Root, "App", "bin")), "a project wrote its output before the check:\n" + build.Output);
    }

    /// <summary>
    /// Our targets run nothing of ours where nothing is asked of them: in a project that sets no CopyOnWrite property,
    /// restore and a target without a Copy load no task from our assembly (MSBuild names every task assembly it uses at
    /// -v:d); a bad value there is still COW003 before restore writes anything.
    /// </summary>
    [TestMethod]
    public void A_project_that_sets_nothing_runs_no_task_of_ours_until_its_first_Copy_and_a_bad_value_still_stops_restore()
    {
        ConsumerRepository repository = ConsumerRepository.Create(TestScratch.NewFolder("sets-nothing"), PackageRoute.SdkElement);
        repository.Write("Directory.Build.targets", """<Project><Target Name="NoCopyHere"><Message Text="no copy here" /></Target></Project>""");

        string project = Path.Combine(repository.Root, "Lib.csproj");
        ProcessResult bogus = InProcessBuild.Build(project, ["-restore", "-t:NoCopyHere", "-v:d", "-p:CopyOnWriteMode=Bogus"]);
        Assert.IsFalse(bogus.Succeeded, bogus.Output);
        StringAssert.Contains(bogus.Output, "error COW003");
        Assert.IsFalse(File.Exists(Path.Combine(repository.Root, "obj", "project.assets.json")), "restore wrote before the check:\n" + bogus.Output);

        ProcessResult quiet = InProcessBuild.Build(project, ["-restore", "-t:NoCopyHere", "-v:d"]);

        Assert.IsTrue(quiet.Succeeded, quiet.Output);
        string[] ours = quiet.Output.Split('\n').Where(line => line.Contains("task from assembly", System.StringComparison.Ordinal) && line.Contains("microsoft.build.copyonwrite", System.StringComparison.OrdinalIgnoreCase)).ToArray();
        Assert.AreEqual(0, ours.Length, "a task of ours ran:\n" + string.Join("\n", ours));
        Assert.IsTrue(File.Exists(Path.Combine(repository.Root, "obj", "project.assets.json")), "restore ran:\n" + quiet.Output);
        StringAssert.Contains(quiet.Output, "no copy here");
    }

    [TestMethod]
    public void Every_bad_setting_is_its_own_COW003_so_one_build_shows_all_there_is_to_fix()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Ext4.NewFolder("bad-settings"));

        ProcessResult build = projects.TryBuild("-v:n", "-m:1", "-p:CopyOnWriteMode=Bogus", "-p:CopyOnWriteAcceptCopiesFrom=assets%3Btools");

        Assert.IsFalse(build.Succeeded, "bad settings must fail the build:\n" + build.Output);
        var errors = SavingsProjects.DistinctLinesContaining(build.Output, "error COW003");
        foreach (string expected in new[] { "CopyOnWriteMode has the value \"Bogus\"", "lists \"assets\"", "lists \"tools\"" })
        {
            Assert.IsTrue(errors.Any(e => e.Contains(expected, System.StringComparison.Ordinal)), $"no COW003 with {expected}:\n" + build.Output);
        }

        Assert.IsFalse(Directory.Exists(Path.Combine(projects.Root, "Lib", "bin")), "a project wrote its output before the check:\n" + build.Output);
    }

    [TestMethod]
    public void Required_while_DisableCopyOnWrite_is_true_says_once_that_Required_is_not_in_force()
    {
        var projects = SavingsProjects.Create(LoopFileSystems.Ext4.NewFolder("required-disabled"), directoryBuildProps: "<CopyOnWriteMode>Required</CopyOnWriteMode><DisableCopyOnWrite>true</DisableCopyOnWrite>");

        // One node, so "once per build (per node)" is once.
        ProcessResult build = projects.TryBuild("-v:m", "-m:1");

        Assert.IsTrue(build.Succeeded, "MSBuild's own Copy builds on ext4 whatever Required says:\n" + build.Output);
        var notices = SavingsProjects.DistinctLinesContaining(build.Output, "warning COW008");
        Assert.AreEqual(1, notices.Count, "two projects, one notice:\n" + build.Output);
        StringAssert.Contains(notices[0], "Required is not in force");
        Assert.AreEqual(0, SavingsProjects.LinesContaining(build.Output, "COW001").Count, build.Output);
    }
}
