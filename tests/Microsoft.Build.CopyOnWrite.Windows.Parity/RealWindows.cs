using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Measure.SelfTest;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>
/// What only a real Windows machine can check: real clones on ReFS / Dev Drive, NTFS's own rules, 32-bit MSBuild.
/// Each test runs when an environment variable names a folder to run in, and is skipped with the reason
/// elsewhere (always under Wine, whose drives cannot clone). .github/workflows/windows.yml sets them up.
///   COW_TEST_DEVDRIVE   a folder on a ReFS or Dev Drive volume
///   COW_TEST_NTFS       a folder on an NTFS volume
///   COW_TEST_PACKAGES   a folder holding our Microsoft.Build.CopyOnWrite.*.nupkg (for the MSBuild.exe build)
///   COW_TEST_MSBUILD32  optional: the 32-bit MSBuild.exe (else found with vswhere)
/// Clones are proven with the file system's own record (FSCTL_GET_RETRIEVAL_POINTERS_AND_REFCOUNT), never by our log.
/// </summary>
internal static class RealWindows
{
    public const string WorkerSwitch = "--clone-worker";
    public const string DevDriveVariable = "COW_TEST_DEVDRIVE";
    public const string NtfsVariable = "COW_TEST_NTFS";
    public const string PackagesVariable = "COW_TEST_PACKAGES";
    public const string MSBuild32Variable = "COW_TEST_MSBUILD32";

    private const int ClonesPerSource = 8;
    private const int StressRounds = 12;

    public static IEnumerable<WindowsTest> Tests(string scratch)
    {
        // Runs everywhere, Wine included: Wine applies Windows sharing rules to its own drives.
        yield return new WindowsTest("Retries", "a locked destination gets MSB3026 retries, then the copy", log => LockedDestination(log, scratch));

        yield return T("DevDrive", "zero-fill stress: 8 processes clone each just-written source", log => ZeroFillStress(log, writerStillOpen: false));
        yield return T("DevDrive", "zero-fill stress: 8 processes clone each source while its writer still holds it", log => ZeroFillStress(log, writerStillOpen: true));
        yield return T("DevDrive", "awkward sizes are cloned whole: bytes, size and shared extents", AwkwardSizes);
        foreach (string kind in new[] { "subst drive", "junction", "UNC", "long path" })
        {
            yield return T("DevDrive", $"{kind}: the copy arrives and what we report (cloned or copied) is true", log => OtherPath(log, kind));
        }

        yield return T("DevDrive", "a locked destination gets MSB3026 retries, then the copy", log => LockedDestination(log, DevDrive()));
        yield return T("NTFS", "a locked destination gets MSB3026 retries, then the copy", log => LockedDestination(log, Ntfs()));
        yield return T("MSBuild32", "32-bit MSBuild.exe builds a project with our SDK", MSBuild32);
    }

    /// <summary>The parity scenarios again, in the COW_TEST_NTFS and COW_TEST_DEVDRIVE folders (all three times compared there).</summary>
    public static IEnumerable<WindowsTest> ParityElsewhere(string scratchName)
    {
        foreach ((string group, string variable, Func<string> folder) in new (string, string, Func<string>)[] { ("Parity.NTFS", NtfsVariable, Ntfs), ("Parity.DevDrive", DevDriveVariable, DevDrive) })
        {
            Exception? cannotRun = null;
            string? root = null;
            try
            {
                root = Path.Combine(folder(), scratchName);
            }
            catch (Exception e) when (e is SkippedException or CheckFailedException)
            {
                cannotRun = e;
            }

            if (root is null)
            {
                yield return new WindowsTest(group, "every parity scenario", _ => throw cannotRun!);
                continue;
            }

            foreach (WindowsTest test in Scenarios.Tests(root, group))
            {
                yield return test;
            }
        }
    }

    private static WindowsTest T(string group, string name, Action<TestLog> body) => new("RealWindows." + group, name, body);

    private static string DevDrive() => Folder(DevDriveVariable, "a folder on a ReFS or Dev Drive volume", mustClone: true);

    private static string Ntfs() => Folder(NtfsVariable, "a folder on an NTFS volume", mustClone: false);

    private static string Folder(string variable, string what, bool mustClone)
    {
        if (Win32.WineVersion is string wine)
        {
            throw new SkippedException($"needs a real Windows machine ({variable}: {what}); this is Wine {wine}, whose drives report NTFS without block cloning and whose file rules only imitate Windows. Written, not run here: .github/workflows/windows.yml runs it.");
        }

        string? folder = Environment.GetEnvironmentVariable(variable);
        if (string.IsNullOrEmpty(folder))
        {
            throw new SkippedException($"set {variable} to {what} (.github/workflows/windows.yml does).");
        }

        Directory.CreateDirectory(folder);
        string probe = Path.Combine(folder, $"probe-{Environment.ProcessId}.txt");
        File.WriteAllText(probe, "probe");
        using (var stream = new FileStream(probe, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.DeleteOnClose))
        {
            Check.That(Win32.GetVolumeInformation(stream.SafeFileHandle, out uint flags, out string fileSystem, out _, out int error), $"{variable}={folder}: GetVolumeInformationByHandleW failed: {Win32.Describe(error)}");
            bool clones = (flags & Win32.FileSupportsBlockRefcounting) != 0;
            Check.That(clones == mustClone, $"{variable}={folder} is on {fileSystem}, which {(clones ? "can" : "cannot")} clone: it must name {what}.");
        }

        return folder;
    }

    /// <summary>
    /// The self-test's zero-fill stress (src/.../SelfTest/SelfTestRunner.ZeroFillStress, the one implementation users run
    /// too), on the Dev Drive, with each copy made by our task in a process of its own (a build's nodes): every copy must
    /// hold the source's bytes, and at least one must be a real clone (else nothing was tested).
    /// </summary>
    private static void ZeroFillStress(TestLog log, bool writerStillOpen)
    {
        string root = Path.Combine(DevDrive(), $"zero-fill-{(writerStillOpen ? "open" : "closed")}-{Environment.ProcessId}");
        Directory.CreateDirectory(root);
        int clonedTotal = 0;
        var runner = new SelfTestRunner(CloneEngines.Current, log.Line, cloneElsewhere: CopyInAWorker);
        try
        {
            string said = runner.ZeroFillStress(root, writerStillOpen, StressRounds, ClonesPerSource, (source, copies) =>
                clonedTotal += copies.Count(copy => SharesAllExtents(copy, source, out _)));
            log.Line(said);
        }
        catch (OutputMismatchException e)
        {
            throw new CheckFailedException(e.Message);
        }
        finally
        {
            WindowsTree.Delete(root);
        }

        log.Line($"{clonedTotal} of {StressRounds * ClonesPerSource} destinations share every extent with their source");
        Check.That(clonedTotal > 0, "no destination was a real clone, so the stress tested nothing: is the folder on a Dev Drive?");
    }

    /// <summary>One copy by our task in a worker process; null, or its exit code and output.</summary>
    private static string? CopyInAWorker(string source, string destination)
    {
        using Process worker = StartWorker(source, destination);
        string output = worker.StandardOutput.ReadToEnd();
        if (!worker.WaitForExit(120_000))
        {
            return "the worker did not finish in 2 minutes";
        }

        return worker.ExitCode == 0 ? null : $"exit code {worker.ExitCode}:{Environment.NewLine}{output}";
    }

    private static string Describe(byte[] actual, byte[] expected)
    {
        int firstDifference = actual.AsSpan().CommonPrefixLength(expected);
        int zeros = actual.Count(b => b == 0);
        return $"{actual.Length} bytes (expected {expected.Length}), first difference at {firstDifference}, {zeros} zero bytes";
    }

    private static Process StartWorker(string source, string destination)
    {
        var start = new ProcessStartInfo(Environment.ProcessPath!) { RedirectStandardOutput = true, UseShellExecute = false };
        start.ArgumentList.Add(WorkerSwitch);
        start.ArgumentList.Add(source);
        start.ArgumentList.Add(destination);
        return Process.Start(start)!;
    }

    /// <summary>`--clone-worker SOURCE DESTINATION`: one copy with our task, as a build node would; exit 0 when it succeeded.</summary>
    public static int Worker(string[] args)
    {
        TaskRunResult result = TaskDriver.Run(new Copy(), new Dictionary<string, object?>
        {
            ["SourceFiles"] = new[] { new ParityItem(args[0]) },
            ["DestinationFiles"] = new[] { new ParityItem(args[1]) },
            ["Retries"] = 20,
            ["RetryDelayMilliseconds"] = 50,
        });
        result.Events.ForEach(e => Console.WriteLine(e));
        return result.Success ? 0 : 1;
    }

    /// <summary>Every allocated extent of <paramref name="copy"/> is one of <paramref name="source"/>'s clusters with a reference count of 2 or more.</summary>
    private static bool SharesAllExtents(string copy, string source, out string description)
    {
        var copyExtents = Win32.ExtentsAndReferenceCounts(copy).Where(e => e.Lcn >= 0).ToList();
        var sourceExtents = Win32.ExtentsAndReferenceCounts(source).Where(e => e.Lcn >= 0).ToList();
        description = $"copy extents [{string.Join(", ", copyExtents.Select(e => $"vcn {e.Vcn} x{e.Clusters} at lcn {e.Lcn} refs {e.References}"))}], "
                      + $"source extents [{string.Join(", ", sourceExtents.Select(e => $"vcn {e.Vcn} x{e.Clusters} at lcn {e.Lcn} refs {e.References}"))}]";
        return copyExtents.Count > 0
               && copyExtents.All(e => e.References >= 2)
               && copyExtents.Select(e => (e.Vcn, e.Clusters, e.Lcn)).SequenceEqual(sourceExtents.Select(e => (e.Vcn, e.Clusters, e.Lcn)));
    }

    /// <summary>Sizes around every boundary the clone path cares about: empty, one byte, page and cluster edges, 4 GiB.</summary>
    private static void AwkwardSizes(TestLog log)
    {
        string root = Path.Combine(DevDrive(), $"sizes-{Environment.ProcessId}");
        Directory.CreateDirectory(root);
        long cluster = Win32.ClusterBytes(Path.GetPathRoot(Path.GetFullPath(root))!);
        const long FourGiB = 4L << 30;
        long[] sizes = { 0, 1, 4095, 4096, 4097, 65535, 65536, 65537, cluster - 1, cluster, cluster + 1, FourGiB - cluster, FourGiB, FourGiB + cluster, FourGiB + 12345 };
        var failures = new List<string>();
        try
        {
            foreach (long size in sizes.Distinct())
            {
                string source = Path.Combine(root, $"source-{size}.bin");
                string destination = Path.Combine(root, "out", $"copy-{size}.bin");
                WritePattern(source, size);
                TaskRunResult result = TaskDriver.Run(new Copy(), new Dictionary<string, object?>
                {
                    ["SourceFiles"] = new[] { new ParityItem(source) },
                    ["DestinationFiles"] = new[] { new ParityItem(destination) },
                });
                string verdict = VerifyCopy(source, destination, size, result, expectClone: size > 0);
                log.Line($"{size} bytes ({cluster}-byte clusters): {verdict}");
                log.Line("  " + Fsutil("file", "queryExtentsAndRefCounts", destination).Replace(Environment.NewLine, Environment.NewLine + "  "));
                log.Line("  " + Fsutil("sparse", "queryflag", destination).Trim());
                if (!verdict.StartsWith("ok", StringComparison.Ordinal))
                {
                    failures.Add($"{size} bytes: {verdict}");
                }

                File.Delete(source);
                File.Delete(destination);
            }
        }
        finally
        {
            WindowsTree.Delete(root);
        }

        Check.That(failures.Count == 0, string.Join(Environment.NewLine, failures));
    }

    private static void WritePattern(string path, long size)
    {
        var block = new byte[1 << 20];
        new Random((int)(size % int.MaxValue)).NextBytes(block);
        using var stream = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 20);
        for (long written = 0, index = 0; written < size; index++)
        {
            BitConverter.TryWriteBytes(block, index); // every MiB differs, so a misplaced extent shows
            int count = (int)Math.Min(block.Length, size - written);
            stream.Write(block, 0, count);
            written += count;
        }
    }

    /// <summary>"ok: ..." or what is wrong: the task's outcome, bytes, size, sparse flag, and whether the extents back what was reported.</summary>
    private static string VerifyCopy(string source, string destination, long size, TaskRunResult result, bool? expectClone)
    {
        if (!result.Success)
        {
            return "the copy failed: " + string.Join("; ", result.Events.Where(e => e.Kind != "message"));
        }

        var destinationInfo = new FileInfo(destination);
        if (destinationInfo.Length != size)
        {
            return $"size {destinationInfo.Length}, expected {size}";
        }

        if (!SameBytes(source, destination, out string difference))
        {
            return "the bytes differ: " + difference;
        }

        if ((destinationInfo.Attributes & FileAttributes.SparseFile) != (File.GetAttributes(source) & FileAttributes.SparseFile))
        {
            return $"sparse flag {destinationInfo.Attributes}, the source's {File.GetAttributes(source)}";
        }

        bool saysCloned = result.Events.Any(e => e.Kind == "message" && e.Text.StartsWith("CopyOnWrite: cloned 1 file ", StringComparison.Ordinal));
        string extents = "(nothing allocated)";
        bool shares = size > 0 && SharesAllExtents(destination, source, out extents);
        if (saysCloned != shares)
        {
            return $"reported {(saysCloned ? "cloned" : "copied")} but the file system says it {(shares ? "shares" : "does not share")} the source's clusters: {extents}";
        }

        if (expectClone is bool expected && expected != shares)
        {
            return $"expected {(expected ? "a clone" : "a copy")}, got {(shares ? "a clone" : "a copy")}: {extents}; log: {string.Join(" | ", result.Events)}";
        }

        return $"ok, {(shares ? "cloned" : "copied")}";
    }

    private static bool SameBytes(string a, string b, out string difference)
    {
        using var first = new FileStream(a, FileMode.Open, FileAccess.Read, FileShare.Read, 1);
        using var second = new FileStream(b, FileMode.Open, FileAccess.Read, FileShare.Read, 1);
        var x = new byte[1 << 20];
        var y = new byte[1 << 20];
        for (long offset = 0; ; offset += x.Length)
        {
            int readX = first.ReadAtLeast(x, x.Length, throwOnEndOfStream: false);
            int readY = second.ReadAtLeast(y, y.Length, throwOnEndOfStream: false);
            int common = x.AsSpan(0, readX).CommonPrefixLength(y.AsSpan(0, readY));
            if (common != readX || readX != readY)
            {
                difference = $"first difference at byte {offset + common}";
                return false;
            }

            if (readX == 0)
            {
                difference = string.Empty;
                return true;
            }
        }
    }

    private static string Fsutil(params string[] arguments)
    {
        try
        {
            return Run("fsutil", arguments).Output.Trim();
        }
        catch (Exception e) when (e is System.ComponentModel.Win32Exception or InvalidOperationException)
        {
            return "fsutil: " + e.Message;
        }
    }

    private static (int ExitCode, string Output) Run(string program, params string[] arguments)
    {
        var start = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        arguments.ToList().ForEach(start.ArgumentList.Add);
        using Process process = Process.Start(start)!;
        Task<string> error = process.StandardError.ReadToEndAsync();
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        return (process.ExitCode, output + error.Result);
    }

    /// <summary>
    /// The same volume reached another way: a subst drive letter, a junction, the administrative share, a path over
    /// 260 characters. The file must arrive whole, and "cloned" or "copied" must be what the file system shows.
    /// Network paths are the engine's deliberate rule: whichever it chose, it must be true.
    /// </summary>
    private static void OtherPath(TestLog log, string kind)
    {
        string root = Path.Combine(DevDrive(), $"paths-{Environment.ProcessId}");
        Directory.CreateDirectory(Path.Combine(root, "target"));
        string source = Path.Combine(root, "source.bin");
        WritePattern(source, 3 << 20);
        string localDestination = Path.Combine(root, "target", "copy.bin");
        string destination;
        Action cleanUp = () => { };
        switch (kind)
        {
            case "subst drive":
                char letter = "ZYXWVUTSRQPONMLKJIHG".First(c => !Directory.Exists($"{c}:\\"));
                Check.That(Run("subst", $"{letter}:", Path.Combine(root, "target")).ExitCode == 0, $"subst {letter}: failed");
                cleanUp = () => Run("subst", $"{letter}:", "/d");
                destination = $"{letter}:\\copy.bin";
                break;
            case "junction":
                (int code, string output) = Run("cmd", "/c", "mklink", "/J", Path.Combine(root, "junction"), Path.Combine(root, "target"));
                Check.That(code == 0, "mklink /J failed: " + output);
                destination = Path.Combine(root, "junction", "copy.bin");
                break;
            case "UNC":
                string full = Path.GetFullPath(localDestination);
                destination = $"\\\\localhost\\{full[0]}$\\{full.Substring(3)}";
                if (!Directory.Exists(Path.GetDirectoryName(destination)))
                {
                    throw new SkippedException($"the administrative share {Path.GetDirectoryName(destination)} is not reachable here (needs an elevated runner with the Server service).");
                }

                break;
            default:
                string deep = Path.Combine(root, "target", string.Join("\\", Enumerable.Repeat(new string('d', 60), 5)));
                Directory.CreateDirectory(deep);
                localDestination = Path.Combine(deep, "copy.bin");
                destination = localDestination;
                Check.That(destination.Length > 300, $"the long path is only {destination.Length} characters");
                break;
        }

        try
        {
            TaskRunResult result = TaskDriver.Run(new Copy(), new Dictionary<string, object?>
            {
                ["SourceFiles"] = new[] { new ParityItem(source) },
                ["DestinationFiles"] = new[] { new ParityItem(destination) },
            });
            string verdict = VerifyCopy(source, localDestination, 3 << 20, result, expectClone: kind == "UNC" ? null : true);
            log.Line($"{kind} ({destination}): {verdict}");
            log.Line(string.Join(Environment.NewLine, result.Events));
            Check.That(verdict.StartsWith("ok", StringComparison.Ordinal), verdict);
        }
        finally
        {
            cleanUp();
            WindowsTree.Delete(root);
        }
    }

    /// <summary>
    /// Another program holds the destination with no sharing for a second: each task retries with MSB3026 naming the file,
    /// then copies. The first MSB3026 of each ends with who holds the file, in MSBuild's words from MSBuild's own lock check
    /// (ours calls it): the same line from both, naming this process on Windows; under Wine, whose Restart Manager is a
    /// stub that finds no process, nothing.
    /// </summary>
    private static void LockedDestination(TestLog log, string folder)
    {
        var firstRetry = new Dictionary<string, string>();
        foreach ((string side, Func<object> task) in new (string, Func<object>)[] { ("stock", TaskDriver.CreateStockCopy), ("ours", () => new Copy()) })
        {
            string root = Path.Combine(folder, $"locked-{side}-{Environment.ProcessId}");
            using var tree = new WindowsTree(root, TimesCompared.ForThisMachine);
            tree.File("src/a.txt").File("out/a.txt", "old");
            FileStream holder = tree.Hold("out/a.txt", FileAccess.ReadWrite, FileShare.None);
            Task release = Task.Run(() =>
            {
                Thread.Sleep(1000);
                holder.Dispose();
            });
            TaskRunResult result = TaskDriver.Run(task(), new Dictionary<string, object?>
            {
                ["SourceFiles"] = new[] { new ParityItem(tree.At("src/a.txt")) },
                ["DestinationFiles"] = new[] { new ParityItem(tree.At("out/a.txt")) },
                ["Retries"] = 10,
                ["RetryDelayMilliseconds"] = 200,
            });
            release.Wait();
            List<ObservedEvent> retries = result.Events.Where(e => e.Code == "MSB3026").ToList();
            string content = File.ReadAllText(tree.At("out/a.txt"));
            log.Line($"{side}: success {result.Success}, {retries.Count} MSB3026, destination \"{content}\"{Environment.NewLine}  {string.Join(Environment.NewLine + "  ", result.Events)}");
            Check.That(result.Success && content == "content of src/a.txt", $"{side}: the copy did not arrive once the destination was released: {string.Join(" | ", result.Events)}");
            Check.That(retries.Count > 0 && retries.All(e => e.Text.Contains(tree.At("out/a.txt"), StringComparison.OrdinalIgnoreCase)),
                $"{side}: expected MSB3026 retries naming the destination: {string.Join(" | ", result.Events)}");
            Check.That(!result.Events.Any(e => e.Code is "MSB3021" or "MSB3027"), $"{side}: a retried copy that succeeded logged an error: {string.Join(" | ", result.Events)}");
            firstRetry[side] = retries[0].Text.Replace(root, "{R}", StringComparison.OrdinalIgnoreCase);
        }

        Check.That(firstRetry["ours"] == firstRetry["stock"], $"the first MSB3026 differs:{Environment.NewLine}  stock: {firstRetry["stock"]}{Environment.NewLine}  ours:  {firstRetry["ours"]}");
        if (Win32.WineVersion is null)
        {
            Check.That(firstRetry["ours"].Contains($"({Environment.ProcessId})", StringComparison.Ordinal), $"MSB3026 does not name this process, which holds the destination: {firstRetry["ours"]}");
        }
    }

    /// <summary>
    /// net472 MSBuild.exe as a 32-bit process (what Visual Studio's Developer prompt runs) loads our SDK from the package
    /// and runs our task: the structs and handles of the native layer at 32 bits, for real.
    /// </summary>
    private static void MSBuild32(TestLog log)
    {
        if (Win32.WineVersion is string wine)
        {
            throw new SkippedException($"needs a real Windows machine with Visual Studio's 32-bit MSBuild.exe; this is Wine {wine} (64-bit only here, and no .NET Framework). Written, not run here.");
        }

        string msbuild = Environment.GetEnvironmentVariable(MSBuild32Variable) is { Length: > 0 } given ? given : FindMSBuild32();
        string packages = Environment.GetEnvironmentVariable(PackagesVariable) ?? throw new SkippedException($"set {PackagesVariable} to the folder holding Microsoft.Build.CopyOnWrite.*.nupkg (dotnet pack writes artifacts/packages).");
        string package = Directory.EnumerateFiles(packages, "Microsoft.Build.CopyOnWrite.*.nupkg").Select(Path.GetFileNameWithoutExtension).OrderBy(p => p).LastOrDefault()
                         ?? throw new CheckFailedException($"no Microsoft.Build.CopyOnWrite.*.nupkg in {packages}");
        string version = package!.Substring("Microsoft.Build.CopyOnWrite.".Length);
        Check.That(PeMachine(msbuild) == 0x14C, $"{msbuild} is not a 32-bit (x86) executable");

        string folder = Environment.GetEnvironmentVariable(DevDriveVariable) is { Length: > 0 } devDrive ? devDrive : Path.GetTempPath();
        string project = Path.Combine(folder, $"msbuild32-{Environment.ProcessId}");
        Directory.CreateDirectory(project);
        try
        {
            File.WriteAllText(Path.Combine(project, "global.json"), $"{{ \"msbuild-sdks\": {{ \"Microsoft.Build.CopyOnWrite\": \"{version}\" }} }}");
            File.WriteAllText(Path.Combine(project, "NuGet.config"), $"<configuration><packageSources><clear /><add key=\"local\" value=\"{packages}\" /></packageSources></configuration>");
            File.WriteAllText(Path.Combine(project, "small.proj"),
                "<Project>\n  <Sdk Name=\"Microsoft.Build.CopyOnWrite\" />\n  <Target Name=\"Build\">\n    <Copy SourceFiles=\"input.bin\" DestinationFolder=\"out\" />\n  </Target>\n</Project>\n");
            WritePattern(Path.Combine(project, "input.bin"), 5 << 20);
            (int exitCode, string output) = Run(msbuild, Path.Combine(project, "small.proj"), "-nologo", "-nr:false", "-v:detailed", $"-p:NuGetPackageRoot={Path.Combine(project, "nuget")}\\");
            log.Line(output);
            Check.That(exitCode == 0, $"MSBuild.exe (32-bit) failed with exit code {exitCode}; see the output.");
            Check.That(output.Contains("CopyOnWrite:", StringComparison.Ordinal), "the build log has no \"CopyOnWrite:\" summary: our task did not run in place of MSBuild's Copy.");
            Check.That(SameBytes(Path.Combine(project, "input.bin"), Path.Combine(project, "out", "input.bin"), out string difference), "the copy differs: " + difference);
            if (folder != Path.GetTempPath())
            {
                Check.That(SharesAllExtents(Path.Combine(project, "out", "input.bin"), Path.Combine(project, "input.bin"), out string extents), "on the Dev Drive the 32-bit task did not clone: " + extents);
            }
        }
        finally
        {
            WindowsTree.Delete(project);
        }
    }

    private static string FindMSBuild32()
    {
        string vswhere = Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.ProgramFilesX86), "Microsoft Visual Studio", "Installer", "vswhere.exe");
        if (!File.Exists(vswhere))
        {
            throw new SkippedException($"no Visual Studio here (no {vswhere}); set {MSBuild32Variable} to a 32-bit MSBuild.exe.");
        }

        string found = Run(vswhere, "-latest", "-products", "*", "-requires", "Microsoft.Component.MSBuild", "-find", @"MSBuild\**\Bin\MSBuild.exe").Output
            .Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .FirstOrDefault(p => !p.Contains(@"\amd64\", StringComparison.OrdinalIgnoreCase) && !p.Contains(@"\arm64\", StringComparison.OrdinalIgnoreCase))
            ?? string.Empty;
        return File.Exists(found) ? found : throw new SkippedException($"vswhere found no 32-bit MSBuild.exe; set {MSBuild32Variable}.");
    }

    /// <summary>IMAGE_FILE_HEADER.Machine of a PE file: 0x14C for x86, 0x8664 for x64.</summary>
    private static ushort PeMachine(string path)
    {
        using var reader = new BinaryReader(File.OpenRead(path));
        reader.BaseStream.Position = 0x3C;
        reader.BaseStream.Position = reader.ReadInt32() + 4;
        return reader.ReadUInt16();
    }
}
