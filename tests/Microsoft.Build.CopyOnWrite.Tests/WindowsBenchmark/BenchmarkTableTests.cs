using System;
using System.Collections.Generic;
using Microsoft.Build.CopyOnWrite.Windows.Parity.Benchmark;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.WindowsBenchmark;

/// <summary>The Windows benchmark's Markdown, written from samples whose medians, quartiles and ratios are known.</summary>
[TestClass]
public sealed class BenchmarkTableTests
{
    private const string Folder = @"R:\bench";
    private const string NotServed = "not available on this package source";

    private static BenchmarkReport KnownReport(bool smoke = false) => new(
        new List<(string, string)> { ("OS", "Test OS 10.0 (build 26100.1)"), ("rounds", "3 timed") },
        new[] { new FolderFacts(Folder, "ReFS", "3.14", "yes", "yes (a 1 MiB File.Copy shares the source's clusters)") },
        new[]
        {
            // Given out of order: the table sorts by size, then fresh before settled.
            new BenchmarkRow(Folder, 1 << 20, SourceKind.Settled, new Dictionary<CopyMethod, BenchmarkCell>
            {
                [CopyMethod.FileCopy] = new(new double[] { 2000, 4000, 3000 }),
                [CopyMethod.Engine] = new(new double[] { 10, 30, 20 }),
                [CopyMethod.OurTask] = new(new double[] { 40 }),
                [CopyMethod.StockTask] = BenchmarkCell.Unavailable("failed: IOException: disk full"),
                [CopyMethod.CopyOnWriteLibrary] = BenchmarkCell.Unavailable(NotServed),
            }, "cloned"),
            new BenchmarkRow(Folder, 0, SourceKind.Fresh, new Dictionary<CopyMethod, BenchmarkCell>
            {
                [CopyMethod.FileCopy] = new(new double[] { 100, 120, 110 }),
                [CopyMethod.Engine] = new(new double[] { 50, 60, 56 }),
                [CopyMethod.OurTask] = new(new double[] { 200, 220, 210 }),
                [CopyMethod.StockTask] = new(new double[] { 300 }),
                [CopyMethod.CopyOnWriteLibrary] = BenchmarkCell.Unavailable(NotServed),
            }, "copied: EmptyFile"),
        },
        Rounds: 3,
        Smoke: smoke);

    [TestMethod]
    public void Known_samples_give_this_exact_table_with_medians_quartiles_and_ratios_to_File_Copy()
    {
        string markdown = BenchmarkTable.Write(KnownReport());

        string table = markdown.Substring(markdown.IndexOf("\n## ", StringComparison.Ordinal) + 1);
        Assert.AreEqual(
            "## `R:\\bench` (ReFS)\n" +
            "\n" +
            "| size | source | File.Copy | our engine | our Copy task | MSBuild's Copy task | CopyOnWrite library | our engine did |\n" +
            "|---:|---|---:|---:|---:|---:|---:|---|\n" +
            "| 0 B | fresh | 110 µs [105–115] | 56 µs [53–58] ×0.51 | 210 µs [205–215] ×1.91 | 300 µs [300–300] ×2.73 | not available on this package source | copied: EmptyFile |\n" +
            "| 1 MiB | settled | 3.00 ms [2.50–3.50] | 20 µs [15–25] ×0.007 | 40 µs [40–40] ×0.013 | failed: IOException: disk full | not available on this package source | cloned |\n",
            table);
    }

    [TestMethod]
    public void The_header_states_the_machine_and_each_folders_file_system_version_and_cloning()
    {
        string markdown = BenchmarkTable.Write(KnownReport());

        StringAssert.Contains(markdown, "| OS | Test OS 10.0 (build 26100.1) |\n");
        StringAssert.Contains(markdown, "| folder | file system | version | block refcounting | OS CopyFile clones by itself |\n|---|---|---|---|---|\n"
            + "| `R:\\bench` | ReFS | 3.14 | yes | yes (a 1 MiB File.Copy shares the source's clusters) |\n");
        StringAssert.Contains(markdown, "median [interquartile range] of 3 rounds");
        Assert.IsFalse(markdown.Contains("Smoke run", StringComparison.Ordinal));
    }

    [TestMethod]
    public void A_smoke_run_says_its_times_are_not_worth_quoting()
    {
        StringAssert.Contains(BenchmarkTable.Write(KnownReport(smoke: true)), "**Smoke run**");
    }

    [TestMethod]
    public void Without_File_Copy_samples_a_row_shows_its_times_without_ratios()
    {
        var cell = new BenchmarkCell(new double[] { 95 });

        Assert.AreEqual("95 µs [95–95]", BenchmarkTable.CellText(cell, reference: null));
    }

    [TestMethod]
    public void A_note_on_a_cell_with_times_follows_them_in_brackets()
    {
        var cell = new BenchmarkCell(new double[] { 8.25, 8.5 }, "2 of 3 rounds");

        Assert.AreEqual("8.4 µs [8.3–8.4] (2 of 3 rounds)", BenchmarkTable.CellText(cell, reference: null));
    }

    [TestMethod]
    [DataRow(4.25, "4.3 µs")]
    [DataRow(999.4, "999 µs")]
    [DataRow(1000.0, "1.00 ms")]
    [DataRow(12_345.0, "12.3 ms")]
    [DataRow(123_456.0, "123 ms")]
    [DataRow(9.96, "10 µs")]
    [DataRow(999.6, "1.00 ms")]
    [DataRow(9_995.0, "10.0 ms")]
    [DataRow(99_960.0, "100 ms")]
    public void A_time_reads_in_microseconds_below_a_millisecond_and_in_milliseconds_from_there_with_at_most_three_digits(double microseconds, string expected)
    {
        Assert.AreEqual(expected, BenchmarkTable.Time(microseconds, microseconds));
    }

    [TestMethod]
    [DataRow(0L, "0 B")]
    [DataRow(1024L, "1 KiB")]
    [DataRow(4096L, "4 KiB")]
    [DataRow(65536L, "64 KiB")]
    [DataRow(1048576L, "1 MiB")]
    [DataRow(16777216L, "16 MiB")]
    [DataRow(1500L, "1500 B")]
    public void Sizes_are_named_as_the_issue_names_them(long bytes, string expected)
    {
        Assert.AreEqual(expected, BenchmarkTable.SizeText(bytes));
    }

    [TestMethod]
    public void What_the_engine_did_is_one_word_when_it_always_did_the_same_and_counted_when_it_changed()
    {
        Assert.AreEqual("cloned", BenchmarkTable.Outcomes(new[] { "cloned", "cloned" }));
        Assert.AreEqual("cloned ×2, copied: FileSystemRefused ×1", BenchmarkTable.Outcomes(new[] { "copied: FileSystemRefused", "cloned", "cloned" }));
        Assert.AreEqual("not measured", BenchmarkTable.Outcomes(Array.Empty<string>()));
    }

    [TestMethod]
    public void A_pipe_or_line_break_in_a_folder_or_note_cannot_break_the_table()
    {
        var report = new BenchmarkReport(
            new List<(string, string)> { ("OS", "a|b") },
            new[] { new FolderFacts(@"C:\odd|name", "NTFS", "unknown (error 1\r\nmore)", "no", "no") },
            new[]
            {
                new BenchmarkRow(@"C:\odd|name", 0, SourceKind.Fresh, new Dictionary<CopyMethod, BenchmarkCell>
                {
                    [CopyMethod.FileCopy] = BenchmarkCell.Unavailable("failed: x|y\nz"),
                }, "copied: EmptyFile"),
            },
            Rounds: 1,
            Smoke: false);

        string markdown = BenchmarkTable.Write(report);

        StringAssert.Contains(markdown, "| OS | a\\|b |");
        StringAssert.Contains(markdown, "| `C:\\odd\\|name` | NTFS | unknown (error 1 more) | no | no |");
        StringAssert.Contains(markdown, "| 0 B | fresh | failed: x\\|y z | not measured | not measured | not measured | not measured | copied: EmptyFile |");
        StringAssert.Contains(markdown, "median [interquartile range] of 1 round,");
    }
}
