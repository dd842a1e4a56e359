using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// The Windows engine's price per file, call by call: every row of the call budget in docs/windows-engine.md is run
/// through <see cref="CountingWindowsFileSystem"/> over the fake volume and must match. A change that adds a call to
/// a path fails here until the table, and the reason beside it, say so.
/// </summary>
[TestClass]
public sealed class WindowsCallBudgetTests
{
    private const string BudgetStart = "<!-- call-budget:start -->";
    private const string BudgetEnd = "<!-- call-budget:end -->";

    private static readonly long Now = new DateTime(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc).ToFileTimeUtc();

    public static IEnumerable<object[]> Rows() => ReadBudget().Select(row => new object[] { row });

    [TestMethod]
    public void The_call_budget_has_a_row_for_every_case_the_issue_names()
    {
        BudgetRow[] rows = ReadBudget().ToArray();
        foreach (string source in new[] { "settled", "just written, on the disk", "just written, in the cache" })
        {
            foreach (string destination in new[] { "absent", "present" })
            {
                foreach (string volume in new[] { "clones", "cannot clone", "clones, and so does CopyFile (24H2)" })
                {
                    Assert.IsTrue(rows.Any(row => row.Source == source && row.Destination == destination && row.Volume == volume), $"no row for {source} / {destination} / {volume}");
                }
            }
        }
    }

    [TestMethod]
    [DynamicData(nameof(Rows))]
    public void Each_row_of_the_call_budget_is_what_the_engine_calls(BudgetRow row)
    {
        var files = new FakeWindowsFileSystem();
        FakeVolume volume = row.Volume.StartsWith("cannot", StringComparison.Ordinal)
            ? files.AddVolume(@"C:\", "NTFS", serial: 0xC0C0, blockCloning: false)
            : files.AddVolume(@"D:\", "ReFS", serial: 0xD0D0, blockCloning: true);
        volume.CopyFileClones = row.Volume.Contains("CopyFile", StringComparison.Ordinal);
        string root = volume.Root;
        files.AddFolder(root + "src");
        files.AddFolder(root + "out");
        var counting = new CountingWindowsFileSystem(files);
        // Inside the fallback ladder, as every engine runs: its success path must add no call to the budget.
        var plain = new FakeWindowsPlainFiles(files);
        var engine = new FallbackLadder(new WindowsCloneEngine(counting, new CloneCapabilityCache(), () => Now), plain);
        if (!row.FirstFileOfItsVolume)
        {
            files.AddFile(root + @"src\warm.dll", Bytes(4096), Now - TimeSpan.FromDays(1).Ticks);
            engine.CloneOrCopy(root + @"src\warm.dll", root + @"out\warm.dll", CancellationToken.None);
        }

        string source = root + @"src\App.dll";
        string destination = root + @"out\App.dll";
        byte[] content = Bytes(20_000);
        long lastWrite = row.Source == "settled" ? Now - TimeSpan.FromDays(1).Ticks : Now - TimeSpan.FromSeconds(2).Ticks;
        if (row.Source == "just written, in the cache")
        {
            files.AddJustWrittenFile(source, content, lastWrite);
        }
        else
        {
            files.AddFile(source, content, lastWrite);
        }

        if (row.Destination != "absent")
        {
            files.AddFile(destination, Bytes(500, seed: 7), lastWrite);
        }

        using WindowsFile? holder = row.Destination == "held open" ? files.OpenAsAnotherProcess(destination, WindowsAccess.Read, WindowsShare.Read | WindowsShare.Write) : null;
        counting.Reset();

        CloneResult result = engine.CloneOrCopy(source, destination, CancellationToken.None);

        CollectionAssert.AreEqual(content, files[destination].Data, "the budget counts a correct copy only");
        Assert.AreEqual(0, plain.Calls, "the fallback ladder asked for nothing: no engine fault, no extra call");
        Assert.AreEqual(row.Result, result.Method == CloneMethod.Cloned ? "cloned" : "copied", row.ToString());
        var expected = new WindowsCallCounts
        {
            Opens = row.Opens,
            Closes = row.Closes,
            Queries = row.Queries,
            Changes = row.Changes,
            Clones = row.Clones,
            DeviceFlushes = row.DeviceFlushes,
            ByteCopies = row.ByteCopies,
        };
        Assert.AreEqual(expected, counting.Counts, $"{row}: the engine now makes {counting.Counts}. Update the call budget in docs/windows-engine.md, and say why.");
        Assert.AreEqual(row.Total, counting.Counts.Total, $"{row}: the total column");
    }

    private static IEnumerable<BudgetRow> ReadBudget()
    {
        string document = File.ReadAllText(Path.Combine(RepositoryLayout.Root, "docs", "windows-engine.md"));
        int start = document.IndexOf(BudgetStart, StringComparison.Ordinal);
        int end = document.IndexOf(BudgetEnd, StringComparison.Ordinal);
        Assert.IsTrue(start >= 0 && end > start, $"docs/windows-engine.md has no {BudgetStart} ... {BudgetEnd} table");
        foreach (string line in document.Substring(start, end - start).Split('\n'))
        {
            string[] cells = line.Trim().Trim('|').Split('|').Select(cell => cell.Trim()).ToArray();
            if (cells.Length < 13 || !int.TryParse(cells[0], out int number))
            {
                continue;
            }

            yield return new BudgetRow(number, cells[1], cells[2], cells[3], cells[4], Int(cells[5]), Int(cells[6]), Int(cells[7]), Int(cells[8]), Int(cells[9]), Int(cells[10]), Int(cells[11]), Int(cells[12]));
        }
    }

    private static int Int(string cell) => int.Parse(cell.Trim('*'), System.Globalization.CultureInfo.InvariantCulture);

    private static byte[] Bytes(int count, int seed = 0) => SeededBytes.Of(count, seed);

    /// <summary>One row of the call budget: the case, what the engine did, and its calls by kind.</summary>
    public sealed record BudgetRow(int Number, string Source, string Destination, string Volume, string Result, int Opens, int Closes, int Queries, int Changes, int Clones, int DeviceFlushes, int ByteCopies, int Total)
    {
        /// <summary>The volume column says "first file" for the row that pays the volume's questions.</summary>
        public bool FirstFileOfItsVolume => Volume.EndsWith(", first file", StringComparison.Ordinal);

        public override string ToString() => $"row {Number} ({Source} / {Destination} / {Volume})";
    }
}
