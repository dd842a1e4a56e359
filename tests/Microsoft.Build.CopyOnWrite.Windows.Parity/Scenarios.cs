using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>The scenarios both tasks run on Windows file rules; each name is unique and is the test's name.</summary>
internal static class Scenarios
{
    /// <summary>Share modes another program may hold a destination open with (FILE_SHARE_READ always, WRITE and DELETE or not).</summary>
    public static readonly FileShare[] HolderShareModes = { FileShare.Read, FileShare.ReadWrite, FileShare.Read | FileShare.Delete, FileShare.ReadWrite | FileShare.Delete };

    /// <summary>
    /// Why a destination held open with read, write and delete sharing cannot be judged under Wine 8 (docs/windows-under-wine.md):
    /// MSBuild's delete-then-copy writes into the doomed file, which vanishes when the holder closes (Windows frees the
    /// name at once), and FileRenameInfoEx with POSIX semantics fails with error 87 (Windows replaces such a file).
    /// </summary>
    public const string WineLacksPosixDeleteAndRename =
        "Wine 8 has neither POSIX delete nor FileRenameInfoEx (error 87): with a holder sharing read, write and delete, MSBuild's copy "
        + "vanishes when the holder closes and a POSIX rename is refused, unlike Windows. Runs on real Windows (.github/workflows/windows.yml).";

    public static IEnumerable<WindowsScenario> All()
    {
        yield return S("new destination file").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt").Arrange(t => t.Dir("out"));
        yield return S("destination folder that does not exist yet").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out/deeper");
        yield return S("overwritten destination").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt")
            .Arrange(t => t.File("out/a.txt", "old content that is longer than the new one", time: WindowsTree.OtherTime));
        yield return S("read-only destination without OverwriteReadOnlyFiles").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt").FastRetries()
            .Arrange(t => t.File("out/a.txt", "old", FileAttributes.ReadOnly, WindowsTree.OtherTime));
        yield return S("read-only destination with OverwriteReadOnlyFiles").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt").Set("OverwriteReadOnlyFiles", true)
            .Arrange(t => t.File("out/a.txt", "old", FileAttributes.ReadOnly, WindowsTree.OtherTime));
        yield return S("read-only source gives a writable destination").Arrange(t => t.File("src/a.txt", attributes: FileAttributes.ReadOnly)).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("hidden source").Arrange(t => t.File("src/a.txt", attributes: FileAttributes.Hidden)).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("hidden destination overwritten").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt")
            .Arrange(t => t.File("out/a.txt", "old", FileAttributes.Hidden, WindowsTree.OtherTime));
        yield return S("archive and not-indexed source").Arrange(t => t.File("src/a.txt", attributes: FileAttributes.Archive | FileAttributes.NotContentIndexed)).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("hard link asked for a new destination").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        // The stock task keeps a read-only destination, so its link call meets a taken name and says Windows' words for it.
        yield return S("hard link asked over a read-only destination").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt").Set("UseHardlinksIfPossible", true).FastRetries()
            .Arrange(t => t.File("out/a.txt", "old", FileAttributes.ReadOnly, WindowsTree.OtherTime));
        yield return S("hard-linked destination: the other name keeps its content").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt")
            .Arrange(t => t.File("cache/a.txt", "the package cache's copy", time: WindowsTree.OtherTime).HardLink("out/a.txt", "cache/a.txt"));
        yield return S("missing source").Sources("{R}/src/missing.txt").Destinations("{R}/out/a.txt").FastRetries();
        yield return S("missing source among others").WithSource().Sources("{R}/src/a.txt", "{R}/src/missing.txt").Folder("{R}/out").FastRetries();
        yield return S("source is a folder").Arrange(t => t.Dir("src/folder.txt")).Sources("{R}/src/folder.txt").Folder("{R}/out");
        yield return S("destination is a folder").WithSource().Arrange(t => t.Dir("out/a.txt")).Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt");
        yield return S("unchanged file skipped").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt").Set("SkipUnchangedFiles", true)
            .Arrange(t => t.File("out/a.txt", "content of src/a.txt"));
        yield return S("same file twice onto one destination").WithSource().Sources("{R}/src/a.txt", "{R}/src/a.txt").Destinations("{R}/out/a.txt", "{R}/out/a.txt");
        yield return S("many files into one folder").Arrange(t => { for (int i = 0; i < 12; i++) { t.Bytes($"src/f{i}.bin", 1000 + (i * 4099), seed: i); } })
            .Sources(Enumerable.Range(0, 12).Select(i => $"{{R}}/src/f{i}.bin").ToArray()).Folder("{R}/out");
        yield return S("locked source: retries then fails").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt").FastRetries()
            .Arrange(t => t.File("out/a.txt", "old", time: WindowsTree.OtherTime).Hold("src/a.txt", FileAccess.ReadWrite, FileShare.None))
            .Shows(IntendedDifferences.FailedCopyKeepsDestination, "{R}/out/a.txt");
        foreach (FileShare share in HolderShareModes)
        {
            WindowsScenario held = S($"open destination, holder shares {Describe(share)}").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt").FastRetries()
                .Arrange(t => t.File("out/a.txt", "old", time: WindowsTree.OtherTime).Hold("out/a.txt", FileAccess.Read, share))
                .Shows(IntendedDifferences.FailedCopyKeepsDestination, "{R}/out/a.txt");

            // A holder that shares writing is written in place by both tasks (issue 25): no difference may remain there.
            yield return ((share & FileShare.Write) == 0 ? held.Shows(IntendedDifferences.HeldDestinationIsRetriedNotOverwritten) : held)
                .NotUnderWine(share == (FileShare.ReadWrite | FileShare.Delete) ? WineLacksPosixDeleteAndRename : null);
        }

        yield return S("source with a Zone.Identifier stream (the Mark of the Web)").WithSource().Arrange(t => File.WriteAllText(t.At("src/a.txt") + ":Zone.Identifier", "[ZoneTransfer]\r\nZoneId=3\r\n"))
            .Sources("{R}/src/a.txt").Folder("{R}/out").Observe(t => new[] { "{R}/out/a.txt:Zone.Identifier " + StreamText(t.At("out/a.txt")) });
        yield return S("sparse source over 4 GiB").Arrange(t => t.Sparse("src/big.bin", (4L << 30) + 65536)).Sources("{R}/src/big.bin").Folder("{R}/out");
        yield return S("cancelled during a retry wait").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt").Set("Retries", 3).Set("RetryDelayMilliseconds", 1500)
            .Arrange(t => t.Hold("src/a.txt", FileAccess.ReadWrite, FileShare.None)).CancelledDuringTheFirstRetryWait()
            .Shows(IntendedDifferences.CancelStopsRetryWait);
    }

    public static string Describe(FileShare share) => share == FileShare.None ? "nothing" : share.ToString().Replace(", ", "+", StringComparison.Ordinal);

    private static WindowsScenario S(string name) => new(name);

    private static string StreamText(string path)
    {
        try
        {
            return "\"" + File.ReadAllText(path + ":Zone.Identifier").Replace("\r\n", "|", StringComparison.Ordinal) + "\"";
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return "missing (" + e.GetType().Name + ")";
        }
    }

    private static WindowsScenario WithSource(this WindowsScenario scenario) => scenario.Arrange(t => t.File("src/a.txt"));

    /// <summary>One test per scenario: stock and ours on identical trees, compared after the intended differences.</summary>
    public static IEnumerable<WindowsTest> Tests(string scratch, string group = "Parity")
        => All().Select(scenario => new WindowsTest(group, scenario.Name, log =>
        {
            if (scenario.WineCannotShow is string reason && Win32.WineVersion is not null)
            {
                throw new SkippedException(reason);
            }

            (Observation stock, Observation ours) = WindowsParityHarness.Run(scenario, scratch);
            log.Line($"stock ({stock.ElapsedMilliseconds:0} ms):{Environment.NewLine}{stock.Describe()}");
            log.Line($"ours ({ours.ElapsedMilliseconds:0} ms):{Environment.NewLine}{ours.Describe()}");
            string? diff = WindowsParityHarness.Compare(scenario, stock, ours);
            Check.That(diff is null, diff!);
            if (scenario.Intended.Contains(IntendedDifferences.CancelStopsRetryWait))
            {
                int delay = (int)scenario.Parameters["RetryDelayMilliseconds"];
                log.Line($"from Cancel() to Execute's return: stock {stock.CancelToReturnMilliseconds:0} ms, ours {ours.CancelToReturnMilliseconds:0} ms");
                Check.That(stock.CancelToReturnMilliseconds is not null && ours.CancelToReturnMilliseconds is not null,
                    "a task was not cancelled: it logged no MSB3026 (no retry wait began)");
                // Half the delay: a task that slept out the wait it was cancelled in would return a whole delay (less the
                // moment between its warning and the cancel) after it, as the stock task does.
                Check.That(ours.CancelToReturnMilliseconds < delay / 2,
                    $"ours returned {ours.CancelToReturnMilliseconds:0} ms after a cancel during its first retry wait: it did not stop waiting (retry delay {delay} ms)");
            }
        }));
}
