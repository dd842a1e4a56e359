using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// The fallback ladder (Cloning/FallbackLadder.cs) on real files: whatever the engine throws, the file ends copied
/// the stock task's way, atomically where a new file can be put in place, in place where not, and never through a
/// link; what still fails fails with the plain way's own exception and keeps the old destination. The engine's
/// faults are made by an engine that throws; the plain operations are the real ones, made to fail one at a time
/// where a test needs a folder or a rename that refuses. The same faults at the real system calls:
/// Reliability.Tests' SystemCallFaultTests.
/// </summary>
[TestClass]
public sealed class FallbackLadderTests
{
    public static IEnumerable<object[]> UnforeseenFaults => new[]
    {
        new object[] { new EntryPointNotFoundException("Unable to find an entry point named 'ioctl' in shared library 'libc'.") },
        new object[] { new DllNotFoundException("Unable to load shared library 'libc' or one of its dependencies.") },
        new object[] { new InvalidOperationException("The engine met a state it does not know.") },
        new object[] { new IOException("Unknown error 4242 : '/somewhere'", 4242) },
        new object[] { new UnauthorizedAccessException("Access to the path '/somewhere' is denied.") },
        new object[] { new TypeInitializationException("Microsoft.Build.CopyOnWrite.Cloning.LinuxNative", new DllNotFoundException("libc")) },
    };

    [TestMethod]
    [DynamicData(nameof(UnforeseenFaults))]
    public void An_engine_that_throws_anything_still_gets_a_new_destination_copied_atomically_with_the_fault_named(Exception fault)
    {
        string folder = TestScratch.NewFolder("ladder-new");
        string source = TestFiles.Write(folder, "a.dll", 70_000);
        string destination = Path.Combine(folder, "out.dll");
        var ladder = new FallbackLadder(new FailingEngine(fault), new PlainFiles());

        CloneResult result = ladder.CloneOrCopy(source, destination, CancellationToken.None);

        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        Assert.AreEqual(FallbackReason.EngineFailed, result.Reason);
        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(70_000, result.Bytes);
        Assert.IsFalse(result.WrittenInPlace);
        StringAssert.Contains(result.Detail, "our engine failed at FailingEngine.CloneOrCopy");
        StringAssert.Contains(result.Detail, fault.GetType().Name);
        Assert.AreEqual(File.GetLastWriteTimeUtc(source), File.GetLastWriteTimeUtc(destination), "File.Copy's times, as the stock task's");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    [DynamicData(nameof(UnforeseenFaults))]
    public void An_engine_that_throws_anything_replaces_an_existing_destination_by_a_new_file(Exception fault)
    {
        string folder = TestScratch.NewFolder("ladder-existing");
        string source = TestFiles.Write(folder, "a.dll", 5_000, seed: 1);
        string destination = TestFiles.Write(folder, "out.dll", 9_000, seed: 2);
        string hardLink = Path.Combine(folder, "other-name.dll");
        FileLinks.CreateHardLink(destination, hardLink);
        byte[] old = File.ReadAllBytes(destination);

        CloneResult result = new FallbackLadder(new FailingEngine(fault), new PlainFiles()).CloneOrCopy(source, destination, CancellationToken.None);

        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        CollectionAssert.AreEqual(old, File.ReadAllBytes(hardLink), "the old file's other name keeps its bytes: replaced, not written through");
        Assert.AreEqual(FallbackReason.EngineFailed, result.Reason);
        Assert.IsFalse(result.WrittenInPlace);
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    public void A_read_only_source_gives_a_destination_its_owner_can_write_as_the_stock_task_does()
    {
        string folder = TestScratch.NewFolder("ladder-readonly");
        string source = TestFiles.Write(folder, "a.dll", 1_000);
        File.SetAttributes(source, FileAttributes.ReadOnly);
        string destination = Path.Combine(folder, "out.dll");

        new FallbackLadder(new FailingEngine(new InvalidOperationException("x")), new PlainFiles()).CloneOrCopy(source, destination, CancellationToken.None);

        Assert.AreEqual((FileAttributes)0, File.GetAttributes(destination) & FileAttributes.ReadOnly);
    }

    [TestMethod]
    public void An_engine_that_works_is_passed_through_and_the_plain_operations_are_never_asked()
    {
        string folder = TestScratch.NewFolder("ladder-success");
        string source = TestFiles.Write(folder, "a.dll", 1_000);
        var plain = new RefusingPlainFiles(new PlainFiles()) { RefuseEverything = true };
        var engine = new FailingEngine(null);

        CloneResult result = new FallbackLadder(engine, plain).CloneOrCopy(source, Path.Combine(folder, "out.dll"), CancellationToken.None);

        Assert.AreEqual(FallbackReason.PlatformCannotClone, result.Reason, "the engine's own result");
        Assert.AreEqual(0, plain.Calls, "the success path asks nothing more");
    }

    [TestMethod]
    public void A_destination_another_process_holds_is_contention_not_a_fault_it_goes_back_to_the_tasks_retries()
    {
        string folder = TestScratch.NewFolder("ladder-contention");
        string source = TestFiles.Write(folder, "a.dll", 1_000);
        var held = new IOException("The process cannot access the file because it is being used by another process.", unchecked((int)0x80070020));
        var plain = new RefusingPlainFiles(new PlainFiles()) { RefuseEverything = true };
        var engine = new FailingEngine(held);
        var ladder = new FallbackLadder(engine, plain);

        for (int i = 0; i < 4; i++)
        {
            Assert.AreSame(held, Assert.ThrowsExactly<IOException>(() => ladder.CloneOrCopy(source, Path.Combine(folder, "out.dll"), CancellationToken.None)));
        }

        Assert.AreEqual(0, plain.Calls, "nothing written below the engine: the next attempt is a retry, atomic");
        Assert.AreEqual(4, engine.Calls, "never counted as a fault, never skipped");
    }

    [TestMethod]
    public void After_three_faults_between_two_volumes_the_engine_is_not_asked_there_again()
    {
        string folder = TestScratch.NewFolder("ladder-skip");
        string source = TestFiles.Write(folder, "a.dll", 1_000);
        var engine = new FailingEngine(new IOException("Unknown error 4242", 4242));
        var ladder = new FallbackLadder(engine, new PlainFiles());

        for (int i = 0; i < 5; i++)
        {
            CloneResult result = ladder.CloneOrCopy(source, Path.Combine(folder, $"out{i}.dll"), CancellationToken.None);
            Assert.AreEqual(FallbackReason.EngineFailed, result.Reason);
        }

        Assert.AreEqual(FallbackLadder.FaultsBeforeSkipping, engine.Calls, "asked three times, then no more");
        Assert.IsTrue(TestFiles.SameBytes(source, Path.Combine(folder, "out4.dll")));
    }

    [TestMethod]
    public void Skipping_the_engine_lasts_as_long_as_a_remembered_refusal_then_it_is_asked_again()
    {
        long now = 0;
        (FallbackLadder ladder, FailingEngine engine, string folder, string source) = FaultingLadderOnAClock("ladder-skip-expires", () => now);
        CloneResult Copy(int i) => ladder.CloneOrCopy(source, Path.Combine(folder, $"out{i}.dll"), CancellationToken.None);

        for (int i = 0; i < 4; i++)
        {
            Copy(i);
        }

        Assert.AreEqual(3, engine.Calls, "three faults close together: skipped from the fourth file");
        now += TimeSpan.FromSeconds(29).Ticks * System.Diagnostics.Stopwatch.Frequency / TimeSpan.TicksPerSecond;
        StringAssert.Contains(Copy(4).Detail, "was not asked: it failed 3 times", "still within the lifetime of the latest fault");
        Assert.AreEqual(3, engine.Calls);

        now += TimeSpan.FromSeconds(2).Ticks * System.Diagnostics.Stopwatch.Frequency / TimeSpan.TicksPerSecond;
        StringAssert.Contains(Copy(5).Detail, "our engine failed at FailingEngine.CloneOrCopy", "the faults are forgotten: the engine is asked again");
        Assert.AreEqual(4, engine.Calls);
        Copy(6);
        Copy(7);
        Assert.AreEqual(6, engine.Calls, "counting starts again from the first fault after the pause: three more before skipping");
        Copy(8);
        Assert.AreEqual(6, engine.Calls);
    }

    [TestMethod]
    public void Faults_far_apart_never_add_up_to_skipping_the_engine()
    {
        long now = 0;
        (FallbackLadder ladder, FailingEngine engine, string folder, string source) = FaultingLadderOnAClock("ladder-faults-apart", () => now);

        for (int i = 0; i < 10; i++)
        {
            ladder.CloneOrCopy(source, Path.Combine(folder, $"out{i}.dll"), CancellationToken.None);
            now += 31 * System.Diagnostics.Stopwatch.Frequency; // a fault every 31 s, as a long-lived node may meet them
        }

        Assert.AreEqual(10, engine.Calls, "each fault is alone within the lifetime: the engine is always asked");
    }

    [TestMethod]
    public void Failures_the_plain_way_meets_too_are_not_held_against_the_engine()
    {
        string folder = TestScratch.NewFolder("ladder-not-counted");
        var engine = new FailingEngine(new IOException("Unknown error 4242", 4242));
        var ladder = new FallbackLadder(engine, new PlainFiles());

        for (int i = 0; i < 5; i++)
        {
            Assert.ThrowsExactly<FileNotFoundException>(() => ladder.CloneOrCopy(Path.Combine(folder, "missing.dll"), Path.Combine(folder, "out.dll"), CancellationToken.None));
        }

        Assert.AreEqual(5, engine.Calls, "a source that cannot be read is no fault of the engine: it is asked every time");
    }

    [TestMethod]
    public void A_FIFO_source_is_refused_below_the_engine_too_never_read()
    {
        string folder = TestScratch.NewFolder("ladder-fifo");
        string fifo = Path.Combine(folder, "pipe");
        Assert.IsTrue(ProcessRunner.Run("mkfifo", fifo).Succeeded);
        var ladder = new FallbackLadder(new FailingEngine(new InvalidOperationException("x")), new PlainFiles());

        System.Threading.Tasks.Task<Exception?> attempt = System.Threading.Tasks.Task.Run(() =>
        {
            try
            {
                ladder.CloneOrCopy(fifo, Path.Combine(folder, "out.bin"), CancellationToken.None);
                return null;
            }
            catch (Exception e)
            {
                return e;
            }
        });

        Assert.IsTrue(attempt.Wait(TimeSpan.FromSeconds(20)), "reading a FIFO with no writer would block forever");
        Assert.IsInstanceOfType<NotARegularFileException>(attempt.Result);
        Assert.IsFalse(File.Exists(Path.Combine(folder, "out.bin")));
    }

    [TestMethod]
    public void Cancellation_is_not_a_fault_it_ends_the_file_with_nothing_written()
    {
        string folder = TestScratch.NewFolder("ladder-cancel");
        string source = TestFiles.Write(folder, "a.dll", 1_000);
        string destination = Path.Combine(folder, "out.dll");
        var ladder = new FallbackLadder(new FailingEngine(new OperationCanceledException()), new PlainFiles());

        Assert.ThrowsExactly<OperationCanceledException>(() => ladder.CloneOrCopy(source, destination, CancellationToken.None));

        Assert.IsFalse(File.Exists(destination));
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    public void A_rename_that_is_refused_puts_the_file_in_place_the_stock_tasks_way()
    {
        string folder = TestScratch.NewFolder("ladder-rename");
        string source = TestFiles.Write(folder, "a.dll", 3_000, seed: 3);
        string destination = TestFiles.Write(folder, "out.dll", 8_000, seed: 4);
        var plain = new RefusingPlainFiles(new PlainFiles()) { RefuseReplace = true };

        CloneResult result = new FallbackLadder(new FailingEngine(new InvalidOperationException("x")), plain).CloneOrCopy(source, destination, CancellationToken.None);

        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        Assert.IsTrue(result.WrittenInPlace, "not atomic: said so");
        StringAssert.Contains(result.Detail, "deleted and copied again, as the stock task does");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    public void A_folder_that_takes_no_new_file_and_no_delete_gets_its_regular_file_written_in_place()
    {
        string folder = TestScratch.NewFolder("ladder-inplace");
        string source = TestFiles.Write(folder, "a.dll", 3_000, seed: 5);
        string destination = TestFiles.Write(folder, "out.dll", 8_000, seed: 6);
        long inode = UnixFileFacts.Of(destination).Inode;
        var plain = new RefusingPlainFiles(new PlainFiles()) { RefuseNewFiles = true, RefuseDelete = true };

        CloneResult result = new FallbackLadder(new FailingEngine(new InvalidOperationException("x")), plain).CloneOrCopy(source, destination, CancellationToken.None);

        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        Assert.AreEqual(inode, UnixFileFacts.Of(destination).Inode, "written into the same file");
        Assert.IsTrue(result.WrittenInPlace);
        StringAssert.Contains(result.Detail, "written in place");
    }

    [TestMethod]
    public void A_link_is_never_written_through_even_when_nothing_else_can_put_the_file_in_place()
    {
        string folder = TestScratch.NewFolder("ladder-link");
        string source = TestFiles.Write(folder, "a.dll", 3_000, seed: 7);
        string target = TestFiles.Write(folder, "cache-entry.dll", 8_000, seed: 8);
        string destination = Path.Combine(folder, "out.dll");
        File.CreateSymbolicLink(destination, target);
        byte[] old = File.ReadAllBytes(target);
        var plain = new RefusingPlainFiles(new PlainFiles()) { RefuseNewFiles = true, RefuseDelete = true };
        var ladder = new FallbackLadder(new FailingEngine(new InvalidOperationException("x")), plain);

        var e = Assert.ThrowsExactly<UnauthorizedAccessException>(() => ladder.CloneOrCopy(source, destination, CancellationToken.None));

        StringAssert.Contains(e.Message, "refused by the test");
        CollectionAssert.AreEqual(old, File.ReadAllBytes(target), "the link's target is untouched");
        Assert.AreEqual(target, new FileInfo(destination).LinkTarget);
    }

    [TestMethod]
    public void A_full_volume_fails_with_its_own_error_and_keeps_the_old_destination_whole()
    {
        (string folder, string source, string destination, byte[] old) = SourceAndOlderDestination("ladder-full");
        var plain = new RefusingPlainFiles(new PlainFiles()) { FullVolume = true };
        var ladder = new FallbackLadder(new FailingEngine(new IOException("No space left on device", 28)), plain);

        var e = Assert.ThrowsExactly<IOException>(() => ladder.CloneOrCopy(source, destination, CancellationToken.None));

        Assert.AreEqual(28, e.HResult);
        CollectionAssert.AreEqual(old, File.ReadAllBytes(destination), "never deleted or truncated for a full volume");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    public void A_source_that_cannot_be_read_fails_with_the_plain_ways_error_and_the_destination_is_untouched()
    {
        string folder = TestScratch.NewFolder("ladder-source");
        string destination = TestFiles.Write(folder, "out.dll", 8_000, seed: 11);
        byte[] old = File.ReadAllBytes(destination);
        string missing = Path.Combine(folder, "gone.dll");
        var ladder = new FallbackLadder(new FailingEngine(new InvalidOperationException("x")), new PlainFiles());

        Assert.ThrowsExactly<FileNotFoundException>(() => ladder.CloneOrCopy(missing, destination, CancellationToken.None));

        CollectionAssert.AreEqual(old, File.ReadAllBytes(destination));
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    public void A_build_cancelled_while_the_engine_failed_stops_there_nothing_is_copied_below_it()
    {
        string folder = TestScratch.NewFolder("ladder-cancel-fault");
        string source = TestFiles.Write(folder, "a.dll", 1_000);
        string destination = Path.Combine(folder, "out.dll");
        using var build = new CancellationTokenSource();
        var ladder = new FallbackLadder(new FailingEngine(new IOException("Unknown error 4242", 4242), cancelFirst: build), new PlainFiles());

        Assert.ThrowsExactly<OperationCanceledException>(() => ladder.CloneOrCopy(source, destination, build.Token));

        Assert.IsFalse(File.Exists(destination));
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    public void A_build_cancelled_between_the_rungs_keeps_the_old_destination()
    {
        (string folder, string source, string destination, byte[] old) = SourceAndOlderDestination("ladder-cancel-rungs");
        using var build = new CancellationTokenSource();
        var plain = new RefusingPlainFiles(new PlainFiles()) { RefuseReplace = true, OnRefusedReplace = build.Cancel };

        Assert.ThrowsExactly<OperationCanceledException>(() => new FallbackLadder(new FailingEngine(new InvalidOperationException("x")), plain).CloneOrCopy(source, destination, build.Token));

        CollectionAssert.AreEqual(old, File.ReadAllBytes(destination), "not deleted for the stock task's way once the build is ending");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    public void A_new_destination_whose_rename_is_refused_is_copied_to_its_name()
    {
        string folder = TestScratch.NewFolder("ladder-rename-new");
        string source = TestFiles.Write(folder, "a.dll", 3_000, seed: 14);
        File.SetAttributes(source, FileAttributes.ReadOnly);
        string destination = Path.Combine(folder, "out.dll");
        var plain = new RefusingPlainFiles(new PlainFiles()) { RefuseReplace = true };

        CloneResult result = new FallbackLadder(new FailingEngine(new InvalidOperationException("x")), plain).CloneOrCopy(source, destination, CancellationToken.None);

        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        Assert.IsFalse(result.WrittenInPlace, "no old file was there to lose");
        StringAssert.Contains(result.Detail, "so it was copied to its name");
        Assert.AreEqual((FileAttributes)0, File.GetAttributes(destination) & FileAttributes.ReadOnly, "owner-writable on this rung too, as the stock task's copy");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    public void A_read_error_in_the_content_fails_the_file_with_it_and_keeps_the_old_destination()
    {
        (_, string source, string destination, byte[] old) = SourceAndOlderDestination("ladder-read-error");
        var plain = new RefusingPlainFiles(new PlainFiles()) { ReadError = true };

        var e = Assert.ThrowsExactly<IOException>(() => new FallbackLadder(new FailingEngine(new InvalidOperationException("x")), plain).CloneOrCopy(source, destination, CancellationToken.None));

        Assert.AreEqual(5, e.HResult, "the stock task's copy reads the same bytes and meets the same error");
        CollectionAssert.AreEqual(old, File.ReadAllBytes(destination), "the folder takes new files: the content failed, so nothing is deleted");
    }

    [TestMethod]
    public void In_a_folder_that_takes_no_new_file_a_source_that_cannot_be_read_fails_first_and_the_destination_stays()
    {
        string folder = TestScratch.NewFolder("ladder-source-first");
        string destination = TestFiles.Write(folder, "out.dll", 8_000, seed: 17);
        byte[] old = File.ReadAllBytes(destination);
        var plain = new RefusingPlainFiles(new PlainFiles()) { RefuseNewFiles = true };
        var ladder = new FallbackLadder(new FailingEngine(new InvalidOperationException("x")), plain);

        Assert.ThrowsExactly<FileNotFoundException>(() => ladder.CloneOrCopy(Path.Combine(folder, "gone.dll"), destination, CancellationToken.None));

        CollectionAssert.AreEqual(old, File.ReadAllBytes(destination), "never deleted for a copy that could not have been made");
    }

    [TestMethod]
    public void A_volume_that_fills_at_the_rename_fails_with_its_own_error_and_keeps_the_old_destination()
    {
        (string folder, string source, string destination, byte[] old) = SourceAndOlderDestination("ladder-full-rename");
        var plain = new RefusingPlainFiles(new PlainFiles()) { FullVolumeAtRename = true };

        var e = Assert.ThrowsExactly<IOException>(() => new FallbackLadder(new FailingEngine(new InvalidOperationException("x")), plain).CloneOrCopy(source, destination, CancellationToken.None));

        Assert.AreEqual(28, e.HResult);
        CollectionAssert.AreEqual(old, File.ReadAllBytes(destination));
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    public void After_a_fault_each_file_asks_for_its_volumes_once()
    {
        string folder = TestScratch.NewFolder("ladder-volume-questions");
        string source = TestFiles.Write(folder, "a.dll", 1_000);
        var plain = new RefusingPlainFiles(new PlainFiles());
        var ladder = new FallbackLadder(new FailingEngine(new IOException("Unknown error 4242", 4242)), plain);

        for (int i = 0; i < FallbackLadder.FaultsBeforeSkipping; i++)
        {
            ladder.CloneOrCopy(source, Path.Combine(folder, $"out{i}.dll"), CancellationToken.None);
            Assert.AreEqual(i + 1, plain.VolumeQuestions, "one question per file: the answer taken before the engine is the one its fault is counted under");
        }
    }

    [TestMethod]
    public void Faults_between_volumes_that_cannot_be_named_are_not_counted_the_engine_is_asked_again()
    {
        string folder = TestScratch.NewFolder("ladder-volumes-unknown");
        string source = TestFiles.Write(folder, "a.dll", 1_000);
        var engine = new FailingEngine(new IOException("Unknown error 4242", 4242));
        var ladder = new FallbackLadder(engine, new RefusingPlainFiles(new PlainFiles()) { VolumesUnknown = true });

        for (int i = 0; i < 5; i++)
        {
            Assert.AreEqual(FallbackReason.EngineFailed, ladder.CloneOrCopy(source, Path.Combine(folder, $"out{i}.dll"), CancellationToken.None).Reason);
        }

        Assert.AreEqual(5, engine.Calls);
        Assert.IsTrue(TestFiles.SameBytes(source, Path.Combine(folder, "out4.dll")));
    }

    [TestMethod]
    public void An_engine_that_cannot_be_made_gives_the_copy_only_engine_inside_the_ladder_and_says_why()
    {
        ICloneEngine engine = CloneEngines.CreateOrCopyOnly(
            () => throw new TypeInitializationException("Microsoft.Build.CopyOnWrite.Cloning.LinuxNative", new DllNotFoundException("Unable to load shared library 'libc'.")),
            CloneEngines.Create,
            out string? fault);

        Assert.IsInstanceOfType<FallbackLadder>(engine);
        StringAssert.Contains(fault, "could not be made (DllNotFoundException");
        AssertCopiesWithTheCopyOnlyEngine(engine, "ladder-selection");
    }

    [TestMethod]
    public void An_engine_whose_constructor_throws_gives_the_copy_only_engine_too()
    {
        ICloneEngine engine = CloneEngines.CreateOrCopyOnly(
            () => new EngineChoice(EngineKind.Linux, System.Runtime.InteropServices.Architecture.X64, null),
            (_, _) => throw new EntryPointNotFoundException("statx"),
            out string? fault);

        Assert.IsInstanceOfType<FallbackLadder>(engine);
        StringAssert.Contains(fault, "EntryPointNotFoundException");
        AssertCopiesWithTheCopyOnlyEngine(engine, "ladder-constructor");
    }

    /// <summary>The copy-only engine, seen from outside the ladder: a copy, and its reason and words (<see cref="CopyOnlyEngine"/>).</summary>
    private static void AssertCopiesWithTheCopyOnlyEngine(ICloneEngine engine, string purpose)
    {
        string folder = TestScratch.NewFolder(purpose);
        string source = TestFiles.Write(folder, "a.dll", 1_000);
        CloneResult result = engine.CloneOrCopy(source, Path.Combine(folder, "out.dll"), CancellationToken.None);
        Assert.IsTrue(TestFiles.SameBytes(source, Path.Combine(folder, "out.dll")));
        Assert.AreEqual(FallbackReason.PlatformCannotClone, result.Reason);
        StringAssert.Contains(result.Detail, "our clone engine could not start");
    }

    /// <summary>In a new folder, a source and a destination with other bytes, and those bytes as they were.</summary>
    private static (string Folder, string Source, string Destination, byte[] Old) SourceAndOlderDestination(string purpose)
    {
        string folder = TestScratch.NewFolder(purpose);
        string source = TestFiles.Write(folder, "a.dll", 3_000, seed: 1);
        string destination = TestFiles.Write(folder, "out.dll", 8_000, seed: 2);
        return (folder, source, destination, File.ReadAllBytes(destination));
    }

    /// <summary>A ladder over an engine that fails every file with an unknown error, forgetting on <paramref name="clock"/> (30 s).</summary>
    private static (FallbackLadder Ladder, FailingEngine Engine, string Folder, string Source) FaultingLadderOnAClock(string purpose, Func<long> clock)
    {
        string folder = TestScratch.NewFolder(purpose);
        var engine = new FailingEngine(new IOException("Unknown error 4242", 4242));
        var ladder = new FallbackLadder(engine, new PlainFiles(), new CloneCapabilityCache(TimeSpan.FromSeconds(30), clock));
        return (ladder, engine, folder, TestFiles.Write(folder, "a.dll", 1_000));
    }

    /// <summary>Throws <see cref="_fault"/> for every file (or, without one, copies as the copy-only engine).</summary>
    private sealed class FailingEngine : ICloneEngine
    {
        private readonly Exception? _fault;
        private readonly CancellationTokenSource? _cancelFirst;

        public FailingEngine(Exception? fault, CancellationTokenSource? cancelFirst = null)
        {
            _fault = fault;
            _cancelFirst = cancelFirst;
        }

        public int Calls { get; private set; }

        public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
        {
            Calls++;
            _cancelFirst?.Cancel();
            if (_fault is not null)
            {
                throw _fault;
            }

            return new CopyOnlyEngine("test").CloneOrCopy(sourcePath, destinationPath, cancellationToken);
        }
    }

    /// <summary>The real plain operations, with the ones a test names refused as a folder, a filter or a full disk refuses them.</summary>
    private sealed class RefusingPlainFiles : IPlainFiles
    {
        private readonly IPlainFiles _real;

        public RefusingPlainFiles(IPlainFiles real) => _real = real;

        public bool RefuseEverything { get; set; }

        public bool RefuseReplace { get; set; }

        public bool RefuseNewFiles { get; set; }

        public bool RefuseDelete { get; set; }

        public bool FullVolume { get; set; }

        public bool FullVolumeAtRename { get; set; }

        /// <summary>Every copy fails reading the content, before it makes its file (EIO).</summary>
        public bool ReadError { get; set; }

        public bool VolumesUnknown { get; set; }

        /// <summary>Run where a refused rename is refused: a build cancelled between the rungs.</summary>
        public Action? OnRefusedReplace { get; set; }

        public int Calls { get; private set; }

        public int VolumeQuestions { get; private set; }

        public void CopyFile(string sourcePath, string destinationPath, bool overwrite)
        {
            Ask();
            if (FullVolume)
            {
                File.WriteAllBytes(destinationPath, new byte[10]); // made, then the disk filled
                throw new IOException($"No space left on device : '{destinationPath}'", 28);
            }

            if (ReadError)
            {
                throw new IOException($"Input/output error : '{sourcePath}'", 5);
            }

            if (RefuseNewFiles && !File.Exists(destinationPath))
            {
                throw new UnauthorizedAccessException($"Access to the path '{destinationPath}' is denied (refused by the test).");
            }

            _real.CopyFile(sourcePath, destinationPath, overwrite);
        }

        public void Replace(string temporaryPath, string destinationPath)
        {
            Ask();
            if (FullVolumeAtRename)
            {
                throw new IOException($"No space left on device : '{destinationPath}'", 28);
            }

            if (RefuseReplace)
            {
                OnRefusedReplace?.Invoke();
                throw new IOException("Operation not permitted (refused by the test)", 1);
            }

            _real.Replace(temporaryPath, destinationPath);
        }

        public void DeleteQuietly(string path)
        {
            Ask();
            if (!RefuseDelete || AtomicFile.IsTemporaryName(Path.GetFileName(path)))
            {
                _real.DeleteQuietly(path);
            }
        }

        public bool Exists(string path) => Ask() && _real.Exists(path);

        public long Length(string path) => Ask() ? _real.Length(path) : 0;

        public bool CanCreate(string path) => Ask() && !RefuseNewFiles && _real.CanCreate(path);

        public void ThrowIfUnreadable(string sourcePath)
        {
            Ask();
            _real.ThrowIfUnreadable(sourcePath);
        }

        public void ThrowIfNotRegularFile(string sourcePath)
        {
            Ask();
            _real.ThrowIfNotRegularFile(sourcePath);
        }

        public void MakeOwnerWritable(string path)
        {
            Ask();
            _real.MakeOwnerWritable(path);
        }

        public bool IsRegularFileWithOneName(string path) => Ask() && _real.IsRegularFileWithOneName(path);

        public string TemporaryPathBeside(string destinationPath) => Ask() ? _real.TemporaryPathBeside(destinationPath) : string.Empty;

        public VolumePair VolumesOf(string sourcePath, string destinationPath)
        {
            Ask();
            VolumeQuestions++;
            return VolumesUnknown ? throw new IOException("Input/output error (volumes refused by the test)", 5) : _real.VolumesOf(sourcePath, destinationPath);
        }

        private bool Ask()
        {
            Calls++;
            return RefuseEverything ? throw new InvalidOperationException("the success path must not ask") : true;
        }
    }
}
