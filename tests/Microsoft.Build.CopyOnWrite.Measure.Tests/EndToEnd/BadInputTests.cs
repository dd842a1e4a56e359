using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.EndToEnd;

/// <summary>
/// Bad input to the installed tool: one clear line on standard error, a non-zero exit code, and nothing left
/// behind - no folder of the run, no mounted volume.
/// </summary>
[TestClass]
public sealed class BadInputTests
{
    private const int Nobody = 65534;

    [TestMethod]
    public void A_solution_that_does_not_exist_is_one_line_and_exit_code_2()
    {
        string missing = Path.Combine(TestScratch.NewFolder("missing"), "Nothing.sln");

        ToolRun run = InstalledTool.Run(InstalledTool.OutsideAnyRepository, [missing, "--volume", TestScratch.NewFolder("volume")]);

        AssertOneLine(run, 2, "no such solution, project or folder");
        StringAssert.Contains(run.Error, missing);
    }

    [TestMethod]
    public void No_volume_is_one_line_and_exit_code_2()
    {
        string solution = TinySolution.WriteInto(TestScratch.NewFolder("tiny"));

        ToolRun run = InstalledTool.Run(InstalledTool.OutsideAnyRepository, [solution]);

        AssertUsageError(run, "dotnet cow-measure", "Option '--volume' is required.");
    }

    [TestMethod]
    public void A_volume_that_is_a_file_is_one_line_and_exit_code_2()
    {
        string solution = TinySolution.WriteInto(TestScratch.NewFolder("tiny"));
        string file = Path.Combine(TestScratch.NewFolder("volume"), "not-a-folder");
        File.WriteAllText(file, "a file");

        ToolRun run = InstalledTool.Run(InstalledTool.OutsideAnyRepository, [solution, "--volume", file, "--out", TestScratch.NewFolder("report")]);

        AssertOneLine(run, 2, "is a file");
        Assert.AreEqual("a file", File.ReadAllText(file));
    }

    [TestMethod]
    public void A_volume_whose_parent_folder_does_not_exist_is_one_line_and_exit_code_2()
    {
        string solution = TinySolution.WriteInto(TestScratch.NewFolder("tiny"));
        string nowhere = Path.Combine(TestScratch.NewFolder("volume"), "no", "such", "folder");

        ToolRun run = InstalledTool.Run(InstalledTool.OutsideAnyRepository, [solution, "--volume", nowhere, "--out", TestScratch.NewFolder("report")]);

        AssertOneLine(run, 2, "neither");
        Assert.IsFalse(Directory.Exists(Path.GetDirectoryName(nowhere)), "nothing may be created for a folder that was not there");
    }

    [TestMethod]
    public void A_volume_folder_the_user_may_not_write_to_is_one_line_and_exit_code_2()
    {
        RequireRootForSetpriv();
        string solution = TinySolution.WriteInto(World(TestScratch.NewFolder("tiny")));
        string rootsOnly = TestScratch.NewFolder("roots-only"); // rwxr-xr-x, owned by root
        string report = World(TestScratch.NewFolder("report"));

        ToolRun run = InstalledTool.Run(InstalledTool.OutsideAnyRepository, [solution, "--volume", rootsOnly, "--out", report], asUser: Nobody);

        AssertOneLine(run, 2, "no permission to write in " + rootsOnly);
        Assert.AreEqual(0, Directory.GetFileSystemEntries(rootsOnly).Length);
    }

    [TestMethod]
    public void A_fresh_loop_volume_asked_for_without_root_is_one_line_and_exit_code_2()
    {
        RequireRootForSetpriv();
        string solution = TinySolution.WriteInto(World(TestScratch.NewFolder("tiny")));
        string loops = World(TestScratch.NewFolder("loops"));

        ToolRun run = InstalledTool.Run(InstalledTool.OutsideAnyRepository, [solution, "--volume", "xfs", "--loop-dir", loops, "--out", World(TestScratch.NewFolder("report"))], asUser: Nobody);

        AssertOneLine(run, 2, "needs root");
        Assert.AreEqual(0, Directory.GetFileSystemEntries(loops).Length);
    }

    [TestMethod]
    public void A_solution_that_does_not_build_is_one_line_naming_the_error_and_leaves_no_volume_mounted_nor_folder_behind()
    {
        RequireRootForSetpriv();
        string solution = TinySolution.WriteInto(TestScratch.NewFolder("broken"), compiles: false);
        string loops = TestScratch.NewFolder("loops");
        string folderVolume = TestScratch.NewFolder("volume");

        ToolRun run = InstalledTool.Run(InstalledTool.OutsideAnyRepository, [solution, "--volume", folderVolume, "--volume", "xfs", "--loop-dir", loops, "--loop-size", "1024", "--runs", "1", "--out", TestScratch.NewFolder("report")]);

        AssertOneLine(run, 1, "error CS1002");
        StringAssert.Contains(run.Error, "build with our Copy task");
        Assert.IsFalse(File.ReadAllText("/proc/self/mountinfo").Contains(loops, StringComparison.Ordinal), "a loop volume is still mounted under " + loops);
        Assert.AreEqual(0, Directory.GetFileSystemEntries(loops).Length, "images or mount points were left in " + loops);
        Assert.AreEqual(0, Directory.GetFileSystemEntries(folderVolume).Length, "the run's folder was left in " + folderVolume);
    }

    /// <summary>
    /// Every command takes a folder or file argument, so an option it does not know must be named as such (not taken
    /// for a project that does not exist), with the command's usage, exit code 2 and nothing done.
    /// </summary>
    [TestMethod]
    [DataRow("doctor", "--bogus", "[FOLDER...] [--json FILE] [--require-clone]")]
    [DataRow("verify", "--repair", "[PROJECT] [--packages FOLDER] [--json FILE]")]
    [DataRow("predict", "--bogus", "BINLOG [--json FILE]")]
    [DataRow("", "--bogus", "PATH --volume FOLDER|xfs|btrfs|ext4 [--runs N]")]
    public void An_option_a_command_does_not_know_is_named_with_the_commands_usage_and_exit_code_2(string command, string option, string usage)
    {
        ToolRun run = InstalledTool.Run(InstalledTool.OutsideAnyRepository, command.Length == 0 ? [option, "x.sln", "--volume", "xfs"] : [command, option]);

        string name = command.Length == 0 ? "dotnet cow-measure" : "dotnet cow-measure " + command;
        AssertUsageError(run, name, $"unknown option {option}.");
        StringAssert.Contains(run.ErrorLines[1], usage);
    }

    private static void AssertUsageError(ToolRun run, string command, string expected)
    {
        Assert.AreEqual(2, run.ExitCode, run.ToString());
        Assert.AreEqual(2, run.ErrorLines.Count, "expected the problem and the usage on standard error:\n" + run);
        Assert.AreEqual($"{command}: {expected}", run.ErrorLines[0], run.ToString());
        StringAssert.StartsWith(run.ErrorLines[1], $"Usage: {command} ");
        Assert.AreEqual(string.Empty, run.Output);
    }

    private static void AssertOneLine(ToolRun run, int exitCode, string expected)
    {
        Assert.AreEqual(exitCode, run.ExitCode, run.ToString());
        Assert.AreEqual(1, run.ErrorLines.Count, "expected exactly one line on standard error:\n" + run);
        StringAssert.StartsWith(run.ErrorLines[0], "dotnet cow-measure: ");
        StringAssert.Contains(run.ErrorLines[0], expected);
    }

    private static void RequireRootForSetpriv()
    {
        if (!OperatingSystem.IsLinux() || !Environment.IsPrivilegedProcess)
        {
            Assert.Inconclusive("SKIPPED: this test needs root on Linux (to run the tool as an unprivileged user with setpriv, or to mount a loop volume)");
        }
    }

    /// <summary>Opens a folder (and the path to it) to everyone, for a run as an unprivileged user.</summary>
    private static string World(string folder)
    {
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(folder, (UnixFileMode)0x1FF);
        }

        return folder;
    }
}
