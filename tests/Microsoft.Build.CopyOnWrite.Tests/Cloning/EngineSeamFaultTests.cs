using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// The engines that cannot run here (Windows, macOS), with every call of a file's way made to fail in turn, with an
/// error code nobody wrote a rule for and with the exceptions a P/Invoke or the runtime throws on a machine we have
/// never run on (an entry point or library missing, an unexpected state): inside the fallback ladder, the file ends
/// with the source's bytes, no temporary file is left, and no handle stays open. The same with the real kernel32
/// under Wine: the Windows parity program's fault cases. On Linux the faults are made at the system-call layer:
/// Reliability.Tests' SystemCallFaultTests.
/// </summary>
[TestClass]
public sealed class EngineSeamFaultTests
{
    private static readonly long Yesterday = new DateTime(2026, 11, 25, 12, 0, 0, DateTimeKind.Utc).ToFileTimeUtc();

    public static IEnumerable<object[]> WindowsScenarios =>
    [
        ["a new file on a Dev Drive", @"D:\src\App.dll", @"D:\out\App.dll", false, false],
        ["an existing file on a Dev Drive", @"D:\src\App.dll", @"D:\out\App.dll", true, false],
        ["a new file on NTFS", @"C:\src\App.dll", @"C:\out\App.dll", false, false],
        ["a file from NTFS onto a Dev Drive", @"C:\src\App.dll", @"D:\out\App.dll", true, false],
        ["a destination another process holds, sharing writing", @"D:\src\App.dll", @"D:\out\App.dll", true, true],
    ];

    public static IEnumerable<object[]> MacScenarios =>
    [
        ["a new file on APFS", "/Volumes/Dev/src/App.dll", "/Volumes/Dev/out/App.dll", false],
        ["an existing file on APFS", "/Volumes/Dev/src/App.dll", "/Volumes/Dev/out/App.dll", true],
        ["a new file on FAT", "/Volumes/Stick/src/App.dll", "/Volumes/Stick/out/App.dll", false],
        ["a file from FAT onto APFS", "/Volumes/Stick/src/App.dll", "/Volumes/Dev/out/App.dll", true],
    ];

    [TestMethod]
    [DynamicData(nameof(WindowsScenarios))]
    public void Every_Windows_call_failing_in_every_unforeseen_way_still_ends_with_the_file_copied_and_nothing_left(
        string scenario, string source, string destination, bool destinationExists, bool destinationHeld)
    {
        int calls = WindowsRun(null, null, source, destination, destinationExists, destinationHeld).Seam.Calls;
        Assert.IsTrue(calls >= 4, $"{scenario}: the engine made {calls} calls");

        foreach (UnforeseenFault fault in UnforeseenFault.All)
        {
            for (int call = 0; call < calls; call++)
            {
                (FaultingWindowsFileSystem seam, FakeWindowsFileSystem files, byte[] content, CloneResult result) =
                    WindowsRun(call, fault, source, destination, destinationExists, destinationHeld);
                string what = $"{scenario}, call {call} ({seam.Failed}) failing with {fault}: {result.Method} {result.Reason} {result.Detail}";

                CollectionAssert.AreEqual(content, files[destination].Data, what);
                AssertNoTemporaryFile(files.FilesIn(Folder(destination, '\\')), what);
                Assert.AreEqual(destinationHeld ? 1 : 0, files[destination].OpenHandles.Count, $"{what}: a handle was left open");
                Assert.AreEqual(0, files[source].OpenHandles.Count, $"{what}: the source's handle was left open");
            }
        }
    }

    [TestMethod]
    [DynamicData(nameof(MacScenarios))]
    public void Every_macOS_call_failing_in_every_unforeseen_way_still_ends_with_the_file_copied_and_nothing_left(
        string scenario, string source, string destination, bool destinationExists)
    {
        int calls = MacRun(null, null, source, destination, destinationExists).Seam.Calls;
        Assert.IsTrue(calls >= 3, $"{scenario}: the engine made {calls} calls");

        foreach (UnforeseenFault fault in UnforeseenFault.All)
        {
            for (int call = 0; call < calls; call++)
            {
                (FaultingMacFileSystem seam, FakeMacFileSystem files, byte[] content, CloneResult result) = MacRun(call, fault, source, destination, destinationExists);
                string what = $"{scenario}, call {call} ({seam.Failed}) failing with {fault}: {result.Method} {result.Reason} {result.Detail}";

                CollectionAssert.AreEqual(content, files[destination].Data, what);
                AssertNoTemporaryFile(files.FilesIn(Folder(destination, '/')), what);
            }
        }
    }

    [TestMethod]
    public void A_fault_the_engine_cannot_get_past_is_said_with_its_step_and_error()
    {
        (FaultingWindowsFileSystem seam, _, _, CloneResult result) =
            WindowsRun(failAt: 0, UnforeseenFault.All.Single(f => f.Name == nameof(EntryPointNotFoundException)), @"D:\src\App.dll", @"D:\out\App.dll", false, false);

        Assert.AreEqual("Open", seam.Failed);
        Assert.AreEqual(FallbackReason.EngineFailed, result.Reason);
        StringAssert.Contains(result.Detail, "our engine failed at WindowsCloneEngine.");
        StringAssert.Contains(result.Detail, "EntryPointNotFoundException");
    }

    private static (FaultingWindowsFileSystem Seam, FakeWindowsFileSystem Files, byte[] Content, CloneResult Result) WindowsRun(
        int? failAt, UnforeseenFault? fault, string source, string destination, bool destinationExists, bool destinationHeld)
    {
        var files = new FakeWindowsFileSystem();
        files.AddVolume(@"D:\", "ReFS", serial: 0xD0D0, blockCloning: true);
        files.AddVolume(@"C:\", "NTFS", serial: 0xC0C0, blockCloning: false);
        foreach (string folder in new[] { @"D:\src", @"D:\out", @"C:\src", @"C:\out" })
        {
            files.AddFolder(folder);
        }

        byte[] content = SeededBytes.Of(150_000, seed: 3);
        files.AddFile(source, content, Yesterday);
        if (destinationExists)
        {
            files.AddFile(destination, SeededBytes.Of(9_000, seed: 4), Yesterday);
        }

        if (destinationHeld)
        {
            files.OpenAsAnotherProcess(destination, WindowsAccess.Read, WindowsShare.Read | WindowsShare.Write);
        }

        var seam = new FaultingWindowsFileSystem(files, failAt, fault);
        var ladder = new FallbackLadder(new WindowsCloneEngine(seam, new CloneCapabilityCache(), () => Yesterday), new FakeWindowsPlainFiles(files));
        CloneResult result;
        try
        {
            result = ladder.CloneOrCopy(source, destination, CancellationToken.None);
        }
        catch (System.IO.IOException e) when (FallbackLadder.IsContention(e))
        {
            // A held destination that the fault kept the engine from writing in place is contention, which the task
            // retries (the stock task's MSB3026): the retry, with nothing failing, must get the file there.
            result = ladder.CloneOrCopy(source, destination, CancellationToken.None);
        }

        return (seam, files, content, result);
    }

    private static (FaultingMacFileSystem Seam, FakeMacFileSystem Files, byte[] Content, CloneResult Result) MacRun(
        int? failAt, UnforeseenFault? fault, string source, string destination, bool destinationExists)
    {
        var files = new FakeMacFileSystem();
        files.AddVolume("/Volumes/Dev/", device: 0x1000010, type: "apfs");
        files.AddVolume("/Volumes/Stick/", device: 0x1000020, type: "msdos");
        byte[] content = SeededBytes.Of(150_000, seed: 5);
        files.AddFile(source, content);
        if (destinationExists)
        {
            files.AddFile(destination, SeededBytes.Of(9_000, seed: 6));
        }

        var seam = new FaultingMacFileSystem(files, failAt, fault);
        var ladder = new FallbackLadder(new MacCloneEngine(seam, new CloneCapabilityCache()), new FakeMacPlainFiles(files));
        CloneResult result = ladder.CloneOrCopy(source, destination, CancellationToken.None);
        return (seam, files, content, result);
    }

    private static string Folder(string path, char separator) => path.Substring(0, path.LastIndexOf(separator));

    private static void AssertNoTemporaryFile(IEnumerable<string> files, string what)
    {
        string[] leftovers = files.Where(path => path.EndsWith(AtomicFile.TemporarySuffix, StringComparison.Ordinal)).ToArray();
        Assert.AreEqual(0, leftovers.Length, $"{what}: {string.Join(", ", leftovers)}");
    }
}
