using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>
/// Several build nodes copying onto one destination at once (4 threads x 25 copies, as issue 13 measured), alone
/// and with a program reading the destination the whole time under each share mode. Ours may not fail more than 3 of
/// the 100 copies more than the stock task in the same run, and where a rename can replace the destination a reader
/// never sees a partial file from ours. The two tasks take turns, a few copies each, so that whatever else loads the
/// machine during the run weighs on both alike.
/// </summary>
internal static class ConcurrentWriters
{
    private const int Writers = 4;
    private const int CopiesPerWriter = 25;
    private const int SourceBytes = 1 << 20;

    /// <summary>Each task's copies run in this many turns (4 writers x 5 copies each), stock and ours alternating.</summary>
    private const int Turns = 5;
    private const int CopiesPerTurn = CopiesPerWriter / Turns;

    /// <summary>Issue 25's bar: at most 3 of the 100 copies more failures than the stock task's in the same run.</summary>
    private const int AllowedExtraFailures = 3;

    /// <summary>null: no reader; else the share mode the reader opens the destination with.</summary>
    private static readonly FileShare?[] Readers = { null, FileShare.Read, FileShare.ReadWrite, FileShare.ReadWrite | FileShare.Delete };

    public static IEnumerable<WindowsTest> Tests(string scratch)
        => Readers.Select(reader => new WindowsTest("ConcurrentWriters", reader is FileShare share ? $"4x25 copies onto one destination, a reader sharing {Scenarios.Describe(share)}" : "4x25 copies onto one destination", log =>
        {
            if (reader == (FileShare.ReadWrite | FileShare.Delete) && Win32.WineVersion is not null)
            {
                throw new SkippedException(Scenarios.WineLacksPosixDeleteAndRename);
            }

            var stock = new Tally();
            var ours = new Tally();
            for (int turn = 0; turn < Turns; turn++)
            {
                // Who goes first alternates too: a turn right after the other task's leaves the disk and caches busier.
                bool stockFirst = turn % 2 == 0;
                Measure(Path.Combine(scratch, "concurrent"), reader, stockFirst ? stock : ours, stockFirst ? StockCopy : OurCopy);
                Measure(Path.Combine(scratch, "concurrent"), reader, stockFirst ? ours : stock, stockFirst ? OurCopy : StockCopy);
            }

            log.Line($"stock: {stock}");
            log.Line($"ours:  {ours}");
            // Issue 25: no failure where the stock task succeeds. Ours may fail a few more copies than the stock task in one
            // run (each node's copy races the others'), and only after using up its retries, never at once.
            Check.That(ours.Failures <= stock.Failures + AllowedExtraFailures,
                $"ours failed {ours.Failures} of {Writers * CopiesPerWriter} copies, the stock task {stock.Failures} (at most {AllowedExtraFailures} more allowed).{Environment.NewLine}stock: {stock}{Environment.NewLine}ours:  {ours}");
            Check.That(ours.Codes.GetValueOrDefault("MSB3027") == ours.Failures,
                $"ours failed {ours.Failures} copies, {ours.Codes.GetValueOrDefault("MSB3027")} of them after using up their retries.{Environment.NewLine}ours:  {ours}");

            // Intended difference ReadersSeeWholeFiles, except where the reader shares writing but no rename can replace the
            // file under it (no delete sharing, or Wine's missing POSIX rename): ours then writes in place, as the stock task does.
            bool writtenInPlace = reader is FileShare held && (held & FileShare.Write) != 0 && ((held & FileShare.Delete) == 0 || Win32.WineVersion is not null);
            if (!writtenInPlace)
            {
                Check.That(ours.PartialReads == 0, $"a reader saw a partial file from ours {ours.PartialReads} times (intended difference {IntendedDifferences.ReadersSeeWholeFiles}).{Environment.NewLine}ours: {ours}");
            }

            Check.That(ours.FinalIsWhole, $"the destination is not one of the sources after ours: {ours}");
        }));

    private static object StockCopy() => TaskDriver.CreateStockCopy();

    private static object OurCopy() => new Copy(engine: null, environment: Environment.GetEnvironmentVariable);

    private sealed class Tally
    {
        public int Failures;
        public int Reads;
        public int PartialReads;
        public int ReadsRefused;
        public bool FinalIsWhole = true; // after every turn
        public readonly ConcurrentDictionary<string, int> Codes = new();

        public override string ToString()
            => $"{Failures} of {Writers * CopiesPerWriter} copies failed; codes logged: {(Codes.IsEmpty ? "none" : string.Join(", ", Codes.OrderBy(c => c.Key).Select(c => $"{c.Key} x{c.Value}")))}; "
               + $"reads {Reads} (partial {PartialReads}, refused {ReadsRefused}); final destination is one of the sources: {FinalIsWhole}";
    }

    /// <summary>One turn: <see cref="Writers"/> writers copy onto one destination <see cref="CopiesPerTurn"/> times each.</summary>
    private static void Measure(string root, FileShare? readerShare, Tally tally, Func<object> newTask)
    {
        WindowsTree.Delete(root);
        Directory.CreateDirectory(root);
        var sources = new List<byte[]>();
        for (int i = 0; i < Writers; i++)
        {
            var data = new byte[SourceBytes];
            new Random(i + 1).NextBytes(data);
            sources.Add(data);
            File.WriteAllBytes(Path.Combine(root, $"source{i}.bin"), data);
        }

        string destination = Path.Combine(root, "out", "destination.bin");
        Directory.CreateDirectory(Path.GetDirectoryName(destination)!);
        File.WriteAllBytes(destination, sources[0]);
        using var done = new CancellationTokenSource();
        // Pool threads, not Threads of their own: see WindowsParityHarness.RunSide.
        Task? reader = readerShare is FileShare share ? Task.Factory.StartNew(() => Read(destination, share, sources, tally, done.Token), TaskCreationOptions.None) : null;
        var writers = Enumerable.Range(0, Writers).Select(i => Task.Run(() =>
        {
            for (int n = 0; n < CopiesPerTurn; n++)
            {
                TaskRunResult result = TaskDriver.Run(newTask(), new Dictionary<string, object?>
                {
                    ["SourceFiles"] = new[] { new ParityItem(Path.Combine(root, $"source{i}.bin")) },
                    ["DestinationFiles"] = new[] { new ParityItem(destination) },
                    ["Retries"] = 10,
                    ["RetryDelayMilliseconds"] = 20,
                });
                if (!result.Success)
                {
                    Interlocked.Increment(ref tally.Failures);
                }

                foreach (ObservedEvent e in result.Events.Where(e => e.Code is not null))
                {
                    tally.Codes.AddOrUpdate(e.Code!, 1, (_, count) => count + 1);
                }
            }
        })).ToArray();
        Task.WaitAll(writers);
        done.Cancel();
        reader?.Wait();
        byte[]? final = File.Exists(destination) ? File.ReadAllBytes(destination) : null;
        tally.FinalIsWhole &= final is not null && sources.Any(s => s.AsSpan().SequenceEqual(final));
        WindowsTree.Delete(root);
    }

    private static void Read(string path, FileShare share, List<byte[]> sources, Tally tally, CancellationToken done)
    {
        var buffer = new byte[SourceBytes + 1];
        while (!done.IsCancellationRequested)
        {
            try
            {
                using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, share, bufferSize: 1);
                int length = stream.ReadAtLeast(buffer, buffer.Length, throwOnEndOfStream: false);
                Interlocked.Increment(ref tally.Reads);
                if (!sources.Any(s => s.AsSpan().SequenceEqual(buffer.AsSpan(0, length))))
                {
                    Interlocked.Increment(ref tally.PartialReads);
                }

                Thread.Sleep(1); // hold it a moment, as a reader would, and let writers in
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                Interlocked.Increment(ref tally.ReadsRefused);
            }
        }
    }
}
