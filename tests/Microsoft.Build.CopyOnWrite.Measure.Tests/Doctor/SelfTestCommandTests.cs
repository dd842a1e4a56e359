using System;
using System.IO;
using System.Linq;
using System.Text.Json;
using Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;
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

    [TestMethod]
    public void Ctrl_C_while_another_process_holds_a_file_of_the_self_test_leaves_no_process_or_file_behind()
    {
        using LoopFileSystem xfs = LoopFileSystems.RequireNew("xfs", 512);
        string repository = xfs.NewFolder("selftest-repo");
        TinySolution.WriteInto(repository);
        var start = new System.Diagnostics.ProcessStartInfo(InstalledTool.Path) { WorkingDirectory = repository, RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add("doctor");
        start.ArgumentList.Add("--selftest");
        using var tool = System.Diagnostics.Process.Start(start)!;
        var output = new System.Text.StringBuilder();
        tool.OutputDataReceived += (_, e) => { lock (output) { output.AppendLine(e.Data); } };
        tool.ErrorDataReceived += (_, e) => { lock (output) { output.AppendLine(e.Data); } };
        tool.BeginOutputReadLine();
        tool.BeginErrorReadLine();
        string toolId = tool.Id.ToString(System.Globalization.CultureInfo.InvariantCulture);
        string? held = null;
        var deadline = DateTime.UtcNow + TimeSpan.FromMinutes(3);
        while (held is null && !tool.HasExited && DateTime.UtcNow < deadline)
        {
            held = HolderAmongChildrenOf(toolId); // a holder lives for milliseconds: look at the tool's children only, and often
        }

        if (held is null)
        {
            tool.Kill(entireProcessTree: true);
            Assert.Fail("no holder of a self-test file was ever seen:\n" + output);
        }

        Assert.AreEqual(0, ProcessRunner.Run("kill", "-INT", toolId).ExitCode);
        Assert.IsTrue(tool.WaitForExit(60_000), "the tool did not stop after Ctrl-C:\n" + output);
        tool.WaitForExit();
        StringAssert.Contains(output.ToString(), "doctor --selftest: cancelled", "Ctrl-C came after the self-test ended, so nothing was interrupted:\n" + output);
        string[] users = ProcessesUsing(xfs.MountPoint);
        for (int waited = 0; users.Length > 0 && waited < 100; waited++)
        {
            System.Threading.Thread.Sleep(100); // a holder ends when its input closes, a moment after the tool
            users = ProcessesUsing(xfs.MountPoint);
        }

        Assert.AreEqual(0, users.Length, $"after Ctrl-C while \"{held}\", processes still use the volume:\n" + string.Join("\n", users));
        string[] leftovers = Directory.EnumerateFileSystemEntries(xfs.MountPoint, ".cow-selftest-*", SearchOption.AllDirectories).ToArray();
        Assert.AreEqual(0, leftovers.Length, "Ctrl-C left self-test files behind: " + string.Join(", ", leftovers) + "\n" + output);
        ProcessResult unmount = ProcessRunner.Run("umount", xfs.MountPoint);
        Assert.IsTrue(unmount.Succeeded, "the volume could not be unmounted at once: " + unmount.Output);
    }

    /// <summary>"PID command" of a child of the process that holds a self-test file open for it (Holder.cs), or null.</summary>
    private static string? HolderAmongChildrenOf(string process)
    {
        try
        {
            foreach (string thread in Directory.EnumerateDirectories(Path.Combine("/proc", process, "task")))
            {
                foreach (string child in File.ReadAllText(Path.Combine(thread, "children")).Split(' ', StringSplitOptions.RemoveEmptyEntries))
                {
                    string command = File.ReadAllText(Path.Combine("/proc", child, "cmdline")).Replace('\0', ' ').Trim();
                    if (command.Contains("COW_HOLD", StringComparison.Ordinal) || command == "cat")
                    {
                        return $"{child} {command}";
                    }
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // a thread or child ended while we looked
        }

        return null;
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
