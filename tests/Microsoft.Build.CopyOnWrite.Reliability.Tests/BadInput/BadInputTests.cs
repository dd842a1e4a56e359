using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.BadInput;

/// <summary>
/// Bad input through real project files and real `dotnet msbuild`, with our task and with the stock one:
/// where the stock task copes, ours says exactly what it says (code, kind and text); where the stock task
/// hangs (a FIFO) or fills the disk (/dev/zero), ours refuses at once with MSB3021 and a plain reason.
/// </summary>
[TestClass]
public sealed class BadInputTests
{
    /// <summary>The stock task's outcome for each input it survives; ours must be identical.</summary>
    private static readonly Dictionary<string, string[]> Expected = new()
    {
        ["empty item specs"] = [],
        ["whitespace item specs"] = [],
        ["escaped whitespace source"] = ["error MSB3030"],
        ["source with an empty destination list"] = ["error MSB3023"],
        ["control characters in the destination name"] = [],
        ["NUL in the destination (escaped)"] = ["error MSB3021"],
        ["NUL in the source (escaped)"] = ["error MSB3021"],
        ["wildcard characters"] = ["error MSB3030"],
        ["a file name over 255 bytes"] = ["error MSB3021"],
        ["a destination path over PATH_MAX"] = ["error MSB3021"],
        ["a source path over PATH_MAX"] = ["error MSB3030"],
        ["a destination that is an existing folder"] = ["error MSB3024"],
        ["a DestinationFolder that is a file"] = ["error MSB3021"],
        ["a source that is a folder"] = ["error MSB3025"],
        ["a dangling symlink source"] = ["warning MSB3026", "error MSB3027", "error MSB3021"],
        ["a symlink loop source"] = ["warning MSB3026", "error MSB3027", "error MSB3021"],
        ["a 244-byte destination name of 80 three-byte characters"] = [],
        ["/dev/null"] = [],
        ["a socket"] = ["error MSB3030"],
    };

    /// <summary>Words each message must contain (beyond the code), so a right code with a wrong reason fails.</summary>
    private static readonly Dictionary<string, string> ExpectedText = new()
    {
        ["NUL in the destination (escaped)"] = "Null character in path.",
        ["NUL in the source (escaped)"] = "Null character in path.",
        ["a file name over 255 bytes"] = "is too long, or a component of the specified path is too long.",
        ["a destination path over PATH_MAX"] = "is too long, or a component of the specified path is too long.",
        ["a DestinationFolder that is a file"] = "already exists.",
        ["a dangling symlink source"] = "Could not find file",
        ["a symlink loop source"] = "Too many levels of symbolic links",
    };

    public static IEnumerable<object[]> StockComparableCases
        => from kind in new[] { "ext4", "xfs" }
           from c in BadInputProject.Cases.Where(c => c.StockToo)
           select new object[] { kind, c.Name };

    [TestMethod]
    [DynamicData(nameof(StockComparableCases), DynamicDataDisplayName = nameof(DisplayName))]
    public void Bad_input_gives_exactly_the_stock_tasks_codes_and_messages(string kind, string caseName)
    {
        BadInputProject project = BadInputProject.For(kind);
        Assert.IsTrue(project.Ours.RanOurTask, $"our task did not run:\n{project.Ours}");
        Assert.IsFalse(project.Stock.RanOurTask, $"the stock run used our task:\n{project.Stock}");

        IReadOnlyList<Diagnostic> ours = project.DiagnosticsOf(project.Ours, caseName);
        IReadOnlyList<Diagnostic> stock = project.DiagnosticsOf(project.Stock, caseName);

        CollectionAssert.AreEqual(Expected[caseName], stock.Select(d => $"{d.Kind} {d.Code}").ToArray(), $"the stock task's outcome (premise):\n{string.Join('\n', stock)}");
        CollectionAssert.AreEqual(stock.Select(d => d.ToString()).ToArray(), ours.Select(d => d.ToString()).ToArray(), "ours differs from the stock task");
        if (ExpectedText.TryGetValue(caseName, out string? text))
        {
            Assert.IsTrue(ours.All(d => d.Kind != "error" || d.Code == "MSB3027" || d.Message.Contains(text, StringComparison.Ordinal)), $"expected '{text}' in:\n{string.Join('\n', ours)}");
        }
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void The_inputs_that_succeed_write_the_same_files_as_the_stock_task_and_no_others(string kind)
    {
        BadInputProject project = BadInputProject.For(kind);

        // Both runs wrote into the same folder; a file either wrote would be here. The stock ran second
        // and overwrote the same names, so compare against what both must have produced.
        string[] names = Directory.GetFileSystemEntries(project.Out).Select(Path.GetFileName).OrderBy(n => n, StringComparer.Ordinal).ToArray()!;
        string wide = BadInputProject.WideName + ".dll";
        CollectionAssert.AreEqual(new[] { "canary.txt", "from-null.txt", "tab\tnewline\nbell\a.txt", wide }, names, string.Join(", ", names));
        Assert.IsTrue(TestFiles.SameBytes(project.Source, Path.Combine(project.Out, wide)));
        Assert.AreEqual(0, new FileInfo(Path.Combine(project.Out, "from-null.txt")).Length, "/dev/null copies as an empty file");
        Assert.IsTrue(TestFiles.SameBytes(project.Source, Path.Combine(project.Out, "tab\tnewline\nbell\a.txt")));
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(Path.GetDirectoryName(project.Out)!));
        Assert.IsTrue(project.Ours.Elapsed < TimeSpan.FromSeconds(30), $"our run took {project.Ours.Elapsed}");
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void A_FIFO_source_fails_at_once_with_MSB3021_where_the_stock_task_hangs(string kind)
    {
        BadInputProject project = BadInputProject.For(kind);

        foreach (string caseName in new[] { "a FIFO", "a symlink to a FIFO" })
        {
            IReadOnlyList<Diagnostic> ours = project.DiagnosticsOf(project.Ours, caseName);
            Assert.AreEqual(1, ours.Count, $"{caseName}:\n{string.Join('\n', ours)}");
            Assert.AreEqual("error MSB3021", $"{ours[0].Kind} {ours[0].Code}");
            StringAssert.Contains(ours[0].Message, "is a FIFO (named pipe), not a regular file. The Copy task copies regular files (and /dev/null) only");
        }

        Assert.IsFalse(File.Exists(Path.Combine(project.Out, "from-fifo.txt")));
        BuildRun stock = BadInputProject.StockHazards.Fifo;
        Assert.AreEqual(-1, stock.ExitCode, $"the stock task was expected to hang on a FIFO with no writer (premise):\n{stock}");
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void An_endless_device_source_is_refused_at_once_where_the_stock_task_fills_the_disk(string kind)
    {
        BadInputProject project = BadInputProject.For(kind);

        foreach (string caseName in new[] { "/dev/zero", "/dev/urandom" })
        {
            IReadOnlyList<Diagnostic> ours = project.DiagnosticsOf(project.Ours, caseName);
            Assert.AreEqual(1, ours.Count, $"{caseName}:\n{string.Join('\n', ours)}");
            Assert.AreEqual("error MSB3021", $"{ours[0].Kind} {ours[0].Code}");
            StringAssert.Contains(ours[0].Message, $"The source '{caseName}' is a character device, not a regular file.");
        }

        Assert.AreEqual(0, Directory.GetFileSystemEntries(project.Small).Length, "nothing may be written for a refused device, not even a temporary file");
        StockHazardRuns stock = BadInputProject.StockHazards;
        CollectionAssert.AreEqual(new[] { "warning MSB3026", "error MSB3027", "error MSB3021" }, stock.Zero.Diagnostics.Select(d => $"{d.Kind} {d.Code}").ToArray(), $"the stock task on /dev/zero (premise):\n{stock.Zero}");
        StringAssert.Contains(stock.Zero.Diagnostics.Last().Message, "No space left on device");
        Assert.IsTrue(stock.ZeroBytesLeftBehind > 0, "the stock task leaves a partial file when the disk fills (premise)");
    }

    public static string DisplayName(System.Reflection.MethodInfo method, object[] data) => $"{method.Name} ({data[0]}, {data[1]})";
}
