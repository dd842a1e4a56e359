using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Faults;

/// <summary>
/// "No build that passes with MSBuild's own Copy fails with ours", held at the system-call layer: every call our
/// engine and the stock path make for a new and an existing destination is made to fail, with the errors unusual
/// file systems, FUSE, network shares and sandboxes give, for a real `dotnet msbuild` process copying on real XFS, btrfs
/// and ext4 volumes (a seccomp filter, <see cref="SystemCallFaults"/>). MSBuild's own Copy and ours run the same project
/// in the same state: 20 files into an empty folder, then 20 others over them. Where the stock task succeeds, ours
/// succeeds with the same bytes, permission bits and times; where it fails, ours fails with the same codes and
/// messages, leaves no file the stock task did not, and no temporary file.
/// </summary>
[TestClass]
public sealed class SystemCallFaultTests
{
    private const int Files = 20;

    /// <summary>Each fault: a name for the test and the rules of fail-system-calls.py.</summary>
    private static readonly (string Name, string[] Rules)[] Faults =
    [
        ("clone EIO", [$"{SystemCallFaults.Clone}=EIO"]),
        ("clone EINTR once", [$"{SystemCallFaults.Clone}=EINTR*1@0"]), // once into each out folder (the clone's destination, argument 0)
        ("clone EAGAIN", [$"{SystemCallFaults.Clone}=EAGAIN"]),
        ("clone ENOMEM", [$"{SystemCallFaults.Clone}=ENOMEM"]),
        ("clone EBUSY", [$"{SystemCallFaults.Clone}=EBUSY"]),
        ("clone, copy_file_range and sendfile ENOSPC", [$"{SystemCallFaults.Clone}=ENOSPC", "copy_file_range=ENOSPC", "sendfile=ENOSPC"]),
        ("clone EOPNOTSUPP", [$"{SystemCallFaults.Clone}=EOPNOTSUPP"]),
        ("clone EINVAL", [$"{SystemCallFaults.Clone}=EINVAL"]),
        ("unnamed file EOPNOTSUPP", [$"{SystemCallFaults.UnnamedFile}=EOPNOTSUPP"]),
        ("unnamed file EACCES", [$"{SystemCallFaults.UnnamedFile}=EACCES"]),
        ("unnamed file EIO", [$"{SystemCallFaults.UnnamedFile}=EIO"]),
        ("linkat ENOSYS", ["linkat=ENOSYS"]),
        ("linkat EPERM", ["linkat=EPERM"]),
        ("linkat EIO", ["linkat=EIO"]),
        ("rename EPERM", ["rename=EPERM", "renameat=EPERM", "renameat2=EPERM"]),
        ("rename EACCES", ["rename=EACCES", "renameat=EACCES", "renameat2=EACCES"]),
        ("rename EBUSY", ["rename=EBUSY", "renameat=EBUSY", "renameat2=EBUSY"]),
        ("rename EXDEV", ["rename=EXDEV", "renameat=EXDEV", "renameat2=EXDEV"]),
        ("rename ENOSYS", ["rename=ENOSYS", "renameat=ENOSYS", "renameat2=ENOSYS"]),
        ("statx ENOSYS", ["statx=ENOSYS"]),
        ("copy_file_range ENOSYS", ["copy_file_range=ENOSYS"]),
        ("copy_file_range EXDEV", ["copy_file_range=EXDEV"]),
        ("copy_file_range EOPNOTSUPP", ["copy_file_range=EOPNOTSUPP"]),
        ("copy_file_range EINVAL", ["copy_file_range=EINVAL"]),
        ("copy_file_range EBADF", ["copy_file_range=EBADF"]),
        ("copy_file_range EPERM", ["copy_file_range=EPERM"]),
        ("copy_file_range EIO", ["copy_file_range=EIO"]),
        ("copy_file_range EINTR once", ["copy_file_range=EINTR*1@2"]),
        ("copy_file_range EINTR always", ["copy_file_range=EINTR"]),
        ("copy_file_range EXDEV, sendfile EINTR always", ["copy_file_range=EXDEV", "sendfile=EINTR"]),
        ("sendfile EIO", ["sendfile=EIO"]),
        ("fchmod EPERM", ["fchmod=EPERM"]),
        ("fchmod EIO", ["fchmod=EIO"]),
        ("futimens EPERM", ["utimensat=EPERM"]),
        ("futimens EIO", ["utimensat=EIO"]),
    ];

    private static readonly string[] Volumes = ["xfs", "btrfs", "ext4"];

    private static readonly string[] CloningVolumes = ["xfs", "btrfs"];

    public static IEnumerable<object[]> EachFault => Faults.Select(fault => new object[] { fault.Name });

    public static string Describe(System.Reflection.MethodInfo method, object[] data) => (string)data[0];

    /// <summary>
    /// One MSBuild process copies with both tasks on all three volumes, the stock task first, each side and volume in a
    /// project file of its own (the MSBuild task goes on after a project that fails; an error names the project file of
    /// the task that failed), so that a fault costs one process, not six. A counted fault fails the first N calls into
    /// each side's output folder (*N@argument), as a process of that side alone would meet it.
    /// </summary>
    [TestMethod]
    [DynamicData(nameof(EachFault), DynamicDataDisplayName = nameof(Describe))]
    public void A_failing_system_call_fails_our_Copy_only_where_it_fails_the_stock_Copy(string faultName)
    {
        string[] rules = Faults.Single(fault => fault.Name == faultName).Rules;
        IReadOnlyList<string> launcher = SystemCallFaults.Launcher(rules);
        string folderName = "syscall-" + faultName.Replace(' ', '-').Replace(",", string.Empty);
        Dictionary<string, Sides> projects = Volumes.ToDictionary(kind => kind, kind => Sides.Of(WriteTree(LoopFileSystems.Require(kind).NewFolder(folderName))));
        (string Project, bool Stock, string Properties)[] sides =
            [.. Volumes.Select(kind => (projects[kind].Stock, true, "Out=out-stock")), .. Volumes.Select(kind => (projects[kind].Ours, false, "Out=out-ours"))];

        BuildRun run = MSBuildProjects.RunSides(sides, TimeSpan.FromMinutes(3), launcher);

        // Each side's outcome on each volume is read from the errors in its project: a build that failed says why.
        Assert.AreEqual(run.ExitCode != 0, run.ErrorCodes.Any(), $"a failed build names its errors, a passing one has none:\n{run}");
        Assert.IsTrue(run.RanOurTask || run.ExitCode != 0, $"our task must have run:\n{run}");
        Assert.IsTrue(run.WarningCodes.Count(code => code == "COW006") <= 1, $"the engine fault is a warning once per process:\n{run}");
        foreach (string kind in Volumes)
        {
            AssertOursFailsOnlyWhereTheStockCopyFails(kind, projects[kind], run);
        }
    }

    private static void AssertOursFailsOnlyWhereTheStockCopyFails(string kind, Sides projects, BuildRun run)
    {
        string folder = Path.GetDirectoryName(projects.Stock)!;
        string stockOut = Path.Combine(folder, "out-stock");
        string oursOut = Path.Combine(folder, "out-ours");
        Diagnostic[] stockErrors = run.Diagnostics.Where(d => d.Kind == "error" && d.Project == projects.Stock).ToArray();
        Diagnostic[] ourErrors = run.Diagnostics.Where(d => d.Kind == "error" && d.Project == projects.Ours).ToArray();
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder), $"on {kind}: no temporary file is left, whatever failed");
        if (stockErrors.Length == 0)
        {
            CollectionAssert.AreEqual(Array.Empty<Diagnostic>(), ourErrors, $"on {kind}: the stock task succeeded here, so ours must:\n{run}");
            foreach (string name in SourceNames())
            {
                string source = Path.Combine(folder, "b", name);
                string mine = Path.Combine(oursOut, name);
                Assert.IsTrue(TestFiles.SameBytes(source, mine), $"{name} on {kind}: the second source's bytes");
                Assert.AreEqual(File.GetUnixFileMode(Path.Combine(stockOut, name)), File.GetUnixFileMode(mine), $"{name} on {kind}: permission bits as the stock task's");
                // Where the times cannot be set (futimens refused) both keep the time of their own copy, seconds apart.
                if (File.GetLastWriteTimeUtc(Path.Combine(stockOut, name)) == File.GetLastWriteTimeUtc(source))
                {
                    Assert.AreEqual(File.GetLastWriteTimeUtc(source), File.GetLastWriteTimeUtc(mine), $"{name} on {kind}: the source's last-write time, as the stock task gives it");
                }
            }

            return;
        }

        Assert.AreNotEqual(0, ourErrors.Length, $"on {kind}: the stock task failed; ours must fail as well, not hide it:\n{run}");
        CollectionAssert.AreEquivalent(
            stockErrors.Select(d => d.Code).ToArray(),
            ourErrors.Select(d => d.Code).ToArray(),
            $"on {kind}: the same errors as the stock task:\n{run}");
        CollectionAssert.AreEquivalent(
            stockErrors.Select(d => d.Message.Replace("out-stock", "out")).ToArray(),
            ourErrors.Select(d => d.Message.Replace("out-ours", "out")).ToArray(),
            $"on {kind}: the same error messages as the stock task:\n{run}");
        string[] leftByStock = Directory.Exists(stockOut) ? Directory.GetFiles(stockOut).Select(path => Path.GetFileName(path)).ToArray() : [];
        string[] leftByUs = Directory.Exists(oursOut) ? Directory.GetFiles(oursOut).Select(path => Path.GetFileName(path)).ToArray() : [];
        CollectionAssert.IsSubsetOf(leftByUs, leftByStock, $"on {kind}: ours leaves no file the stock task does not");
    }

    /// <summary>
    /// A clone that a signal interrupts (EINTR: a FUSE or network file system waiting on its server, a signal the runtime
    /// sends) says nothing of the file or the volume: ours tries it again, and clones. Here the first three clones into
    /// each volume's output are interrupted, each retried at once; every file still ends cloned (shared extents), and no
    /// fault is said. XFS and btrfs in one build, a project each.
    /// </summary>
    [TestMethod]
    public void An_interrupted_clone_is_tried_again_and_the_file_is_cloned()
    {
        IReadOnlyList<string> launcher = SystemCallFaults.Launcher([$"{SystemCallFaults.Clone}=EINTR*3@0"]);
        string[] folders = CloningVolumes.Select(kind => LoopFileSystems.Require(kind).NewFolder("syscall-clone-eintr-once")).ToArray();

        BuildRun ours = MSBuildProjects.RunSides(folders.Select(folder => (WriteTree(folder), false, "Out=out-ours")), TimeSpan.FromMinutes(2), launcher, extraArguments: "-v:d");

        Assert.AreEqual(0, ours.ExitCode, ours.ToString());
        CollectionAssert.AreEqual(Array.Empty<string>(), ours.WarningCodes.ToArray(), $"an interruption is no fault (COW006) and no retry (MSB3026):\n{ours}");
        StringAssert.DoesNotMatch(ours.Output, new System.Text.RegularExpressions.Regex("not cloned: the file system refused"), "no file was copied for it");
        foreach (string folder in folders)
        {
            AssertAllCloned(folder, "out-ours");
        }
    }

    /// <summary>
    /// A clone interrupted on every attempt ends, after a few, in a copy of that file: never a loop (the stock task's
    /// File.Copy retries an interrupted clone without end, so it is not run here: it would never finish), never a fault,
    /// and never held against the volume. On each volume the first three files with content are interrupted four times
    /// each (all the attempts one file gets), one file at a time; they are copied and say why, and every file after them
    /// is cloned again: nothing was remembered against the volume and the engine was not set aside.
    /// </summary>
    [TestMethod]
    public void A_clone_interrupted_on_every_attempt_copies_that_file_and_the_next_ones_are_cloned()
    {
        const int InterruptedFiles = 3, AttemptsPerFile = 4;
        IReadOnlyList<string> launcher = [
            .. SystemCallFaults.Launcher([$"{SystemCallFaults.Clone}=EINTR*{InterruptedFiles * AttemptsPerFile}@0"]),
            "env", "MSBUILDCOPYTASKPARALLELISM=1"];
        string[] folders = CloningVolumes.Select(kind => LoopFileSystems.Require(kind).NewFolder("syscall-clone-eintr-always")).ToArray();

        BuildRun ours = MSBuildProjects.RunSides(folders.Select(folder => (WriteTree(folder), false, "Out=out-ours")), TimeSpan.FromMinutes(2), launcher, extraArguments: "-v:d");

        Assert.AreEqual(0, ours.ExitCode, ours.ToString());
        CollectionAssert.AreEqual(Array.Empty<string>(), ours.WarningCodes.ToArray(), $"no fault (COW006), no retry (MSB3026):\n{ours}");
        foreach (string folder in folders)
        {
            string[] interrupted = ours.Output.Split('\n').Where(line => line.Contains("not cloned: the file system refused", StringComparison.Ordinal)
                && line.Contains($"Interrupted system call, {AttemptsPerFile} times in a row", StringComparison.Ordinal)
                && line.Contains(folder, StringComparison.Ordinal)).ToArray();
            Assert.AreEqual(InterruptedFiles, interrupted.Length, $"one copied file per four interruptions in {folder}:\n{ours}");
            AssertAllCloned(folder, "out-ours"); // the second Copy replaced them all: cloned, every one
        }
    }

    /// <summary>
    /// Plain copies ask the kernel to copy (copy_file_range) where no clone can happen, as File.Copy does, so a network
    /// file system copies on its server: ext4 to ext4, one call per file. Between two local file systems the kernel
    /// refuses (EXDEV, Linux 5.19+): that costs one call per volume pair, remembered with the clone refusal, and the
    /// files go on with sendfile. Seen by strace, one file at a time so that the order is the files' order.
    /// </summary>
    [TestMethod]
    public void Plain_copies_ask_the_kernel_to_copy_and_a_refusal_between_volumes_is_asked_once()
    {
        string within = LoopFileSystems.Require("ext4").NewFolder("syscall-plain-copy");
        string project = WriteTree(within);
        string trace = Path.Combine(within, "within.strace");

        BuildRun sameVolume = MSBuildProjects.Run(project, stock: false, TimeSpan.FromMinutes(2), Traced(trace), "-p:Out=out-ours");

        Assert.AreEqual(0, sameVolume.ExitCode, sameVolume.ToString());
        string[] calls = TracedCalls(trace);
        int filesWithContent = SourceNames().Count(name => new FileInfo(Path.Combine(within, "a", name)).Length > 0)
            + SourceNames().Count(name => new FileInfo(Path.Combine(within, "b", name)).Length > 0);
        Assert.AreEqual(filesWithContent, calls.Count(call => call.StartsWith("copy_file_range(", StringComparison.Ordinal) && !call.Contains("= -1", StringComparison.Ordinal)), string.Join("\n", calls));
        Assert.AreEqual(0, calls.Count(call => call.StartsWith("sendfile(", StringComparison.Ordinal)), "all copied by the kernel's own copy:\n" + string.Join("\n", calls));
        AssertSecondSourcesCopied(within, "out-ours");

        string across = LoopFileSystems.Require("xfs").NewFolder("syscall-plain-copy-across");
        string acrossTrace = Path.Combine(across, "across.strace");
        BuildRun otherVolume = MSBuildProjects.Run(project, stock: false, TimeSpan.FromMinutes(2), Traced(acrossTrace), $"-p:Out={Path.Combine(across, "out-ours")}");

        Assert.AreEqual(0, otherVolume.ExitCode, otherVolume.ToString());
        string[] acrossCalls = TracedCalls(acrossTrace);
        CollectionAssert.AreEqual(
            new[] { "copy_file_range = -1 EXDEV" },
            acrossCalls.Where(call => call.StartsWith("copy_file_range(", StringComparison.Ordinal)).Select(call => "copy_file_range = " + call[(call.LastIndexOf("= ", StringComparison.Ordinal) + 2)..].Split(' ').Take(2).Aggregate((a, b) => a + " " + b)).ToArray(),
            "refused once between these volumes, then not asked again:\n" + string.Join("\n", acrossCalls));
        Assert.AreEqual(filesWithContent, acrossCalls.Count(call => call.StartsWith("sendfile(", StringComparison.Ordinal)), string.Join("\n", acrossCalls));
        AssertSecondSourcesCopied(within, Path.Combine(across, "out-ours"));
    }

    /// <summary>
    /// Over an existing destination the task has just stat'ed, the engine does not try to name the new file at the
    /// destination's name (refused: EEXIST) before naming it beside it and renaming it over: one linkat and one rename a
    /// file, the replacement as atomic as before. 20 files into an empty folder (19 linked at their names, the empty one
    /// created there), then 20 over them.
    /// </summary>
    [TestMethod]
    [DataRow("xfs")]
    [DataRow("ext4")]
    public void Over_an_existing_destination_the_new_file_is_named_once_beside_it_and_renamed_over_it(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("syscall-existing-names");
        string project = WriteTree(folder);
        string trace = Path.Combine(folder, "names.strace");

        BuildRun ours = MSBuildProjects.Run(project, stock: false, TimeSpan.FromMinutes(2), Traced(trace, "linkat,rename,renameat,renameat2"), "-p:Out=out-ours");

        Assert.AreEqual(0, ours.ExitCode, ours.ToString());
        string[] calls = TracedCalls(trace).Where(call => call.Contains("out-ours", StringComparison.Ordinal)).ToArray();
        string all = string.Join("\n", calls);
        Assert.AreEqual(0, calls.Count(call => call.Contains("EEXIST", StringComparison.Ordinal)), "no call bound to fail:\n" + all);
        Assert.AreEqual((Files - 1) + Files, calls.Count(call => call.StartsWith("linkat(", StringComparison.Ordinal)), all);
        Assert.AreEqual(Files, calls.Count(call => call.StartsWith("rename", StringComparison.Ordinal)), all);
        AssertSecondSourcesCopied(folder, "out-ours");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    /// <summary>
    /// A copy_file_range that fails after part of the file (a file over the 64 MiB the engine asks for in one call; its
    /// second call is the one that fails) goes on from where it stopped with sendfile: interrupted once it is tried
    /// again, interrupted every time, refused or failing, the rest is copied by sendfile, and the bytes are whole.
    /// </summary>
    [TestMethod]
    [DataRow("EINTR*1", 0, DisplayName = "copy_file_range interrupted once mid-copy")]
    [DataRow("EINTR", 1, DisplayName = "copy_file_range interrupted every time mid-copy")]
    [DataRow("EXDEV", 1, DisplayName = "copy_file_range EXDEV mid-copy")]
    [DataRow("EIO", 1, DisplayName = "copy_file_range EIO mid-copy")]
    public void A_kernel_copy_that_fails_mid_file_goes_on_from_there(string answer, int sendfileCalls)
    {
        const int Tail = 1000;
        string folder = LoopFileSystems.Require("ext4").NewFolder("syscall-cfr-mid-" + answer.Replace('*', '-'));
        string source = Path.Combine(folder, "big", "big.bin");
        TestFiles.Write(Path.Combine(folder, "big"), "big.bin", (64 << 20) + Tail, seed: 7);
        string project = MSBuildProjects.Write(folder, "copy.proj", """
              <Target Name="Build">
                <Copy SourceFiles="big/big.bin" DestinationFolder="$(Out)" Retries="0" />
              </Target>
            """);
        string trace = Path.Combine(folder, "mid.strace");
        IReadOnlyList<string> launcher = [
            .. SystemCallFaults.Launcher([$"copy_file_range[4&0xffffffff=={Tail}]={answer}"]),
            "strace", "-f", "-qq", "-e", "trace=copy_file_range,sendfile", "-o", trace];

        BuildRun ours = MSBuildProjects.Run(project, stock: false, TimeSpan.FromMinutes(2), launcher, "-p:Out=out-ours");

        Assert.AreEqual(0, ours.ExitCode, ours.ToString());
        CollectionAssert.AreEqual(Array.Empty<string>(), ours.WarningCodes.ToArray(), ours.ToString());
        Assert.IsTrue(TestFiles.SameBytes(source, Path.Combine(folder, "out-ours", "big.bin")), "the whole file");
        string[] calls = TracedCalls(trace);
        Assert.IsTrue(calls.Any(call => call.StartsWith("copy_file_range(", StringComparison.Ordinal) && call.EndsWith($"= {64 << 20}", StringComparison.Ordinal)), "the first 64 MiB by the kernel's copy:\n" + string.Join("\n", calls));
        Assert.IsTrue(calls.Any(call => call.StartsWith("copy_file_range(", StringComparison.Ordinal) && call.Contains($", {Tail}, 0) = -1", StringComparison.Ordinal)), "the tail's call failed:\n" + string.Join("\n", calls));
        Assert.AreEqual(sendfileCalls, calls.Count(call => call.StartsWith("sendfile(", StringComparison.Ordinal) && call.EndsWith($"= {Tail}", StringComparison.Ordinal)), "the tail by sendfile where the kernel's copy gave up:\n" + string.Join("\n", calls));
    }

    /// <summary>
    /// The rows' budget (docs/performance.md, "Per file: system calls"): for a new destination, an existing one
    /// (SkipUnchangedFiles=false) and an unchanged one (skipped), ours makes no more system calls per file than the stock
    /// task, the runtime's memory and thread calls left out. 200 files of 1 KiB on XFS; both tasks in one traced
    /// `dotnet msbuild`, each Copy after a mark the trace shows (a file touched), less the calls of a Copy of no file.
    /// </summary>
    [TestMethod]
    public void Per_file_our_Copy_makes_no_more_system_calls_than_the_stock_Copy_for_a_new_an_existing_or_an_unchanged_destination()
    {
        const int Count = 200;
        string[] rows = ["empty", "new", "existing", "unchanged", "end"];
        string root = LoopFileSystems.Require("xfs").NewFolder("syscall-budget");
        string sources = Path.Combine(root, "sources");
        for (int i = 0; i < Count; i++)
        {
            TestFiles.Write(sources, $"file{i:000}.bin", 1024, seed: i + 1);
        }

        string marks = Directory.CreateDirectory(Path.Combine(root, "marks")).FullName;
        string Side(string side) => MSBuildProjects.Write(Directory.CreateDirectory(Path.Combine(root, side)).FullName, "rows.proj", $"""
              <ItemGroup><Files Include="{sources}/*.bin" /></ItemGroup>
              <Target Name="Build">
                <Touch Files="{marks}/{side}-empty" AlwaysCreate="true" />
                <Copy SourceFiles="@(NoFiles)" DestinationFolder="out" />
                <Touch Files="{marks}/{side}-new" AlwaysCreate="true" />
                <Copy SourceFiles="@(Files)" DestinationFolder="out" />
                <Touch Files="{marks}/{side}-existing" AlwaysCreate="true" />
                <Copy SourceFiles="@(Files)" DestinationFolder="out" />
                <Touch Files="{marks}/{side}-unchanged" AlwaysCreate="true" />
                <Copy SourceFiles="@(Files)" DestinationFolder="out" SkipUnchangedFiles="true" />
                <Touch Files="{marks}/{side}-end" AlwaysCreate="true" />
              </Target>
            """);
        string trace = Path.Combine(root, "rows.strace");

        BuildRun run = MSBuildProjects.RunSides([(Side("stock"), true, ""), (Side("ours"), false, "")], TimeSpan.FromMinutes(3), ["strace", "-f", "-qq", "-o", trace], extraArguments: "-v:q");

        Assert.AreEqual(0, run.ExitCode, run.ToString());
        string[] calls = TracedCalls(trace);
        // The calls between one mark and the next, less the runtime's own (they follow the JIT and the GC, not the files).
        int Between(string side, string from, string to)
        {
            int start = Array.FindIndex(calls, call => call.Contains($"{marks}/{side}-{from}", StringComparison.Ordinal));
            int end = Array.FindIndex(calls, call => call.Contains($"{marks}/{side}-{to}", StringComparison.Ordinal));
            Assert.IsTrue(start >= 0 && end > start, $"the marks of {side}'s {from} row are not in the trace");
            return calls[start..end].Count(call => !ThreadSystemCalls.RuntimeCalls.Contains(call.Split('(')[0]));
        }

        int stockBaseline = Between("stock", rows[0], rows[1]), oursBaseline = Between("ours", rows[0], rows[1]);
        var perFile = new List<string>();
        for (int i = 1; i < rows.Length - 1; i++)
        {
            string row = rows[i];
            double stock = (Between("stock", row, rows[i + 1]) - stockBaseline) / (double)Count;
            double ours = (Between("ours", row, rows[i + 1]) - oursBaseline) / (double)Count;
            perFile.Add($"{row}: ours {ours:0.0}, stock {stock:0.0}");
            Assert.IsTrue(ours <= stock, $"{row} destination: ours makes more system calls per file than the stock task ({ours:0.0} against {stock:0.0})");
        }

        Console.WriteLine("system calls per file: " + string.Join("; ", perFile));
    }

    private static IReadOnlyList<string> Traced(string traceFile, string calls = "copy_file_range,sendfile")
        => ["env", "MSBUILDCOPYTASKPARALLELISM=1", "strace", "-f", "-qq", "-s", "4096", "-e", "trace=" + calls, "-o", traceFile];

    /// <summary>The traced calls, each on one line (strace splits a call another thread interrupted: those are joined).</summary>
    private static string[] TracedCalls(string traceFile)
    {
        var calls = new List<string>();
        var unfinished = new Dictionary<string, string>();
        foreach (string line in File.ReadAllLines(traceFile))
        {
            string[] pidAndCall = line.Split(' ', 2, StringSplitOptions.TrimEntries);
            if (pidAndCall.Length < 2)
            {
                continue;
            }

            string call = pidAndCall[1];
            if (call.EndsWith("<unfinished ...>", StringComparison.Ordinal))
            {
                unfinished[pidAndCall[0]] = call[..^"<unfinished ...>".Length].TrimEnd();
            }
            else if (call.StartsWith("<... ", StringComparison.Ordinal) && unfinished.Remove(pidAndCall[0], out string? start))
            {
                calls.Add(start + call[(call.IndexOf("resumed>", StringComparison.Ordinal) + "resumed>".Length)..]);
            }
            else
            {
                calls.Add(call);
            }
        }

        return calls.ToArray();
    }

    private static void AssertSecondSourcesCopied(string folder, string output)
    {
        foreach (string name in SourceNames())
        {
            Assert.IsTrue(TestFiles.SameBytes(Path.Combine(folder, "b", name), Path.Combine(folder, output, name)), $"{name}: the second source's bytes");
        }
    }

    private static void AssertAllCloned(string folder, string output)
    {
        foreach (string name in SourceNames())
        {
            string source = Path.Combine(folder, "b", name);
            string mine = Path.Combine(folder, output, name);
            Assert.IsTrue(TestFiles.SameBytes(source, mine), $"{name}: the second source's bytes");
            if (new FileInfo(source).Length > 4096) // btrfs keeps smaller files inline in its metadata: no extent to share
            {
                SharedExtents.AssertAllShared(mine, $"{name}: cloned");
            }
        }
    }

    /// <summary>
    /// Two sets of 20 sources of the same names (sizes from empty to 1 MiB, one read-only) and a project that copies the
    /// first into $(Out), then the second over it, with one quick retry so that a failure does not take ten seconds.
    /// </summary>
    private static string WriteTree(string folder)
    {
        int[] sizes = [0, 1, 100, 4095, 4096, 4097, 65_536, 70_000, 1 << 20, 3, 12_345, 8192, 200_000, 512, 77, 131_072, 99_999, 5, 40_000, 300_000];
        string[] names = SourceNames();
        for (int i = 0; i < Files; i++)
        {
            TestFiles.Write(Path.Combine(folder, "a"), names[i], sizes[i], seed: i);
            TestFiles.Write(Path.Combine(folder, "b"), names[i], sizes[(i + 7) % Files], seed: 100 + i);
        }

        File.SetUnixFileMode(Path.Combine(folder, "a", names[3]), UnixFileMode.UserRead | UnixFileMode.GroupRead | UnixFileMode.OtherRead);
        File.SetUnixFileMode(Path.Combine(folder, "b", names[3]), UnixFileMode.UserRead | UnixFileMode.GroupRead | UnixFileMode.OtherRead);
        return MSBuildProjects.Write(folder, "copy.proj", """
              <Target Name="Build">
                <ItemGroup><First Include="a/*.bin" /><Second Include="b/*.bin" /></ItemGroup>
                <Copy SourceFiles="@(First)" DestinationFolder="$(Out)" Retries="1" RetryDelayMilliseconds="10" />
                <Copy SourceFiles="@(Second)" DestinationFolder="$(Out)" Retries="1" RetryDelayMilliseconds="10" />
              </Target>
            """);
    }

    private static string[] SourceNames() => Enumerable.Range(0, Files).Select(i => $"file{i:00}.bin").ToArray();
}
