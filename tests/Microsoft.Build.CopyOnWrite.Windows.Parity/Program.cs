using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>
/// Usage: Microsoft.Build.CopyOnWrite.Windows.Parity.exe --results FOLDER [--scratch FOLDER] [--filter TEXT] [--list]
///        Microsoft.Build.CopyOnWrite.Windows.Parity.exe --facts      (what this Windows, or Wine, does with the calls the engine needs)
///        Microsoft.Build.CopyOnWrite.Windows.Parity.exe --benchmark --folder DIR [--folder DIR ...] [--rounds N] [--out FILE.md] [--smoke]
///            (time per file of our engine and task beside File.Copy and MSBuild's Copy: Benchmark/BenchmarkRunner.cs)
/// Runs every test, prints one line per test and closes with "N passed, N failed, N skipped"; exits 1 when a
/// test failed or none passed. Writes FOLDER/windows-parity.trx. Files are arranged under --scratch (default: the
/// temp folder), in a folder of this process's own that is deleted at the end.
/// </summary>
internal static class Program
{
    public static int Main(string[] args)
    {
        if (!OperatingSystem.IsWindows())
        {
            Console.Error.WriteLine("This program tests the Windows engine: run it on Windows or under Wine (build/test-windows-under-wine.sh).");
            return 2;
        }

        if (args.Length >= 1 && args[0] == RealWindows.WorkerSwitch)
        {
            return RealWindows.Worker(args.Skip(1).ToArray());
        }

        if (args.Contains(Benchmark.BenchmarkOptions.Switch))
        {
            return Benchmark.BenchmarkRunner.Run(args);
        }

        string scratch = Path.Combine(Option(args, "--scratch") ?? Path.GetTempPath(), $"cow-windows-parity-{Environment.ProcessId}");
        if (args.Contains("--facts"))
        {
            WindowsFacts.Print(scratch);
            return 0;
        }

        // Tests run concurrent work on pool threads (never Threads of their own: see WindowsParityHarness.RunSide);
        // enough of them from the start that a reader and four writers run at once on a 2-core machine.
        System.Threading.ThreadPool.SetMinThreads(16, 16);
        string? results = Option(args, "--results");
        string? filter = Option(args, "--filter");
        DateTime start = DateTime.UtcNow;
        Console.WriteLine($"Windows parity: {RuntimeInformation.OSDescription}{(Win32.WineVersion is string wine ? $" under Wine {wine}" : string.Empty)}, .NET {Environment.Version}, {RuntimeInformation.ProcessArchitecture}");
        Console.WriteLine($"  stock Copy: {TaskDriver.StockAssemblyLocation} ({FileVersionInfo.GetVersionInfo(TaskDriver.StockAssemblyLocation).ProductVersion})");
        Console.WriteLine($"  our Copy:   {typeof(Copy).Assembly.Location}, {(CloneEngines.Current is not null && CloneEngines.SelectionFault is string fault ? "the copy-only engine (" + fault + ")" : "the native engine")} in the fallback ladder");
        Console.WriteLine($"  scratch:    {scratch}");

        var tests = new List<WindowsTest>();
        tests.AddRange(Scenarios.Tests(scratch));
        tests.AddRange(EngineTests.All(scratch));
        tests.AddRange(VolumeTests.All(scratch));
        tests.AddRange(ConcurrentWriters.Tests(scratch));
        tests.AddRange(SelfTestAndFaults.Tests(scratch));
        tests.AddRange(RealWindows.Tests(scratch));
        tests.AddRange(RealWindows.ParityElsewhere(Path.GetFileName(scratch)));
        if (filter is not null)
        {
            tests = tests.Where(t => t.FullName.Contains(filter, StringComparison.OrdinalIgnoreCase)).ToList();
        }

        if (args.Contains("--list"))
        {
            tests.ForEach(t => Console.WriteLine(t.FullName));
            return 0;
        }

        List<TestResult> outcomes;
        try
        {
            outcomes = TestRunner.Run(tests);
        }
        finally
        {
            WindowsTree.Delete(scratch);
        }

        if (results is not null)
        {
            TestRunner.WriteTrx(Path.Combine(results, "windows-parity.trx"), "Microsoft.Build.CopyOnWrite.Windows.Parity", outcomes, start);
        }

        string closing = TestRunner.ClosingLine(outcomes);
        Console.WriteLine();
        Console.WriteLine(closing);
        return outcomes.Any(r => r.Outcome == TestRunner.Failed) || outcomes.All(r => r.Outcome != TestRunner.Passed) ? 1 : 0;
    }

    private static string? Option(string[] args, string name)
    {
        int index = Array.IndexOf(args, name);
        return index >= 0 && index + 1 < args.Length ? args[index + 1] : null;
    }
}
