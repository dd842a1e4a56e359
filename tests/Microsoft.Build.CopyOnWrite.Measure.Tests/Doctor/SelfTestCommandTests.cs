using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Shared;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Doctor;

/// <summary>
/// `dotnet cow-measure doctor --selftest`, installed as a user installs it, on a repository on XFS: the SDK's own
/// self-test runs from the package the tool carries, on the repository's volume and the temp folder's, and says so.
/// </summary>
[TestClass]
public sealed class SelfTestCommandTests
{
    [TestMethod]
    public void Doctor_selftest_runs_the_SDKs_self_test_on_the_repositorys_volume_and_writes_its_reports()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = xfs.NewFolder("selftest-repo");
        TinySolution.WriteInto(repository);
        string reports = xfs.NewFolder("selftest-reports");

        ToolRun run = InstalledTool.Run(repository, ["doctor", "--selftest", "--selftest-json", Path.Combine(reports, "selftest.json"), "--selftest-markdown", Path.Combine(reports, "selftest.md")]);

        Assert.AreEqual(0, run.ExitCode, run.Output + run.Error);
        StringAssert.Contains(run.Output, "CopyOnWrite self-test: the real engine and Copy task");
        StringAssert.Contains(run.Output, "Result: every check passed.");
        using JsonDocument json = JsonDocument.Parse(File.ReadAllText(Path.Combine(reports, "selftest.json")));
        JsonElement[] volumes = json.RootElement.GetProperty("volumes").EnumerateArray().ToArray();
        Assert.AreEqual("xfs", volumes[0].GetProperty("fileSystem").GetString(), "the repository's outputs' volume first");
        Assert.IsTrue(volumes[0].GetProperty("cloned").GetInt32() > 0);
        StringAssert.Contains(File.ReadAllText(Path.Combine(reports, "selftest.md")), "| 4 writers onto one destination with a reader | ok |");
    }

    [TestMethod]
    public void Doctor_selftest_leaves_no_process_or_file_behind_so_its_volume_unmounts_the_moment_it_returns()
    {
        using LoopFileSystem xfs = LoopFileSystems.RequireNew("xfs", 512);
        string repository = xfs.NewFolder("selftest-repo");
        TinySolution.WriteInto(repository);

        ToolRun run = InstalledTool.Run(repository, ["doctor", "--selftest"]);

        Assert.AreEqual(0, run.ExitCode, run.Output + run.Error);
        string[] users = ProcessesUsing(xfs.MountPoint);
        Assert.AreEqual(0, users.Length, "processes still use the volume after the self-test returned:\n" + string.Join("\n", users));
        string[] leftovers = Directory.EnumerateFileSystemEntries(xfs.MountPoint, ".cow-selftest-*", SearchOption.AllDirectories).ToArray();
        Assert.AreEqual(0, leftovers.Length, "the self-test left files behind: " + string.Join(", ", leftovers));
        ProcessResult unmount = ProcessRunner.Run("umount", xfs.MountPoint);
        Assert.IsTrue(unmount.Succeeded, "the volume could not be unmounted at once: " + unmount.Output);
    }

    /// <summary>
    /// Ctrl-C while a holder (Holder.cs) has a file of the self-test open, on the repository's volume or another the
    /// self-test checks (the package cache's, the temp folder's). A holder lives for milliseconds, so the test stops the
    /// tool (SIGSTOP) the moment it sees one. A stopped tool cannot end its holder: the holder waits for the end of its
    /// input, a pipe the tool still has open, and only the tool kills it. So once the holder has the file open while the
    /// tool still has that pipe, the test sends SIGINT, then SIGCONT. A holder the tool had already let go of when it
    /// stopped is let pass, and the test waits for the next. Afterwards nothing uses or is left in the held file's
    /// self-test folder or on the repository's volume, which unmounts at once.
    /// </summary>
    [TestMethod]
    public void Ctrl_C_while_another_process_holds_a_file_of_the_self_test_leaves_no_process_or_file_behind()
    {
        using LoopFileSystem xfs = LoopFileSystems.RequireNew("xfs", 512);
        string repository = xfs.NewFolder("selftest-repo");
        TinySolution.WriteInto(repository);
        // SIGINT at its default however this test run was started (ChildProcess.Start): a tool that inherits it
        // ignored, as under a script's background job, keeps ignoring it and runs the self-test to its end.
        using ChildProcess tool = ChildProcess.Start(InstalledTool.Path, ["doctor", "--selftest"], repository);
        string? held = null, heldFile = null;
        var letPass = new List<string>();
        var deadline = DateTime.UtcNow + TimeSpan.FromMinutes(3);
        while (held is null && !tool.HasExited && DateTime.UtcNow < deadline)
        {
            int holder = HolderAmongChildrenOf(tool.Id); // a holder lives for milliseconds: look at the tool's children only, and often
            if (holder == 0 || !LinuxProcesses.Signal(tool.Id, LinuxProcesses.SIGSTOP))
            {
                continue;
            }

            try
            {
                Assert.IsTrue(ChildProcess.WaitUntil(() => LinuxProcesses.IsStopped(tool.Id) || tool.HasExited, TimeSpan.FromSeconds(30)), "the tool did not stop on SIGSTOP:\n" + tool.Output);
                // The holder goes on while the tool is stopped: a shell that has not opened the file yet soon has.
                (string? File, string? Why) look = default;
                ChildProcess.WaitUntil(() => (look = HoldsWhileStopped(holder, tool.Id)) is not (null, null), TimeSpan.FromSeconds(30));
                heldFile = look.File;
                held = heldFile is null ? null : $"process {holder} ({LinuxProcesses.CommandLine(holder)}) holds {heldFile}";
                if (held is not null)
                {
                    Assert.AreEqual("caught", tool.Disposition(ChildProcess.SIGINT), $"the tool has SIGINT {tool.Disposition(ChildProcess.SIGINT)}, not caught, so no Ctrl-C can reach it: the test's premise fails, not the tool:\n{tool.Output}");
                    tool.Signal(ChildProcess.SIGINT);
                }
                else
                {
                    letPass.Add($"{holder}: {look.Why ?? "did not open a self-test file within 30 s"}");
                }
            }
            finally
            {
                LinuxProcesses.Signal(tool.Id, LinuxProcesses.SIGCONT);
            }
        }

        if (heldFile is null)
        {
            Assert.Fail($"no holder was caught holding a self-test file (let pass: {(letPass.Count == 0 ? "none seen" : string.Join("; ", letPass))}):\n{tool.Output}");
        }

        Console.WriteLine($"Ctrl-C while {held}; holders let pass before: {(letPass.Count == 0 ? "none" : string.Join("; ", letPass))}");
        Assert.IsTrue(tool.WaitForExit(TimeSpan.FromSeconds(60)), "the tool did not stop after Ctrl-C:\n" + tool.Output);
        StringAssert.Contains(tool.Output, "doctor --selftest: cancelled", $"Ctrl-C while {held} did not cancel the self-test:\n{tool.Output}");
        // The held file's self-test folder (FOLDER/.cow-selftest-ID/...), and the folder the self-test ran in.
        string selfTestFolder = heldFile[..heldFile.IndexOf('/', heldFile.IndexOf("/.cow-selftest-", StringComparison.Ordinal) + 1)];
        string[] Users() => [.. ProcessesUsing(xfs.MountPoint), .. ProcessesUsing(selfTestFolder)];
        string[] users = Users();
        for (int waited = 0; users.Length > 0 && waited < 100; waited++)
        {
            System.Threading.Thread.Sleep(100); // a holder ends when its input closes, a moment after the tool
            users = Users();
        }

        Assert.AreEqual(0, users.Length, $"after Ctrl-C while {held}, processes still use the volume or the self-test's folder:\n" + string.Join("\n", users));
        string[] leftovers = [
            .. Directory.EnumerateFileSystemEntries(xfs.MountPoint, ".cow-selftest-*", SearchOption.AllDirectories),
            .. Directory.EnumerateFileSystemEntries(Path.GetDirectoryName(selfTestFolder)!, ".cow-selftest-*")];
        Assert.AreEqual(0, leftovers.Length, "Ctrl-C left self-test files behind: " + string.Join(", ", leftovers) + "\n" + tool.Output);
        ProcessResult unmount = ProcessRunner.Run("umount", xfs.MountPoint);
        Assert.IsTrue(unmount.Succeeded, "the volume could not be unmounted at once: " + unmount.Output);
    }

    /// <summary>A child of the process that is a holder of a self-test file (Holder.cs: its shell, then the cat it becomes), or 0.</summary>
    private static int HolderAmongChildrenOf(int process)
        => LinuxProcesses.ChildrenOf(process).FirstOrDefault(child => LinuxProcesses.CommandLine(child) is string command && (command.Contains("COW_HOLD", StringComparison.Ordinal) || command == "cat"));

    /// <summary>
    /// With the tool stopped: (FILE, null) when the holder has a self-test file open and the tool still has the holder's
    /// input open (so nothing ends the holder until the tool runs again); (null, why) when the holder is ending; default
    /// while it is still on its way to opening the file.
    /// </summary>
    private static (string? File, string? Why) HoldsWhileStopped(int holder, int tool)
    {
        IReadOnlyDictionary<int, string> files = LinuxProcesses.OpenFiles(holder);
        if (!files.TryGetValue(0, out string? input))
        {
            return (null, "ended");
        }

        if (!LinuxProcesses.OpenFiles(tool).Values.Contains(input))
        {
            return (null, $"the tool had closed its input ({input}): it was ending");
        }

        string? file = files.Values.FirstOrDefault(target => target.Contains("/.cow-selftest-", StringComparison.Ordinal));
        return (file, null);
    }

    /// <summary>"PID command: what" for every process whose working folder or an open file is under <paramref name="folder"/> (by /proc).</summary>
    private static string[] ProcessesUsing(string folder)
    {
        string prefix = folder.TrimEnd('/') + "/";
        return Directory.EnumerateDirectories("/proc").Where(path => int.TryParse(Path.GetFileName(path), out _)).SelectMany(process =>
        {
            try
            {
                string command = File.ReadAllText(Path.Combine(process, "cmdline")).Replace('\0', ' ').Trim();
                var links = Directory.EnumerateFileSystemEntries(Path.Combine(process, "fd")).Append(Path.Combine(process, "cwd"))
                    .Select(link => new FileInfo(link).LinkTarget ?? "")
                    .Where(target => target.StartsWith(prefix, StringComparison.Ordinal) || target == folder);
                return links.Select(target => $"{Path.GetFileName(process)} {command}: {target}");
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                return []; // the process ended while we looked
            }
        }).ToArray();
    }
}
