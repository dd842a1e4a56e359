using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Xml.Linq;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>A check failed: the message says what differed.</summary>
internal sealed class CheckFailedException(string message) : Exception(message);

/// <summary>A test that cannot run here: the message says why (counted as skipped, never as passed).</summary>
internal sealed class SkippedException(string reason) : Exception(reason);

/// <summary>One named test of the program.</summary>
internal sealed record WindowsTest(string Group, string Name, Action<TestLog> Body)
{
    public string FullName => $"{Group}.{Name}";
}

/// <summary>What a test writes for the person reading the results (kept in the TRX as its output).</summary>
internal sealed class TestLog
{
    private readonly StringBuilder _text = new();

    public void Line(string text)
    {
        lock (_text)
        {
            _text.AppendLine(text);
        }
    }

    public override string ToString()
    {
        lock (_text)
        {
            return _text.ToString();
        }
    }
}

internal static class Check
{
    public static void That(bool condition, string message)
    {
        if (!condition)
        {
            throw new CheckFailedException(message);
        }
    }

    public static void Skip(string reason) => throw new SkippedException(reason);
}

internal sealed record TestResult(WindowsTest Test, string Outcome, string Message, string Output, DateTime Start, TimeSpan Duration);

/// <summary>Runs the tests one after another, prints one line per test and the closing counts, and writes a TRX file.</summary>
internal static class TestRunner
{
    public const string Passed = "Passed";
    public const string Failed = "Failed";
    public const string NotExecuted = "NotExecuted";

    public static List<TestResult> Run(IEnumerable<WindowsTest> tests)
    {
        var results = new List<TestResult>();
        foreach (WindowsTest test in tests)
        {
            var log = new TestLog();
            DateTime start = DateTime.UtcNow;
            var watch = Stopwatch.StartNew();
            string outcome;
            string message = string.Empty;
            try
            {
                test.Body(log);
                outcome = Passed;
            }
            catch (SkippedException e)
            {
                outcome = NotExecuted;
                message = "SKIPPED: " + e.Message;
            }
            catch (CheckFailedException e)
            {
                outcome = Failed;
                message = e.Message;
            }
            catch (Exception e)
            {
                outcome = Failed;
                message = "Unexpected exception: " + e;
            }

            watch.Stop();
            results.Add(new TestResult(test, outcome, message, log.ToString(), start, watch.Elapsed));
            string label = outcome switch { Passed => "passed ", Failed => "FAILED ", _ => "skipped" };
            Console.WriteLine($"  {label} {test.FullName} ({watch.Elapsed.TotalSeconds:0.0} s){(message.Length == 0 ? string.Empty : ": " + FirstLines(message, outcome == Failed ? 60 : 1))}");
        }

        return results;
    }

    public static string ClosingLine(IReadOnlyCollection<TestResult> results)
        => $"{results.Count(r => r.Outcome == Passed)} passed, {results.Count(r => r.Outcome == Failed)} failed, {results.Count(r => r.Outcome == NotExecuted)} skipped";

    private static string FirstLines(string text, int count)
    {
        string[] lines = text.Split('\n');
        return string.Join("\n", lines.Take(count)).TrimEnd() + (lines.Length > count ? $"\n      ... ({lines.Length - count} more lines in the TRX)" : string.Empty);
    }

    /// <summary>A TRX file (the Visual Studio test results format) that build/summarize-test-results.py and CI tools read.</summary>
    public static void WriteTrx(string path, string runName, IReadOnlyList<TestResult> results, DateTime start)
    {
        XNamespace ns = "http://microsoft.com/schemas/VisualStudio/TeamTest/2010";
        const string UnitTestType = "13cdc9d9-ddb5-4fa4-a97d-d965ccfc6d4b";
        const string ListId = "8c84fa94-04c1-424b-9868-57a2d4851a1d";
        string computer = Environment.MachineName;
        var ids = results.Select(r => (Result: r, TestId: Guid.NewGuid().ToString(), ExecutionId: Guid.NewGuid().ToString())).ToList();
        var document = new XDocument(
            new XElement(ns + "TestRun",
                new XAttribute("id", Guid.NewGuid()),
                new XAttribute("name", runName),
                new XElement(ns + "Times", new XAttribute("creation", start.ToString("o")), new XAttribute("start", start.ToString("o")), new XAttribute("finish", DateTime.UtcNow.ToString("o"))),
                new XElement(ns + "Results", ids.Select(x =>
                    new XElement(ns + "UnitTestResult",
                        new XAttribute("executionId", x.ExecutionId),
                        new XAttribute("testId", x.TestId),
                        new XAttribute("testName", x.Result.Test.FullName),
                        new XAttribute("computerName", computer),
                        new XAttribute("duration", x.Result.Duration.ToString("c")),
                        new XAttribute("startTime", x.Result.Start.ToString("o")),
                        new XAttribute("endTime", (x.Result.Start + x.Result.Duration).ToString("o")),
                        new XAttribute("testType", UnitTestType),
                        new XAttribute("outcome", x.Result.Outcome),
                        new XAttribute("testListId", ListId),
                        new XElement(ns + "Output",
                            new XElement(ns + "StdOut", x.Result.Output),
                            x.Result.Message.Length == 0 ? null : new XElement(ns + "ErrorInfo", new XElement(ns + "Message", x.Result.Message)))))),
                new XElement(ns + "TestDefinitions", ids.Select(x =>
                    new XElement(ns + "UnitTest",
                        new XAttribute("name", x.Result.Test.FullName),
                        new XAttribute("storage", "microsoft.build.copyonwrite.windows.parity.exe"),
                        new XAttribute("id", x.TestId),
                        new XElement(ns + "Execution", new XAttribute("id", x.ExecutionId)),
                        new XElement(ns + "TestMethod",
                            new XAttribute("codeBase", "Microsoft.Build.CopyOnWrite.Windows.Parity.exe"),
                            new XAttribute("adapterTypeName", "executor://microsoft.build.copyonwrite.windows.parity/"),
                            new XAttribute("className", "Microsoft.Build.CopyOnWrite.Windows.Parity." + x.Result.Test.Group),
                            new XAttribute("name", x.Result.Test.Name))))),
                new XElement(ns + "TestEntries", ids.Select(x =>
                    new XElement(ns + "TestEntry", new XAttribute("testId", x.TestId), new XAttribute("executionId", x.ExecutionId), new XAttribute("testListId", ListId)))),
                new XElement(ns + "TestLists", new XElement(ns + "TestList", new XAttribute("name", "Results Not in a List"), new XAttribute("id", ListId))),
                new XElement(ns + "ResultSummary",
                    new XAttribute("outcome", results.Any(r => r.Outcome == Failed) ? "Failed" : "Completed"),
                    new XElement(ns + "Counters",
                        new XAttribute("total", results.Count),
                        new XAttribute("executed", results.Count(r => r.Outcome != NotExecuted)),
                        new XAttribute("passed", results.Count(r => r.Outcome == Passed)),
                        new XAttribute("failed", results.Count(r => r.Outcome == Failed)),
                        new XAttribute("notExecuted", results.Count(r => r.Outcome == NotExecuted))))));
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
        document.Save(path);
    }
}
