using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;
using static Microsoft.Build.CopyOnWrite.TestKit.Parity.CommonDifferences;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>
/// THE list of ways our Copy is meant to differ from MSBuild's on Windows, each with its reason. Entries that
/// normalise an observation are applied before the comparison; any difference not removed by an entry fails.
/// Entries marked Always apply to every scenario, the others only where a scenario names them (Shows).
/// The first three are the Windows side of the Linux parity suite's entries of the same names
/// (tests/Microsoft.Build.CopyOnWrite.Parity.Tests/IntendedDifferences.cs).
/// </summary>
internal static class IntendedDifferences
{
    public const string SummaryMessages = "summary-and-clone-messages";
    public const string RacyDirectoryMessage = "stock-racy-directory-message";
    public const string FailedCopyKeepsDestination = "failed-copy-keeps-destination";
    public const string ReadersSeeWholeFiles = "readers-see-whole-files";
    public const string CancelStopsRetryWait = "cancel-stops-retry-wait";
    public const string HeldDestinationIsRetriedNotOverwritten = "held-destination-retried-not-overwritten";

    public static readonly IReadOnlyList<IntendedDifference> Table = new IntendedDifference[]
    {
        new(SummaryMessages, Always: true,
            "Ours logs one extra line per invocation starting with \"CopyOnWrite:\", a low-importance \"CopyOnWrite data: v=1 ...\" "
            + "line for the build-wide summary, and one low-importance line for each file copied rather than cloned (\"Copied ... not cloned: <why>\"). "
            + "Every message of the stock task is still logged with the same text and importance.",
            (stock, ours) => CommonDifferences.DropOurExtraMessages(ours)),

        new(RacyDirectoryMessage, Always: true,
            "Not ours: the stock task's own nondeterminism. When parallel copies go into a new folder, every stock worker that "
            + "found it missing logs `Creating directory \"...\".`, so a folder is named 1 to N times from run to run (seen here: "
            + "twice for 12 files); ours names each folder once. Compared with repeated identical Creating-directory lines counted "
            + "once, and a folder's line dropped when a folder inside it has one, on both sides.",
            (stock, ours) => CommonDifferences.CountEachCreatedFolderOnce(stock, ours, '\\')),

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

        new(ReadersSeeWholeFiles, Always: false,
            "A program reading the destination while copies land on it sees either the old or the new file in ours (made beside it, "
            + "renamed into place), while the stock task truncates and rewrites the file, so a reader can see a partial file. The "
            + "exception is a reader that shares writing but not deleting (or any reader, on a file system without POSIX renames): "
            + "no rename can replace the file under it, so ours writes it in place as the stock task does, and that reader can see "
            + "a partial file from either. The concurrent-writer tests count partial reads for both tasks and require none from ours "
            + "where a rename can replace the destination.",
            (stock, ours) => { }),

        new(CancelStopsRetryWait, Always: false,
            "Cancel() during a retry wait: ours stops waiting at once and fails; MSBuild 17.7's Copy logs no further retry but "
            + "sleeps out the delay it is in before it returns (under Wine 1499 ms of a 1500 ms delay, in each of five runs). Elapsed time is never part of the "
            + "comparison; the scenario cancels once the first retry wait has begun and checks instead that ours returned within half a retry delay of the cancel. Outcome, outputs, codes and files are compared.",
            (stock, ours) => { }),

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
            RetriedHeldDestination),
    };

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

    public static void Apply(WindowsScenario scenario, Observation stock, Observation ours) => CommonDifferences.Apply(Table, scenario.Intended, stock, ours);
}
