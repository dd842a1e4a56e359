using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using static Microsoft.Build.CopyOnWrite.TestKit.Parity.CommonDifferences;

namespace Microsoft.Build.CopyOnWrite.TestKit.Parity;

/// <summary>
/// THE list of ways our Copy is meant to differ from MSBuild's, each with its reason, read by both parity suites: the
/// Linux one (tests/Microsoft.Build.CopyOnWrite.Parity.Tests) and the Windows one under Wine or on Windows
/// (tests/Microsoft.Build.CopyOnWrite.Windows.Parity). Every entry is applied as a normalisation before the
/// comparison; any difference not removed by an entry fails the scenario. Entries marked Always apply to every
/// scenario; the others only where a scenario names them (Shows). An entry's In says which suite it holds in.
/// </summary>
public static class IntendedDifferences
{
    public const string SummaryMessages = "summary-and-clone-messages";
    public const string RacyDirectoryMessage = "stock-racy-directory-message";
    public const string FailedCopyKeepsDestination = "failed-copy-keeps-destination";
    public const string StackTraces = "exception-stack-traces";
    public const string AliasedSelfCopyKeepsFile = "aliased-self-copy-keeps-file";
    public const string NoWriteThroughHardLink = "no-write-through-hard-link";
    public const string NoWriteThroughSymlink = "no-write-through-symlink";
    public const string StockLanguageFixedPerProcess = "stock-language-fixed-per-process";
    public const string ReadersSeeWholeFiles = "readers-see-whole-files";
    public const string CancelStopsRetryWait = "cancel-stops-retry-wait";
    public const string HeldDestinationIsRetriedNotOverwritten = "held-destination-retried-not-overwritten";

    public static readonly IReadOnlyList<IntendedDifference> Table = new IntendedDifference[]
    {
        new(SummaryMessages, Always: true,
            "Ours logs one extra line per invocation starting with \"CopyOnWrite:\" (what it cloned, copied, linked and left alone), "
            + "a low-importance \"CopyOnWrite data: v=1 ...\" line with the same counts for the build-wide summary logger, "
            + "one low-importance line for each file copied rather than cloned (\"Copied ... not cloned: <why>\") and, on Windows, one "
            + "low-importance line for a destination written in place under another process's handle. They are extra messages; "
            + "every message of the stock task is still logged with the same text and importance.",
            (stock, ours) => CommonDifferences.DropOurExtraMessages(ours)),

        new(RacyDirectoryMessage, Always: true,
            "Not ours: the stock task's own nondeterminism. When parallel copies go into new folders, every stock worker that "
            + "found its folder missing logs `Creating directory \"...\".`, so a folder is named 1 to N times from run to run (seen "
            + "under Wine: twice for 12 files), and a parent folder is named or not depending on which worker came first; ours names "
            + "each folder once. Compared with repeated identical Creating-directory lines counted once, and a folder's line dropped "
            + "when a folder inside it has one, on both sides.",
            (stock, ours) => CommonDifferences.CountEachCreatedFolderOnce(stock, ours, Path.DirectorySeparatorChar)),

        new(FailedCopyKeepsDestination, Always: false,
            "When a copy fails after the destination existed, the stock task has already deleted the old destination (it deletes "
            + "before copying); ours builds the new file beside it and renames only on success, so the old destination stays. "
            + "Normalised: the named destination may be missing in stock and must be unchanged in ours.",
            (stock, ours) =>
            {
                foreach (string path in ours.IntendedPaths)
                {
                    string? before = Line(ours.Before, path);
                    if (Line(stock.Files, path) is null && before is not null && Line(ours.Files, path) == before)
                    {
                        ours.Files.Remove(before);
                    }
                }
            }),

        new(StackTraces, Always: true,
            "With MSBUILDALWAYSRETRY, MSB3894 embeds the exception's ToString(); its stack-trace lines (\"   at ...\") name each "
            + "implementation's own methods. Compared without those lines: code, exception type, message, inner exceptions, paths and HRESULT stay.",
            (stock, ours) =>
            {
                foreach (Observation side in new[] { stock, ours })
                {
                    for (int i = 0; i < side.Events.Count; i++)
                    {
                        if (side.Events[i].Code == "MSB3894")
                        {
                            side.Events[i] = side.Events[i] with { Text = StackLines!.Replace(side.Events[i].Text ?? string.Empty, string.Empty) };
                        }
                    }
                }
            },
            In: ParitySuite.Linux),

        new(AliasedSelfCopyKeepsFile, Always: false,
            "Source and destination are one file reached by two spellings that are not the same full path (through a symlinked "
            + "folder, or a symlink source onto its target). The stock task deletes the destination first, which deletes the very "
            + "file it then tries to copy: it retries, fails with MSB3027/MSB3021, and the file is lost. Ours writes the copy "
            + "beside the destination and renames it into place, so the file stays and the copy succeeds. Normalised only when "
            + "ours succeeded with the tree exactly as arranged and stock lost the named file: then stock's outcome is not compared.",
            (stock, ours) =>
            {
                bool oursKeptEverything = ours.Success == true && ours.Files.SequenceEqual(ours.Before, StringComparer.Ordinal);
                bool stockLostTheFile = ours.IntendedPaths.All(path => Line(stock.Before, path) is not null && Line(stock.Files, path) is null);
                if (oursKeptEverything && stockLostTheFile)
                {
                    stock.AdoptFrom(ours);
                }
            },
            In: ParitySuite.Linux),

        new(NoWriteThroughHardLink, Always: false,
            "With MSBUILDCOPYWITHOUTDELETE=1 the stock task skips its delete and File.Copy opens the existing destination and "
            + "overwrites it in place: when that destination is a hard link, the other names of the file (e.g. a NuGet cache "
            + "entry) change too (MSBuild issue 8273). Ours always writes a temporary file and renames it over the destination, "
            + "so the other names keep their content; the destination is then a file of its own. Normalised: the link count "
            + "and shared-inode facts of the named paths, and the content of the other names, which must be untouched in ours.",
            (stock, ours) => ForgetLinkFacts(stock, ours, keepOursUntouched: true),
            In: ParitySuite.Linux),

        new(NoWriteThroughSymlink, Always: false,
            "With MSBUILDCOPYWITHOUTDELETE=1 and a destination that is a symbolic link, the stock task writes through the link "
            + "into its target file and leaves the link; ours replaces the link by the copied file and never touches the target. "
            + "Normalised: the named destination's entry (link vs file) and the target's content, which must be untouched in ours.",
            (stock, ours) => ForgetLinkFacts(stock, ours, keepOursUntouched: true),
            In: ParitySuite.Linux),

        new(StockLanguageFixedPerProcess, Always: false,
            "MSBuild's Copy reads the texts of its plain messages (Copying file from..., Creating directory... and the others "
            + "without a code) once per process, at its first construction, and copies several files on threads it keeps for "
            + "the life of the process, which log in the language of the Copy that started them; ours reads each text when it "
            + "logs it, in the language of the build thread that runs it. They differ only in a process whose UI language "
            + "changes between Copy calls (an in-process host that switches languages): the stock task then mixes languages, "
            + "ours does not. LanguageParityTests make the stock task read its texts again when they switch, as an MSBuild "
            + "started in that language reads them, and give it one destination per scenario, so it copies on the calling thread.",
            (stock, ours) => { },
            In: ParitySuite.Linux),

        new(ReadersSeeWholeFiles, Always: false,
            "A program reading the destination while copies land on it sees either the old or the new file in ours (made beside it, "
            + "renamed into place), while the stock task truncates and rewrites the file, so a reader can see a partial file. The "
            + "exception is a reader that shares writing but not deleting (or any reader, on a file system without POSIX renames): "
            + "no rename can replace the file under it, so ours writes it in place as the stock task does, and that reader can see "
            + "a partial file from either. The concurrent-writer tests count partial reads for both tasks and require none from ours "
            + "where a rename can replace the destination.",
            (stock, ours) => { },
            In: ParitySuite.Windows),

        new(CancelStopsRetryWait, Always: false,
            "Cancel() during a retry wait: ours stops waiting at once and fails; MSBuild 17.7's Copy logs no further retry but "
            + "sleeps out the delay it is in before it returns (under Wine 1499 ms of a 1500 ms delay, in each of five runs). Elapsed time is never part of the "
            + "comparison; the scenario cancels once the first retry wait has begun and checks instead that ours returned within half a retry delay of the cancel. Outcome, outputs, codes and files are compared.",
            (stock, ours) => { },
            In: ParitySuite.Windows),

        new(HeldDestinationIsRetriedNotOverwritten, Always: false,
            "A destination another process holds open sharing no writing, where no rename can replace it: without FILE_SHARE_DELETE, "
            + "or on a file system without POSIX renames (FAT32, exFAT, Wine 8). The stock task's delete either fails (no delete "
            + "sharing: it retries, as ours does) or goes through and it creates a new file; ours can neither rename over the file nor "
            + "write into it (the holder refuses writing), so ours retries it as a sharing violation naming the destination (MSB3026) "
            + "and ends with MSB3027 + MSB3021 and the old destination whole if the holder never lets go. A holder that shares writing "
            + "is not in this entry: there ours writes in place, as the stock task does. On Windows 10 1607+ with NTFS or ReFS a holder "
            + "sharing delete is replaced by the POSIX rename, so the difference remains under Wine only. Normalised only when ours "
            + "failed after nothing but such retries and left the old destination whole; the concurrent-writer tests require every "
            + "failure of ours to have used up its retries (MSB3027).",
            RetriedHeldDestination,
            In: ParitySuite.Windows),
    };

    /// <summary>The entries that hold in <paramref name="suite"/>.</summary>
    public static IEnumerable<IntendedDifference> In(ParitySuite suite) => Table.Where(d => d.In.HasFlag(suite));

    /// <summary>Whether <paramref name="suite"/> has an entry named <paramref name="key"/> (a scenario may only name those).</summary>
    public static bool Has(ParitySuite suite, string key) => In(suite).Any(d => d.Key == key);

    /// <summary>Applies, in table order, the entries of <paramref name="suite"/> that are Always or that the scenario names.</summary>
    public static void Apply(ParitySuite suite, ICollection<string> named, Observation stock, Observation ours) => CommonDifferences.Apply(In(suite), named, stock, ours);

    private static readonly Regex StackLines = new("(\r?\n   at [^\r\n]*?)+(?= copying \")|\r?\n   at [^\r\n]*", RegexOptions.None);

    private static readonly Regex LinkFacts = new(" links \\d+| same-file-as \\S+");

    /// <summary>For the scenario's named paths: drops link counts and shared inodes; for paths ours left as arranged, drops the stock line's content too.</summary>
    private static void ForgetLinkFacts(Observation stock, Observation ours, bool keepOursUntouched)
    {
        foreach (string path in ours.IntendedPaths)
        {
            string? oursLine = Line(ours.Files, path);
            string? stockLine = Line(stock.Files, path);
            string? before = Line(ours.Before, path);
            if (keepOursUntouched && before is not null && oursLine is not null && stockLine is not null
                && LinkFacts.Replace(oursLine, string.Empty) == LinkFacts.Replace(before, string.Empty) && oursLine != stockLine
                && !string.Equals(path, ours.IntendedPaths.Last(), StringComparison.Ordinal))
            {
                // A name ours did not touch (and stock wrote through): its content, mode and time must be exactly as
                // arranged in ours (only its link count dropped, as the destination became a file of its own).
                stock.Files[stock.Files.IndexOf(stockLine)] = oursLine;
                continue;
            }

            // The destination itself: a file of its own in ours, a name of the shared file (or the link) in stock.
            if (oursLine is not null && stockLine is not null)
            {
                string oursFacts = LinkFacts.Replace(oursLine, string.Empty);
                string stockFacts = LinkFacts.Replace(stockLine, string.Empty);
                if (stockFacts.Contains(" | symlink -> ", StringComparison.Ordinal))
                {
                    stockFacts = oursFacts; // the link stayed in stock; its target got the content (checked on the target's line)
                }

                ours.Files[ours.Files.IndexOf(oursLine)] = oursFacts;
                stock.Files[stock.Files.IndexOf(stockLine)] = stockFacts;
            }
        }
    }

    /// <summary>
    /// The normaliser of <see cref="HeldDestinationIsRetriedNotOverwritten"/>: where the stock task succeeded and ours
    /// failed only after retrying sharing violations on the destination, with the old destination whole, ours is
    /// compared as the stock task's outcome; anything else (an immediate failure, another error, a changed destination)
    /// stays a difference.
    /// </summary>
    private static void RetriedHeldDestination(Observation stock, Observation ours)
    {
        bool retriedOnlySharingViolations = ours.Success == false
            && ours.Events.Any(e => e.Code == "MSB3027")
            && ours.Events.Where(e => e.Code == "MSB3026").All(e => e.Text.Contains("because it is being used by another process", StringComparison.Ordinal))
            && ours.Events.Where(e => e.Kind is "error" or "warning").All(e => e.Code is "MSB3026" or "MSB3027" or "MSB3021");
        bool destinationsWhole = ours.IntendedPaths.All(path => Line(ours.Files, path) == Line(ours.Before, path));
        if (stock.Success != true || !retriedOnlySharingViolations || !destinationsWhole)
        {
            return;
        }

        ours.Success = stock.Success;
        ours.WroteAtLeastOneFile = stock.WroteAtLeastOneFile;
        ours.DestinationFiles = stock.DestinationFiles;
        ours.CopiedFiles = stock.CopiedFiles;
        ours.Events.Clear();
        ours.Events.AddRange(stock.Events);
        ours.Files = new List<string>(stock.Files);
    }
}
