using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.TestKit;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// A C library without statx (musl before 1.2.5) must cost the shortcuts, never the copy: no
/// EntryPointNotFoundException, the stock checks through .NET, and the plain engine's correct bytes and times.
/// This machine's glibc has statx, so the tests pretend it has not (<see cref="LinuxNative.HasStatx"/>).
/// </summary>
[TestClass]
[DoNotParallelize]
public sealed class StatxFallbackTests
{
    private const int ENOSYS = 38;

    [TestCleanup]
    public void PutStatxBack() => LinuxNative.HasStatx = LinuxNative.CLibraryExports("statx");

    [TestMethod]
    public void The_lookup_finds_statx_in_this_C_library_and_not_a_name_it_lacks()
    {
        Assert.IsTrue(LinuxNative.CLibraryExports("statx"), "glibc has had statx since 2.28");
        Assert.IsTrue(LinuxNative.HasStatx);
        Assert.IsFalse(LinuxNative.CLibraryExports("cow_no_such_function_anywhere"));
    }

    [TestMethod]
    public void Without_statx_a_64_bit_Linux_process_copies_with_the_plain_engine_and_says_why()
    {
        EngineChoice choice = CloneEngines.Choose(OSPlatform.Linux, Architecture.X64, is64BitProcess: true, cLibraryHasStatx: false);

        Assert.AreEqual(EngineKind.CopyOnly, choice.Kind);
        Assert.AreEqual("Linux, C library without statx", choice.CopyOnlyReason);
    }

    [TestMethod]
    public void Without_statx_every_stat_says_ENOSYS_and_the_shortcuts_leave_the_checks_to_NET()
    {
        string folder = TestScratch.NewFolder("no-statx-probe");
        string file = TestFiles.Write(folder, "file.bin", 10);
        string missing = Path.Combine(folder, "missing.bin");
        LinuxNative.HasStatx = false;

        Assert.IsFalse(LinuxNative.TryStat(file, followLinks: true, out _));
        Assert.AreEqual(ENOSYS, Marshal.GetLastPInvokeError());
        Assert.AreEqual(EntryKind.Unknown, UnixFiles.Probe(file, followLinks: true));
        Assert.AreEqual(EntryKind.Unknown, UnixFiles.Probe(missing, followLinks: false), "not 'missing': only a real ENOENT says so");
        Assert.IsFalse(UnixFiles.AreOneDirectoryEntry(file, file));
        Assert.IsFalse(FileLinks.AreSameFile(file, file));
        Assert.ThrowsExactly<IOException>(() => LinuxNative.Stat(0, "stdin"));
    }

    [TestMethod]
    public void Without_statx_the_Copy_task_copies_new_and_existing_destinations_with_their_bytes_and_times()
    {
        string folder = TestScratch.NewFolder("no-statx-copy");
        string first = TestFiles.Write(folder, "first.bin", 300_000, seed: 1);
        string second = TestFiles.Write(folder, "second.bin", 5_000, seed: 2);
        var firstWritten = new DateTime(2020, 1, 2, 3, 4, 5, DateTimeKind.Utc).AddTicks(1234567);
        var secondWritten = new DateTime(2019, 6, 7, 8, 9, 10, DateTimeKind.Utc).AddTicks(7654321);
        File.SetLastWriteTimeUtc(first, firstWritten);
        File.SetLastWriteTimeUtc(second, secondWritten);
        string newDestination = Path.Combine(folder, "out", "first.bin");
        string existingDestination = TestFiles.Write(folder, "second-copy.bin", 70_000, seed: 3);
        LinuxNative.HasStatx = false;
        ICloneEngine engine = CloneEngines.Create(CloneEngines.Choose(OSPlatform.Linux, Architecture.X64, is64BitProcess: true, LinuxNative.HasStatx), new CloneCapabilityCache());
        var build = new RecordingBuildEngine();
        var task = new Copy(engine, _ => null)
        {
            BuildEngine = build,
            SourceFiles = [new TaskItem(first), new TaskItem(second)],
            DestinationFiles = [new TaskItem(newDestination), new TaskItem(existingDestination)],
        };

        bool succeeded = task.Execute();

        Assert.IsTrue(succeeded, build.Log);
        Assert.AreEqual(0, build.Errors.Count + build.Warnings.Count, build.Log);
        Assert.IsTrue(TestFiles.SameBytes(first, newDestination));
        Assert.IsTrue(TestFiles.SameBytes(second, existingDestination));
        Assert.AreEqual(firstWritten, File.GetLastWriteTimeUtc(newDestination));
        Assert.AreEqual(secondWritten, File.GetLastWriteTimeUtc(existingDestination));
        Assert.AreEqual(0, TestFiles.TemporaryLeftovers(folder).Length);
        StringAssert.Contains(build.Log, "C library without statx", "the reason a file was copied");
    }

    [TestMethod]
    public void Without_statx_a_copy_onto_the_source_through_a_linked_folder_keeps_the_source_whole()
    {
        string folder = TestScratch.NewFolder("no-statx-self");
        string source = TestFiles.Write(folder, "self.bin", 20_000, seed: 4);
        byte[] original = File.ReadAllBytes(source);
        string linkedFolder = Path.Combine(TestScratch.NewFolder("no-statx-self-link"), "linked");
        Directory.CreateSymbolicLink(linkedFolder, folder);
        LinuxNative.HasStatx = false;
        ICloneEngine engine = CloneEngines.Create(CloneEngines.Choose(OSPlatform.Linux, Architecture.X64, is64BitProcess: true, LinuxNative.HasStatx), new CloneCapabilityCache());
        var build = new RecordingBuildEngine();
        var task = new Copy(engine, _ => null)
        {
            BuildEngine = build,
            SourceFiles = [new TaskItem(source)],
            DestinationFiles = [new TaskItem(Path.Combine(linkedFolder, "self.bin"))],
        };

        Assert.IsTrue(task.Execute(), build.Log);

        // With statx the task sees one entry and does nothing; without, it cannot tell and copies the file onto itself.
        CollectionAssert.AreEqual(original, File.ReadAllBytes(source));
    }

    [TestMethod]
    public void With_statx_the_shortcuts_answer_as_before()
    {
        string folder = TestScratch.NewFolder("statx-probe");
        string file = TestFiles.Write(folder, "file.bin", 10);

        Assert.AreEqual(EntryKind.RegularFile, UnixFiles.Probe(file, followLinks: true));
        Assert.AreEqual(EntryKind.Missing, UnixFiles.Probe(Path.Combine(folder, "missing.bin"), followLinks: false));
        Assert.IsTrue(UnixFiles.AreOneDirectoryEntry(file, file));
        Assert.IsTrue(FileLinks.AreSameFile(file, file));
    }
}
