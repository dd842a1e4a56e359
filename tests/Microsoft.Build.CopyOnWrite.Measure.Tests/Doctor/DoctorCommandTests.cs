using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Text.Json;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;
using Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Shared;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Doctor;

/// <summary>
/// `dotnet cow-measure doctor` on repositories on real loop volumes, with the package cache and fallback folders
/// NuGet itself resolves from the repository's NuGet.config.
/// </summary>
[TestClass]
public sealed class DoctorCommandTests
{
    [TestMethod]
    public void A_repository_on_XFS_with_its_package_cache_there_clones_what_it_builds_and_require_clone_passes()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = Repository(xfs, packageCache: xfs.NewFolder("packages"));
        string json = Path.Combine(xfs.NewFolder("report"), "doctor.json");

        (int exit, string output) = Doctor(repository, "--require-clone", "--json", json);

        Assert.AreEqual(0, exit, output);
        StringAssert.Contains(output, "Result: the repository clones what it builds.");
        using JsonDocument check = JsonDocument.Parse(File.ReadAllText(json));
        JsonElement[] folders = check.RootElement.GetProperty("folders").EnumerateArray().ToArray();
        JsonElement cache = folders.Single(f => f.GetProperty("role").GetString() == "packageCache");
        Assert.AreEqual(xfs.MountPoint, cache.GetProperty("volume").GetString(), "NuGet.config's globalPackagesFolder, as NuGet resolves it");
        StringAssert.StartsWith(folders.Single(f => f.GetProperty("role").GetString() == "buildOutput").GetProperty("path").GetString(), Path.Combine(repository, "src", "App", "bin", "Debug"), "OutDir as MSBuild evaluates it");
        StringAssert.StartsWith(folders.Single(f => f.GetProperty("role").GetString() == "intermediateOutput").GetProperty("path").GetString(), Path.Combine(repository, "src", "App", "obj", "Debug"));
        Assert.IsFalse(check.RootElement.GetProperty("findings").EnumerateArray().Any(f => f.GetProperty("severity").GetString() != "info"), output);
    }

    [TestMethod]
    public void A_package_cache_and_a_fallback_folder_on_another_volume_are_named_with_the_fix()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string otherCache = LoopFileSystems.Ext4.NewFolder("packages");
        string fallback = LoopFileSystems.Btrfs.NewFolder("fallback");
        string repository = Repository(xfs, packageCache: otherCache, fallbackFolder: fallback);
        WriteAssets(repository, otherCache, runtimeAssembly: false);

        (int exit, string output) = Doctor(repository, "--require-clone");

        Assert.AreEqual(0, exit, "restore lists no package file a build copies, so the package cache does not stop the repository from cloning:\n" + output);
        StringAssert.Contains(output, $"warning: The NuGet package cache {otherCache}");
        StringAssert.Contains(output, $"export NUGET_PACKAGES={xfs.MountPoint}/.nuget/packages");
        StringAssert.Contains(output, $"warning: The NuGet fallback folder {fallback}");
        StringAssert.Contains(output, "fact: restore (1 project.assets.json) lists no package with files a build copies");
    }

    /// <summary>
    /// Issue 32's bug through the tool's door: the repository on XFS, the package cache on ext4, and restore says the
    /// build copies a package's assembly from that cache. A Required build fails there (COW001), so --require-clone
    /// must exit 3; it exited 0 saying "the repository clones what it builds".
    /// </summary>
    [TestMethod]
    public void A_package_cache_on_ext4_that_restore_says_a_build_copies_from_fails_require_clone_with_exit_code_3()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string otherCache = LoopFileSystems.Ext4.NewFolder("packages");
        string repository = Repository(xfs, packageCache: otherCache);
        WriteAssets(repository, otherCache, runtimeAssembly: true);
        string json = Path.Combine(xfs.NewFolder("report"), "doctor.json");

        (int exit, string output) = Doctor(repository, "--require-clone", "--json", json);

        Assert.AreEqual(DoctorCommand.CannotClone, exit, output);
        StringAssert.Contains(output, $"error: The NuGet package cache {otherCache}");
        StringAssert.Contains(output, "CopyOnWriteMode=Required fails on them (COW001)");
        StringAssert.Contains(output, "Result: the repository does NOT clone what it builds");
        using JsonDocument check = JsonDocument.Parse(File.ReadAllText(json));
        JsonElement verdict = check.RootElement.GetProperty("verdict");
        Assert.IsFalse(verdict.GetProperty("clones").GetBoolean());
        JsonElement fromCache = verdict.GetProperty("copies").EnumerateArray().Single(c => c.GetProperty("fromRole").GetString() == "packageCache");
        Assert.AreEqual("packageCache", fromCache.GetProperty("source").GetString());
        Assert.IsFalse(fromCache.GetProperty("passesRequired").GetBoolean());
    }

    /// <summary>A folder a step of the build copies from, named with --copies-from, is judged as Required judges it: on ext4, exit 3 and why.</summary>
    [TestMethod]
    public void A_folder_named_with_copies_from_on_another_volume_fails_require_clone_as_the_build_would()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string cache = xfs.NewFolder("packages");
        string repository = Repository(xfs, packageCache: cache);
        WriteAssets(repository, cache, runtimeAssembly: false);
        string staging = LoopFileSystems.Ext4.NewFolder("staging");
        var output = new StringWriter();

        int exit = DoctorCommand.Run([repository], json: null, requireClone: true, output, output, copiesFrom: [staging]);

        Assert.AreEqual(DoctorCommand.CannotClone, exit, output.ToString());
        StringAssert.Contains(output.ToString(), $"error: CopyOnWriteMode=Required fails (COW001) on files a step of the build copies into the build output: they go from {staging}");
        StringAssert.Contains(output.ToString(), $"dotnet build -p:CopyOnWriteAcceptCopiesFrom={staging}   # only if it cannot move");
    }

    [TestMethod]
    public void Not_restored_the_tool_assumes_package_files_come_from_the_cache_and_says_how_to_make_it_sure()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string otherCache = LoopFileSystems.Ext4.NewFolder("packages");
        string repository = Repository(xfs, packageCache: otherCache);

        (int exit, string output) = Doctor(repository, "--require-clone");

        Assert.AreEqual(DoctorCommand.CannotClone, exit, output);
        StringAssert.Contains(output, "assumed: no restore result was found, so the build is assumed to copy package files from the package cache");
        StringAssert.Contains(output, "run `dotnet restore` first to make it sure");
    }

    [TestMethod]
    public void A_repository_on_ext4_fails_require_clone_with_exit_code_3_and_names_the_volume_that_clones_here()
    {
        LoopFileSystem ext4 = LoopFileSystems.Require("ext4");
        using LoopFileSystem xfs = LoopFileSystems.RequireNew("xfs", 1024, LoopFileSystems.KeptFolder); // mounted before the doctor looks
        string repository = Repository(ext4, packageCache: ext4.NewFolder("packages"));

        (int exit, string output) = Doctor(repository, "--require-clone");

        Assert.AreEqual(DoctorCommand.CannotClone, exit, output);
        StringAssert.Contains(output, "error: The repository");
        StringAssert.Contains(output, $"{xfs.MountPoint} (xfs)");
        StringAssert.Contains(output, "git clone <repository> ");
    }

    /// <summary>
    /// Ctrl-C inside the probe clone. strace (an independent program) holds each ioctl of the tool's main thread for
    /// 2 s before it enters the kernel. When the test sees that thread held at FICLONE between two files of the probe
    /// in the repository (/proc/PID/syscall, /proc/PID/fd), it stops strace, so that nothing lets the clone go on,
    /// looks again, and only then sends SIGINT to the tool. The tool must say it was cancelled, print no result, and
    /// the repository must hold afterwards exactly what it held before.
    /// </summary>
    [TestMethod]
    public void Ctrl_C_during_the_probe_clone_leaves_no_file_in_the_repository()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = Repository(xfs, packageCache: xfs.NewFolder("packages"));
        string[] before = Entries(repository);
        if (ProcessRunner.Run("sh", "-c", "command -v strace").ExitCode != 0)
        {
            Assert.Inconclusive("SKIPPED: this test needs strace to hold the probe's system call open (.ci/run installs it)");
        }

        if (IoctlNumber < 0)
        {
            Assert.Inconclusive($"SKIPPED: this test knows ioctl's system call number on x64 and Arm64 only, not on {RuntimeInformation.ProcessArchitecture}");
        }

        string[] toolCommand = ["dotnet", RepositoryLayout.Tool, "doctor", repository];
        using ChildProcess strace = ChildProcess.Start("strace", ["-o", "/dev/null", "-e", "trace=ioctl", "-e", "inject=ioctl:delay_enter=2000000", .. toolCommand], Environment.CurrentDirectory);
        int tool = 0;
        string? probing = null;
        var deadline = DateTime.UtcNow + TimeSpan.FromMinutes(3);
        while (probing is null && !strace.HasExited && DateTime.UtcNow < deadline)
        {
            // The tool by the command line it runs, not as strace's first child: strace first forks short-lived
            // children of its own (its ptrace tests), and a look that took one of those for the tool never saw the
            // probe. Those forks, and the tool's own process until it execs, show strace's command line, which names
            // the tool too: hence the whole of it.
            tool = tool != 0 ? tool : LinuxProcesses.ChildrenOf(strace.Id).FirstOrDefault(child => LinuxProcesses.CommandLine(child) == string.Join(' ', toolCommand));
            if (tool != 0 && ProbeCloneHeld(tool, repository) is not null)
            {
                // strace stopped: the held ioctl cannot go on however long the test takes. Looked at again once strace
                // is stopped, in case strace let it go between the first look and the stop (then the next one is taken).
                Assert.IsTrue(LinuxProcesses.Signal(strace.Id, LinuxProcesses.SIGSTOP), "strace ended before it could be stopped:\n" + strace.Output);
                try
                {
                    Assert.IsTrue(ChildProcess.WaitUntil(() => LinuxProcesses.IsStopped(strace.Id), TimeSpan.FromSeconds(30)), "strace did not stop on SIGSTOP:\n" + strace.Output);
                    probing = ProbeCloneHeld(tool, repository);
                    if (probing is not null)
                    {
                        Assert.AreEqual("caught", ChildProcess.Disposition(tool, ChildProcess.SIGINT), "the tool does not catch SIGINT, so no Ctrl-C can reach it: the test's premise fails, not the tool:\n" + strace.Output);
                        Assert.IsTrue(LinuxProcesses.Signal(tool, ChildProcess.SIGINT), "the tool ended before Ctrl-C:\n" + strace.Output);
                    }
                }
                finally
                {
                    LinuxProcesses.Signal(strace.Id, LinuxProcesses.SIGCONT);
                }
            }

            System.Threading.Thread.Sleep(5);
        }

        if (probing is null && tool == 0 && strace.HasExited && strace.Output.Contains("strace: ", StringComparison.Ordinal))
        {
            Assert.Inconclusive($"SKIPPED: strace cannot trace here (no ptrace in this container?):\n{strace.Output}");
        }

        if (probing is null)
        {
            Assert.Fail($"the tool's main thread was never seen held at FICLONE between two probe files in {repository} (tool {(tool == 0 ? "never seen" : "process " + tool)}):\n{strace.Output}");
        }

        Console.WriteLine($"Ctrl-C during {probing}");
        Assert.IsTrue(strace.WaitForExit(TimeSpan.FromSeconds(60)), "the tool did not stop after Ctrl-C:\n" + strace.Output);
        string output = strace.Output;
        Assert.IsFalse(output.Contains("Result:", StringComparison.Ordinal), $"Ctrl-C during {probing} did not stop the check:\n{output}");
        StringAssert.Contains(output, "dotnet cow-measure doctor: cancelled", $"after Ctrl-C during {probing} the tool did not end as cancelled:\n{output}");
        CollectionAssert.AreEqual(before, Entries(repository), $"Ctrl-C during {probing} left a file behind:\n{output}");
    }

    /// <summary>FICLONE, _IOW(0x94, 9, int), on the architectures with the generic ioctl encoding.</summary>
    private const long Ficlone = 0x40049409;

    /// <summary>ioctl's system call number here; -1 where this test does not know it.</summary>
    private static int IoctlNumber => RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 => 16,
        Architecture.Arm64 => 29,
        _ => -1,
    };

    private static string[] Entries(string folder)
        => Directory.GetFileSystemEntries(folder, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal).ToArray();

    /// <summary>
    /// "ioctl(FD = FILE, FICLONE, FD = FILE)" while the tool's main thread is held at a FICLONE whose two files are in
    /// <paramref name="repository"/> (the probe's unnamed files read "/folder/#inode (deleted)"); else null.
    /// </summary>
    private static string? ProbeCloneHeld(int tool, string repository)
    {
        if (LinuxProcesses.SystemCall(tool, tool) is not [long number, long destination, long request, long source, ..] || number != IoctlNumber || request != Ficlone)
        {
            return null;
        }

        IReadOnlyDictionary<int, string> files = LinuxProcesses.OpenFiles(tool);
        string? destinationFile = files.GetValueOrDefault((int)destination);
        string? sourceFile = files.GetValueOrDefault((int)source);
        return destinationFile is not null && sourceFile is not null && destinationFile.StartsWith(repository + "/", StringComparison.Ordinal) && sourceFile.StartsWith(repository + "/", StringComparison.Ordinal)
            ? $"ioctl({destination} = {destinationFile}, FICLONE, {source} = {sourceFile})"
            : null;
    }

    [TestMethod]
    public void A_folder_that_does_not_exist_is_bad_input()
    {
        (int exit, string output) = Doctor("/no/such/repository");

        Assert.AreEqual(Program.BadInput, exit);
        StringAssert.Contains(output, "no such file or folder");
    }

    [TestMethod]
    [DataRow("slnx")]
    [DataRow("sln")]
    public void A_solution_file_is_taken_and_the_repository_is_the_folder_with_Directory_Build_props(string format)
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = Repository(xfs, packageCache: xfs.NewFolder("packages"));
        File.WriteAllText(Path.Combine(repository, "Directory.Build.props"), "<Project />");
        string solutions = Path.Combine(repository, "solutions");
        Directory.CreateDirectory(solutions);
        string solution = Path.Combine(solutions, $"App.{format}");
        File.WriteAllText(solution, format == "slnx"
            ? """<Solution><Project Path="../src/App/App.csproj" /></Solution>"""
            : "Microsoft Visual Studio Solution File, Format Version 12.00\nProject(\"{9A19103F-16F7-4668-BE54-9A1E7A4F7556}\") = \"App\", \"..\\src\\App\\App.csproj\", \"{11111111-2222-3333-4444-555555555555}\"\nEndProject\n");
        string json = Path.Combine(xfs.NewFolder("report"), "doctor.json");

        (int exit, string output) = Doctor(solution, "--json", json);

        Assert.AreEqual(0, exit, output);
        using JsonDocument check = JsonDocument.Parse(File.ReadAllText(json));
        JsonElement[] folders = check.RootElement.GetProperty("folders").EnumerateArray().ToArray();
        Assert.AreEqual(repository, folders.Single(f => f.GetProperty("role").GetString() == "repository").GetProperty("path").GetString(), "the folder with Directory.Build.props, above the solution's");
        StringAssert.StartsWith(folders.Single(f => f.GetProperty("role").GetString() == "buildOutput").GetProperty("path").GetString(), Path.Combine(repository, "src", "App", "bin"), "the outputs of the solution's project");
    }

    [TestMethod]
    public void From_a_project_folder_or_a_project_file_the_repository_is_the_folder_with_Directory_Build_props()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = Repository(xfs, packageCache: xfs.NewFolder("packages"));
        File.WriteAllText(Path.Combine(repository, "Directory.Build.props"), "<Project />");
        string app = Path.Combine(repository, "src", "App");

        foreach (string named in new[] { app, Path.Combine(app, "App.csproj") })
        {
            string json = Path.Combine(xfs.NewFolder("report"), "doctor.json");
            (int exit, string output) = Doctor(named, "--json", json);

            Assert.AreEqual(0, exit, output);
            using JsonDocument check = JsonDocument.Parse(File.ReadAllText(json));
            Assert.AreEqual(repository, check.RootElement.GetProperty("folders").EnumerateArray().Single(f => f.GetProperty("role").GetString() == "repository").GetProperty("path").GetString(), $"named {named}:\n{output}");
        }
    }

    /// <summary>
    /// The folders are the build's own, as MSBuild evaluates the project, in a repository that has not adopted the SDK:
    /// a package cache set by RestorePackagesPath in Directory.Build.props (which NuGet.config does not show) and outputs
    /// moved by BaseOutputPath, before any restore.
    /// </summary>
    [TestMethod]
    public void Folders_the_project_itself_moves_are_the_ones_checked_before_any_restore_without_the_SDK()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = Repository(xfs, packageCache: LoopFileSystems.Ext4.NewFolder("configured-packages"));
        string projectPackages = xfs.NewFolder("project-packages");
        File.WriteAllText(Path.Combine(repository, "Directory.Build.props"), $"""
            <Project><PropertyGroup><RestorePackagesPath>{projectPackages}</RestorePackagesPath><BaseOutputPath>$(MSBuildThisFileDirectory)out/</BaseOutputPath></PropertyGroup></Project>
            """);
        string json = Path.Combine(xfs.NewFolder("report"), "doctor.json");

        (int exit, string output) = Doctor(repository, "--require-clone", "--json", json);

        Assert.AreEqual(0, exit, "the build's own package cache is on the repository's XFS:\n" + output);
        Assert.IsFalse(Directory.Exists(Path.Combine(repository, "src", "App", "obj")), "the doctor restored or built:\n" + output);
        string[] folders = Folders(json);
        CollectionAssert.Contains(folders, "packageCache " + projectPackages, string.Join("\n", folders));
        Assert.IsTrue(folders.Any(row => row.StartsWith("buildOutput " + Path.Combine(repository, "out", "Debug"), StringComparison.Ordinal)), string.Join("\n", folders));
    }

    [TestMethod]
    public void A_folder_with_no_project_says_no_project_found_and_does_not_claim_it_clones()
    {
        string empty = LoopFileSystems.Require("xfs").NewFolder("no-project");
        File.WriteAllText(Path.Combine(empty, "notes.txt"), "not a project");

        (int exit, string output) = Doctor(empty);

        Assert.AreEqual(Program.BadInput, exit, output);
        StringAssert.Contains(output, "no project found");
        Assert.IsFalse(output.Contains("clones what it builds", StringComparison.Ordinal), output);
    }

    [TestMethod]
    public void On_ext4_it_proposes_the_volume_that_clones_and_already_holds_the_package_cache_and_says_why()
    {
        LoopFileSystem ext4 = LoopFileSystems.Require("ext4");
        using LoopFileSystem xfs = LoopFileSystems.RequireNew("xfs", 1024, LoopFileSystems.KeptFolder); // another volume that clones, mounted before the doctor looks
        using LoopFileSystem btrfs = LoopFileSystems.RequireNew("btrfs", 1024, LoopFileSystems.KeptFolder);
        string repository = Repository(ext4, packageCache: btrfs.NewFolder("packages"));

        (int exit, string output) = Doctor(repository);

        Assert.AreEqual(0, exit, output);
        StringAssert.Contains(output, $"put the repository and the package cache on {btrfs.MountPoint} (btrfs), which already holds the package cache", $"{xfs.MountPoint} clones too, but holds nothing of the build:\n{output}");
        StringAssert.Contains(output, $"git clone <repository> {btrfs.MountPoint}/src/<name>");
        Assert.IsFalse(output.Contains("export NUGET_PACKAGES=", StringComparison.Ordinal), "the package cache is already there: no new, empty one to fill again:\n" + output);
        StringAssert.Contains(output, "is already on " + btrfs.MountPoint + " (btrfs), where the repository should go: nothing to move for it.");
    }

    [TestMethod]
    public void On_ext4_with_nothing_of_the_build_on_a_volume_that_clones_it_proposes_the_one_with_the_most_free_space_and_says_so()
    {
        LoopFileSystem ext4 = LoopFileSystems.Require("ext4");
        using LoopFileSystem xfs = LoopFileSystems.RequireNew("xfs", 1024, LoopFileSystems.KeptFolder); // two volumes that clone, both mounted before the doctor looks
        using LoopFileSystem btrfs = LoopFileSystems.RequireNew("btrfs", 2048, LoopFileSystems.KeptFolder);
        string repository = Repository(ext4, packageCache: ext4.NewFolder("packages"));

        (int exit, string output) = Doctor(repository);

        Assert.AreEqual(0, exit, output);
        // Other volumes of this machine that clone may be proposed too: the one named must have the most free space.
        System.Text.RegularExpressions.Match named = System.Text.RegularExpressions.Regex.Match(output, @"put the repository and the package cache on (\S+) \((xfs|btrfs)\), which has the most free space of them \(");
        Assert.IsTrue(named.Success, "no proposal by free space:\n" + output);
        string proposed = named.Groups[1].Value;
        long slack = 64L << 20; // other tests may write meanwhile
        foreach (LoopFileSystem candidate in new[] { xfs, btrfs })
        {
            Assert.IsTrue(new DriveInfo(proposed).AvailableFreeSpace + slack >= new DriveInfo(candidate.MountPoint).AvailableFreeSpace, $"{proposed} was proposed, but {candidate.MountPoint} has more free space:\n{output}");
        }

        StringAssert.Contains(output, $"git clone <repository> {proposed}/src/<name>");
    }

    /// <summary>
    /// A volume in a temp folder, or made of an image file that lives in one, is another job's scratch (the tests' own
    /// volumes, a benchmark's): gone when that job ends, never the place to move a repository to.
    /// </summary>
    [TestMethod]
    public void On_ext4_it_never_proposes_a_volume_mounted_in_a_temp_folder_or_made_of_an_image_there()
    {
        LoopFileSystem ext4 = LoopFileSystems.Require("ext4");
        LoopFileSystem inTemp = LoopFileSystems.Xfs; // mounted in /var/tmp, as the tests' shared volumes are
        using LoopFileSystem imageInTemp = LoopFileSystems.RequireNew("btrfs", 1024, imageFolder: LoopFileSystems.ScratchFolder, mountFolder: LoopFileSystems.KeptFolder);
        string repository = Repository(ext4, packageCache: ext4.NewFolder("packages"));

        (int exit, string output) = Doctor(repository);

        Assert.AreEqual(0, exit, output);
        foreach (string scratch in new[] { inTemp.MountPoint, imageInTemp.MountPoint })
        {
            Assert.IsFalse(output.Contains("put the repository and the package cache on " + scratch, StringComparison.Ordinal), $"{scratch} is scratch, yet proposed:\n{output}");
            Assert.IsFalse(output.Contains($"git clone <repository> {scratch}/", StringComparison.Ordinal), $"{scratch} is scratch, yet proposed:\n{output}");
        }
    }

    /// <summary>
    /// In a folder holding one solution the doctor checks its projects in the solution's order, although another order
    /// is the folder's (App/ before App.Tests/, which the solution lists first): of equal verdicts, the solution's first
    /// project is the one on top of the JSON, and every project follows under "projects".
    /// </summary>
    [TestMethod]
    public void In_a_solution_folder_the_projects_are_checked_in_the_solutions_order_and_the_first_of_equal_verdicts_is_on_top()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = xfs.NewFolder("two-doors");
        string packageCache = xfs.NewFolder("packages");
        File.WriteAllText(Path.Combine(repository, "NuGet.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <config><add key="globalPackagesFolder" value="{packageCache}" /></config>
              <packageSources><clear /><add key="local" value="{InstalledTool.PackageFolder}" /></packageSources>
            </configuration>
            """);
        File.WriteAllText(Path.Combine(repository, "global.json"), $$"""{ "msbuild-sdks": { "Microsoft.Build.CopyOnWrite": "{{InstalledTool.Version}}" } }""");
        File.WriteAllText(Path.Combine(repository, "Directory.Build.props"), """<Project><Sdk Name="Microsoft.Build.CopyOnWrite" /></Project>""");
        foreach (string name in new[] { "App", "App.Tests" })
        {
            Directory.CreateDirectory(Path.Combine(repository, name));
            File.WriteAllText(Path.Combine(repository, name, name + ".csproj"), """<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup></Project>""");
        }

        File.WriteAllText(Path.Combine(repository, "App.slnx"), """<Solution><Project Path="App.Tests/App.Tests.csproj" /><Project Path="App/App.csproj" /></Solution>""");
        ToolRun tool = InstalledTool.Run(repository, ["doctor", "--json", "tool.json"]);

        Assert.AreEqual(0, tool.ExitCode, tool.Output + tool.Error);
        string[] toolFolders = Folders(Path.Combine(repository, "tool.json"));
        Assert.IsTrue(toolFolders.Any(row => row.StartsWith("buildOutput " + Path.Combine(repository, "App.Tests", "bin"), StringComparison.Ordinal)), "the solution's first project:\n" + string.Join("\n", toolFolders));
        using JsonDocument report = JsonDocument.Parse(File.ReadAllText(Path.Combine(repository, "tool.json")));
        Assert.AreEqual(Path.Combine(repository, "App.Tests", "App.Tests.csproj"), report.RootElement.GetProperty("project").GetString());
        CollectionAssert.AreEqual(
            new[] { Path.Combine(repository, "App.Tests", "App.Tests.csproj"), Path.Combine(repository, "App", "App.csproj") },
            report.RootElement.GetProperty("projects").EnumerateArray().Select(p => p.GetProperty("project").GetString()).ToArray(),
            "every project, in the solution's order");
    }

    /// <summary>"role path" of each folder a doctor's JSON report checked, sorted.</summary>
    private static string[] Folders(string json)
    {
        using JsonDocument report = JsonDocument.Parse(File.ReadAllText(json));
        return report.RootElement.GetProperty("folders").EnumerateArray()
            .Select(folder => $"{folder.GetProperty("role").GetString()} {folder.GetProperty("path").GetString()!.TrimEnd('/')}")
            .Order(StringComparer.Ordinal)
            .ToArray();
    }

    [TestMethod]
    public void A_repository_on_XFS_that_asks_for_links_is_told_its_links_point_into_the_package_cache_and_which_setting_makes_clones_instead()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = Repository(xfs, packageCache: xfs.NewFolder("packages"));
        AskForLinks(repository, "<CreateHardLinksForCopyLocalIfPossible>true</CreateHardLinksForCopyLocalIfPossible>");

        (int exit, string output) = Doctor(repository);

        Assert.AreEqual(0, exit, output);
        StringAssert.Contains(output, "warning: The project asks for links (CreateHardLinksForCopyLocalIfPossible), so outputs are hard or symbolic links into the package cache");
        StringAssert.Contains(output, "<CopyOnWriteInsteadOfLinks>true</CopyOnWriteInsteadOfLinks>   # in Directory.Build.props");
    }

    [TestMethod]
    public void A_repository_on_XFS_with_CopyOnWriteInsteadOfLinks_is_told_its_links_are_clones()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = Repository(xfs, packageCache: xfs.NewFolder("packages"));
        AskForLinks(repository, "<CreateSymbolicLinksForPublishFilesIfPossible>true</CreateSymbolicLinksForPublishFilesIfPossible><CopyOnWriteInsteadOfLinks>true</CopyOnWriteInsteadOfLinks>");

        (int exit, string output) = Doctor(repository);

        Assert.AreEqual(0, exit, output);
        StringAssert.Contains(output, "info: The project asks for links (CreateSymbolicLinksForPublishFilesIfPossible); CopyOnWriteInsteadOfLinks is true");
        Assert.IsFalse(output.Contains("warning: The project asks for links", StringComparison.Ordinal), output);
    }

    [TestMethod]
    public void A_repository_on_ext4_that_asks_for_links_is_warned_that_the_links_into_the_package_cache_stay()
    {
        LoopFileSystem ext4 = LoopFileSystems.Ext4;
        string repository = Repository(ext4, packageCache: ext4.NewFolder("packages"));
        AskForLinks(repository, "<CreateHardLinksForCopyLocalIfPossible>true</CreateHardLinksForCopyLocalIfPossible><CopyOnWriteInsteadOfLinks>true</CopyOnWriteInsteadOfLinks>");

        (_, string output) = Doctor(repository);

        StringAssert.Contains(output, "warning: The project asks for links (CreateHardLinksForCopyLocalIfPossible), and its outputs cannot clone from the package cache");
        StringAssert.Contains(output, "the links into the cache are made as asked, CopyOnWriteInsteadOfLinks or not");
    }

    [TestMethod]
    public void A_repository_that_asks_for_no_link_hears_nothing_of_links()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = Repository(xfs, packageCache: xfs.NewFolder("packages"));
        AskForLinks(repository, "<CreateHardLinksForCopyLocalIfPossible>false</CreateHardLinksForCopyLocalIfPossible>");

        (_, string output) = Doctor(repository);

        Assert.IsFalse(output.Contains("asks for links", StringComparison.Ordinal), output);
    }

    /// <summary>
    /// Links that are there now (#52): MSBuild's own Copy hard-links the package's assembly into bin/ on XFS; the doctor
    /// finds that output by its inode among the package's files, counts it in the JSON and says what to type (one build
    /// with CopyOnWriteInsteadOfLinks, since XFS clones). The same solution built again without links has none.
    /// </summary>
    [TestMethod]
    public void Outputs_that_are_hard_links_into_the_package_cache_now_are_counted_and_named_with_what_to_type()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        LinkingSolution solution = LinkingSolution.Create(xfs.NewFolder("linked-now"), xfs.NewFolder("packages"), withOurSdk: false);
        ProcessResult restore = solution.Dotnet("restore", solution.SolutionFile);
        if (!restore.Succeeded && restore.Output.Contains("NU1301", StringComparison.Ordinal))
        {
            Assert.Inconclusive($"SKIPPED: this test restores {LinkingSolution.PackageId} from the package registry, which cannot be reached here:\n{restore.Output}");
        }

        Assert.IsTrue(solution.Build().Succeeded, "the build with links");
        Assert.AreEqual(2, UnixFileFacts.Of(solution.PackageAssemblyInOutput).Links, "premise: bin/ holds the package cache's file itself");
        string json = Path.Combine(solution.Root, "doctor.json");

        (int exit, string output) = Doctor(Path.Combine(solution.Root, "App"), "--json", json);

        Assert.AreEqual(0, exit, output);
        StringAssert.Contains(output, "1 output of the build is a link into a package folder now (" + solution.PackageAssemblyInOutput + ")");
        StringAssert.Contains(output, "dotnet build -p:CopyOnWriteInsteadOfLinks=true");
        using (JsonDocument report = JsonDocument.Parse(File.ReadAllText(json)))
        {
            JsonElement linked = report.RootElement.GetProperty("linksIntoPackageFolders");
            Assert.AreEqual(1, linked.GetProperty("count").GetInt32(), output);
            Assert.AreEqual(solution.PackageAssemblyInOutput, linked.GetProperty("examples")[0].GetString());
        }

        solution.WriteDirectoryBuildProps(links: false, string.Empty);
        Assert.IsTrue(solution.Dotnet("build", solution.SolutionFile, "--no-incremental", "-nr:false").Succeeded, "a clean build without links");
        (_, string after) = Doctor(Path.Combine(solution.Root, "App"));
        Assert.IsFalse(after.Contains("link into a package folder now", StringComparison.Ordinal) || after.Contains("links into a package folder now", StringComparison.Ordinal), after);
    }

    /// <summary>Directory.Build.props with these properties, as a repository turns links on.</summary>
    private static void AskForLinks(string repository, string properties)
        => File.WriteAllText(Path.Combine(repository, "Directory.Build.props"), $"<Project><PropertyGroup>{properties}</PropertyGroup></Project>");

    private static (int Exit, string Output) Doctor(params string[] arguments)
    {
        var output = new StringWriter();
        string[] folders = arguments.TakeWhile(a => !a.StartsWith("--", StringComparison.Ordinal)).ToArray();
        string? json = arguments.SkipWhile(a => a != "--json").Skip(1).FirstOrDefault();
        int exit = DoctorCommand.Run(folders, json, arguments.Contains("--require-clone"), output, output);
        return (exit, output.ToString());
    }

    /// <summary>A project.assets.json as restore writes it for src/App: one package, Dep, in <paramref name="packageFolder"/>, with an assembly a build copies or only a placeholder.</summary>
    private static void WriteAssets(string repository, string packageFolder, bool runtimeAssembly)
    {
        Directory.CreateDirectory(Path.Combine(packageFolder, "dep", "1.0.0"));
        string obj = Directory.CreateDirectory(Path.Combine(repository, "src", "App", "obj")).FullName;
        string runtime = runtimeAssembly ? "lib/net10.0/Dep.dll" : "lib/net10.0/_._";
        File.WriteAllText(Path.Combine(obj, "project.assets.json"), $$"""
            {
              "version": 3,
              "targets": { "net10.0": { "Dep/1.0.0": { "type": "package", "runtime": { "{{runtime}}": {} } } } },
              "libraries": { "Dep/1.0.0": { "type": "package", "path": "dep/1.0.0", "files": [] } },
              "packageFolders": { "{{packageFolder.TrimEnd('/')}}/": {} }
            }
            """);
    }

    /// <summary>A repository with one project (src/App) and a NuGet.config naming its package cache (and a fallback folder).</summary>
    private static string Repository(LoopFileSystem volume, string packageCache, string? fallbackFolder = null)
    {
        string repository = volume.NewFolder("repo");
        Directory.CreateDirectory(Path.Combine(repository, "src", "App"));
        File.WriteAllText(Path.Combine(repository, "src", "App", "App.csproj"), "<Project Sdk=\"Microsoft.NET.Sdk\" />");
        string fallback = fallbackFolder is null ? string.Empty : $"<fallbackPackageFolders><add key=\"shared\" value=\"{fallbackFolder}\" /></fallbackPackageFolders>";
        File.WriteAllText(Path.Combine(repository, "NuGet.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <config><add key="globalPackagesFolder" value="{packageCache}" /></config>
              {fallback}
            </configuration>
            """);
        return repository;
    }
}
