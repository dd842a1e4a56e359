using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using System;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite.Measure.SelfTest;

/// <summary>
/// Proves on the user's own volumes what our tests prove on ours, with the real engine and Copy task in this process,
/// every output compared byte by byte with its source (SelfTest/README.md). Behind `doctor --selftest`.
/// </summary>
internal sealed class SelfTestRunner
{
    private static readonly long[] SettledSizes = [0, 1, 4095, 4096, 4097, 65_537, 1 << 20, 16 << 20, 64 << 20];
    private static readonly long[] TimedSizes = [4 << 10, 1 << 20, 16 << 20];
    private const int JustWrittenFiles = 24;
    private const int TimedRounds = 9;
    private const int Writers = 4;
    private const int CopiesPerWriter = 25;
    private const int StressRounds = 3;
    private const int StressClones = 8;

    private readonly ICloneEngine _engine;
    private readonly Action<string> _progress;
    private readonly Func<string, HoldMode, IDisposable> _hold;
    private readonly IReadOnlyList<HoldMode> _holdModes;
    private readonly Func<string, string, string?>? _cloneElsewhere;

    /// <summary>
    /// <paramref name="cloneElsewhere"/> copies with our Copy task in another process (null, or what failed), so stress
    /// clones race as build nodes do; without it they run on threads here, which the engine serialises per source.
    /// </summary>
    /// <param name="hold">Holds a file open as another process would; null: a real one (<see cref="Holder"/>).</param>
    /// <param name="holdModes">How to hold a destination; null: <see cref="HoldModes.ForThisOS"/>.</param>
    public SelfTestRunner(ICloneEngine engine, Action<string> progress, Func<string, HoldMode, IDisposable>? hold = null, IReadOnlyList<HoldMode>? holdModes = null, Func<string, string, string?>? cloneElsewhere = null)
    {
        _engine = engine;
        _progress = progress;
        _hold = hold ?? Holder.Hold;
        _holdModes = holdModes ?? HoldModes.ForThisOS();
        _cloneElsewhere = cloneElsewhere;
    }

    /// <summary>The first of the folders on each volume, made if missing (a build writes there anyway).</summary>
    internal static IReadOnlyList<string> OnePerVolume(IEnumerable<string> folders)
    {
        VolumeFactsInspector volumes = VolumeFactsInspector.ForThisProcess();
        var chosen = new List<string>();
        var roots = new HashSet<string>(VolumeCatalog.RootComparer);
        foreach (string folder in folders)
        {
            Directory.CreateDirectory(folder);
            if (roots.Add(volumes.Locate(folder).Root))
            {
                chosen.Add(folder);
            }
        }

        return chosen;
    }

    /// <summary>Runs every check in a folder of its own under each of <paramref name="folders"/> (one per volume), removed after.</summary>
    public SelfTestReport Run(IReadOnlyList<string> folders, CancellationToken cancellationToken)
    {
        var report = new SelfTestReport(MachineFacts.Describe());
        VolumeFactsInspector volumes = VolumeFactsInspector.ForThisProcess();
        foreach (string folder in folders)
        {
            VolumeFacts facts = volumes.Inspect(folder, mayWrite: true);
            var volume = new SelfTestVolume(folder, facts, LinuxMounts.DriverLineOf(facts.Root));
            report.Volumes.Add(volume);
            string work = Path.Combine(folder, ".cow-selftest-" + Guid.NewGuid().ToString("N").Substring(0, 12));
            try
            {
                Directory.CreateDirectory(work);
                Check(volume, cancellationToken, "files written moments before, cloned at once", () => JustWritten(work, volume, cancellationToken));
                Check(volume, cancellationToken, "settled files from 0 B to 64 MiB", () => Settled(work, volume, cancellationToken));
                foreach (HoldMode mode in _holdModes)
                {
                    Check(volume, cancellationToken, $"a destination another process holds ({mode.Name})", () => Held(work, mode));
                }

                Check(volume, cancellationToken, $"{Writers} writers onto one destination with a reader", () => ManyWriters(work, cancellationToken));
                foreach (bool writerStillOpen in new[] { false, true })
                {
                    string how = _cloneElsewhere is null ? "threads" : "processes";
                    Check(volume, cancellationToken, $"zero-fill stress: {StressClones} {how} clone each source {(writerStillOpen ? "while its writer still holds it" : "written moments before")}",
                        () => ZeroFillStress(work, writerStillOpen, StressRounds, StressClones, afterRound: null));
                }

                foreach (long size in TimedSizes)
                {
                    Check(volume, cancellationToken, $"time per file of {SizeText(size)} against File.Copy", () => Timed(work, volume, size));
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                volume.Checks.Add(new SelfTestCheck("could not work in " + folder, Passed: false, e.Message, Mismatch: false));
            }
            finally
            {
                DeleteQuietly(work);
            }
        }

        return report;
    }

    /// <summary>Runs one check, unless cancelled (Ctrl-C in the tool, a cancelled build): then the run stops there and removes its files.</summary>
    private void Check(SelfTestVolume volume, CancellationToken cancellationToken, string name, Func<string> run)
    {
        cancellationToken.ThrowIfCancellationRequested();
        _progress($"  {volume.Facts.Root} ({volume.Facts.FileSystem}): {name}...");
        try
        {
            volume.Checks.Add(new SelfTestCheck(name, Passed: true, run(), Mismatch: false));
        }
        catch (OutputMismatchException e)
        {
            volume.Checks.Add(new SelfTestCheck(name, Passed: false, e.Message, Mismatch: true));
        }
        catch (Exception e) when (e is not (OperationCanceledException or OutOfMemoryException))
        {
            volume.Checks.Add(new SelfTestCheck(name, Passed: false, $"{e.GetType().Name}: {e.Message}", Mismatch: false));
        }
    }

    private string JustWritten(string work, SelfTestVolume volume, CancellationToken cancellationToken)
    {
        var random = new Random(1);
        int cloned = 0;
        for (int i = 0; i < JustWrittenFiles; i++)
        {
            string source = Path.Combine(work, $"fresh-{i}.bin");
            string destination = Path.Combine(work, $"fresh-{i}.copy");
            byte[] content = new byte[(64 << 10) * (1 + random.Next(64))];
            random.NextBytes(content);
            File.WriteAllBytes(source, content); // no flush: the data may still be in the cache, as a build's outputs are
            CloneResult result = _engine.CloneOrCopy(source, destination, cancellationToken);
            cloned += result.Method == CloneMethod.Cloned ? 1 : 0;
            Compare(content, destination);
        }

        volume.Cloned += cloned;
        return $"{JustWrittenFiles} files of 64 KiB to 4 MiB, {cloned} cloned, every one equal to its source";
    }

    private string Settled(string work, SelfTestVolume volume, CancellationToken cancellationToken)
    {
        int cloned = 0;
        foreach (long size in SettledSizes)
        {
            string source = Path.Combine(work, $"settled-{size}.bin");
            byte[] content = WriteSettled(source, size);
            CloneResult result = _engine.CloneOrCopy(source, source + ".copy", cancellationToken);
            cloned += result.Method == CloneMethod.Cloned ? 1 : 0;
            Compare(content, source + ".copy");
            File.Delete(source);
            File.Delete(source + ".copy");
        }

        volume.Cloned += cloned;
        return $"{SettledSizes.Length} sizes ({string.Join(", ", SettledSizes.Select(SizeText))}), {cloned} cloned, every one equal to its source";
    }

    /// <summary>Ours and File.Copy onto a destination held the same way: the same outcome, and an equal file where both succeed.</summary>
    private string Held(string work, HoldMode mode)
    {
        string source = Path.Combine(work, "held.bin");
        byte[] content = WriteSettled(source, 300_000);
        string ours = Path.Combine(work, $"held-ours-{mode.Name.Replace(' ', '-')}.dll");
        string stock = Path.Combine(work, $"held-stock-{mode.Name.Replace(' ', '-')}.dll");
        File.WriteAllBytes(ours, new byte[1000]);
        File.WriteAllBytes(stock, new byte[1000]);
        string? oursFailed;
        string? stockFailed;
        using (_hold(ours, mode))
        using (_hold(stock, mode))
        {
            oursFailed = Attempt(() => _engine.CloneOrCopy(source, ours, CancellationToken.None));
            stockFailed = Attempt(() => File.Copy(source, stock, overwrite: true));
        }

        if (oursFailed is null)
        {
            Compare(content, ours);
        }

        if ((oursFailed is null) != (stockFailed is null))
        {
            throw new InvalidOperationException($"ours {(oursFailed is null ? "succeeded" : "failed: " + oursFailed)}, File.Copy {(stockFailed is null ? "succeeded" : "failed: " + stockFailed)}");
        }

        return oursFailed is null ? "copied, equal to its source, as File.Copy copies it" : $"refused as File.Copy refuses it ({oursFailed})";
    }

    private string ManyWriters(string work, CancellationToken cancellationToken)
    {
        byte[][] sources = Enumerable.Range(0, Writers).Select(i => WriteSettled(Path.Combine(work, $"writer-{i}.bin"), (1 << 20) + (i * 4099))).ToArray();
        string destination = Path.Combine(work, "shared.dll");
        int reads = 0;
        int torn = 0;
        using var stop = new CancellationTokenSource();
        System.Threading.Tasks.Task reader = System.Threading.Tasks.Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                byte[] seen;
                try
                {
                    seen = File.ReadAllBytes(destination);
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                    continue; // not there yet, or held by a writer (Windows): no content seen
                }
                finally
                {
                    // A reader that reopens at once holds the file nearly always, and on Windows (and Wine) a
                    // writer's rename over it runs out of retries; a real reader pauses, so this one does too.
                    Thread.Sleep(1);
                }

                reads++;
                if (!sources.Any(source => SameBytes(source, seen)))
                {
                    Interlocked.Increment(ref torn);
                }
            }
        });
        var failures = new List<string>();
        System.Threading.Tasks.Parallel.For(0, Writers, writer =>
        {
            for (int i = 0; i < CopiesPerWriter; i++)
            {
                if (CopyWithTheTask(Path.Combine(work, $"writer-{writer}.bin"), destination, retries: 10, retryDelayMilliseconds: 10) is string failed)
                {
                    lock (failures)
                    {
                        failures.Add(failed);
                    }
                }
            }
        });
        stop.Cancel();
        reader.Wait(cancellationToken);
        if (torn > 0)
        {
            throw new OutputMismatchException($"{torn} of {reads} reads of {destination} saw a file equal to no source: a partial or mixed destination");
        }

        if (failures.Count > 0)
        {
            throw new InvalidOperationException($"{failures.Count} of {Writers * CopiesPerWriter} copies failed, e.g. {failures[0]}");
        }

        byte[] last = File.ReadAllBytes(destination);
        if (!sources.Any(source => SameBytes(source, last)))
        {
            throw new OutputMismatchException($"{destination} ended equal to no source");
        }

        return $"{Writers * CopiesPerWriter} copies by the Copy task, none failed; {reads} reads, each saw one whole source";
    }

    /// <summary>
    /// The worst failure a clone engine has shown (CopyOnWrite#12, pnpm#7186, git-lfs#6312): a file written a moment
    /// ago and cloned by several nodes at once came out as zeros of the right size; each round re-creates that.
    /// </summary>
    /// <param name="afterRound">Further checks of a round's source and copies, before they are removed.</param>
    internal string ZeroFillStress(string work, bool writerStillOpen, int rounds, int clones, Action<string, IReadOnlyList<string>>? afterRound)
    {
        var random = new Random(20240613);
        for (int round = 0; round < rounds; round++)
        {
            string folder = Path.Combine(work, $"stress-{(writerStillOpen ? "open" : "closed")}-{round}");
            Directory.CreateDirectory(folder);
            byte[] data = new byte[random.Next(64 << 10, 8 << 20)];
            random.NextBytes(data);
            string source = Path.Combine(folder, "source.dll");
            var writer = new FileStream(source, FileMode.CreateNew, FileAccess.Write, FileShare.Read, bufferSize: 4096);
            for (int offset = 0; offset < data.Length; offset += 16384)
            {
                writer.Write(data, offset, Math.Min(16384, data.Length - offset)); // buffered writes, never flushed to the disk
            }

            // Every byte handed to the OS (its cache, not the disk): the writer's own buffer would otherwise still hold the
            // tail, and a copy made now would rightly end where the file then ended.
            writer.Flush(flushToDisk: false);
            if (!writerStillOpen)
            {
                writer.Dispose();
            }

            string[] copies = Enumerable.Range(0, clones).Select(i => Path.Combine(folder, $"clone{i}.dll")).ToArray();
            System.Threading.Tasks.Task<string?>[] running = copies.Select(copy => System.Threading.Tasks.Task.Run(() => CloneOnce(source, copy))).ToArray();
            if (writerStillOpen)
            {
                Thread.Sleep(250);
                writer.Dispose();
            }

            System.Threading.Tasks.Task.WaitAll(running);
            for (int i = 0; i < clones; i++)
            {
                if (running[i].Result is string failed)
                {
                    throw new InvalidOperationException($"round {round}, copy {i} of a {data.Length}-byte source failed: {failed}");
                }

                Compare(data, copies[i]);
            }

            afterRound?.Invoke(source, copies);
            Directory.Delete(folder, recursive: true);
        }

        return $"{rounds} rounds of {clones} copies at once of a source of 64 KiB to 8 MiB, every copy equal to its source";
    }

    private string? CloneOnce(string source, string destination)
    {
        if (_cloneElsewhere is not null)
        {
            return _cloneElsewhere(source, destination);
        }

        // The Copy task, as a build node copies: a source its writer still holds is retried until it lets go (on
        // Windows the writer's sharing refuses a reader that does not share writing), as the real-Windows workers do.
        return CopyWithTheTask(source, destination, retries: 20, retryDelayMilliseconds: 50);
    }

    /// <summary>One copy by the Copy task with this runner's engine; null, or the first error it logged.</summary>
    private string? CopyWithTheTask(string source, string destination, int retries, int retryDelayMilliseconds)
    {
        var log = new SelfTestBuildEngine();
        // The task's defaults, whatever MSBUILD* switches this process has (and no read of the process's environment,
        // which a task of a multi-threaded build may not make).
        var copy = new Copy(_engine, _ => null)
        {
            BuildEngine = log,
            SourceFiles = [new TaskItem(source)],
            DestinationFiles = [new TaskItem(destination)],
            Retries = retries,
            RetryDelayMilliseconds = retryDelayMilliseconds,
        };
        return copy.Execute() ? null : log.FirstError ?? "the Copy task failed without an error";
    }

    /// <summary>
    /// Ours against File.Copy on one settled source: an untimed round of each first (loading, JIT), then rounds in
    /// alternating order, so neither always runs on a cache the other warmed; where ours is slower, the line says why.
    /// </summary>
    private string Timed(string work, SelfTestVolume volume, long size)
    {
        string source = Path.Combine(work, $"timed-{size}.bin");
        byte[] content = WriteSettled(source, size);
        var ours = new List<double>();
        var stock = new List<double>();
        for (int round = -1; round < TimedRounds; round++)
        {
            string mine = Path.Combine(work, $"timed-ours-{round}.bin");
            string theirs = Path.Combine(work, $"timed-stock-{round}.bin");
            double oursMicroseconds, stockMicroseconds;
            if (round % 2 == 0)
            {
                oursMicroseconds = Microseconds(() => _engine.CloneOrCopy(source, mine, CancellationToken.None));
                stockMicroseconds = Microseconds(() => File.Copy(source, theirs));
            }
            else
            {
                stockMicroseconds = Microseconds(() => File.Copy(source, theirs));
                oursMicroseconds = Microseconds(() => _engine.CloneOrCopy(source, mine, CancellationToken.None));
            }

            if (round >= 0)
            {
                ours.Add(oursMicroseconds);
                stock.Add(stockMicroseconds);
            }

            Compare(content, mine);
            File.Delete(mine);
            File.Delete(theirs);
        }

        var timing = new SelfTestTiming(size, Spread.Of(ours), Spread.Of(stock));
        volume.Timings.Add(timing);
        string slower = timing.Ours.Median <= timing.Stock.Max ? string.Empty
            : volume.Facts.StockCopyClones == true
                ? "; slower beyond the noise: File.Copy clones here too, and ours also writes each file beside its destination and renames it over (so that a crash never leaves a partial file)"
                : "; slower beyond the noise: ours also writes each file beside its destination and renames it over (so that a crash never leaves a partial file)";
        return $"ours {timing.Ours}, File.Copy {timing.Stock} (µs, median [min-max] of {TimedRounds}, alternating){slower}";
    }

    private static double Microseconds(Action act)
    {
        var clock = Stopwatch.StartNew();
        act();
        return clock.Elapsed.TotalMilliseconds * 1000;
    }

    private static byte[] WriteSettled(string path, long size)
    {
        byte[] content = new byte[size];
        new Random((int)size).NextBytes(content);
        using (var stream = new FileStream(path, FileMode.Create, FileAccess.Write))
        {
            stream.Write(content, 0, content.Length);
            stream.Flush(flushToDisk: true); // on the disk, not only in the cache
        }

        File.SetLastWriteTimeUtc(path, DateTime.UtcNow.AddMinutes(-10));
        return content;
    }

    /// <summary>Throws <see cref="OutputMismatchException"/> naming the first differing byte.</summary>
    internal static void Compare(byte[] expected, string output)
    {
        byte[] actual = File.ReadAllBytes(output);
        int length = Math.Min(expected.Length, actual.Length);
        int first = 0;
        while (first < length && expected[first] == actual[first])
        {
            first++;
        }

        if (first < length || expected.Length != actual.Length)
        {
            throw new OutputMismatchException($"{output} differs from its source at byte {first} ({actual.Length} bytes, the source {expected.Length})");
        }
    }

    private static bool SameBytes(byte[] first, byte[] second)
    {
        if (first.Length != second.Length)
        {
            return false;
        }

        for (int i = 0; i < first.Length; i++)
        {
            if (first[i] != second[i])
            {
                return false;
            }
        }

        return true;
    }

    private static string? Attempt(Action action)
    {
        try
        {
            action();
            return null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return e.Message;
        }
    }

    private static void DeleteQuietly(string folder)
    {
        try
        {
            if (Directory.Exists(folder))
            {
                Directory.Delete(folder, recursive: true);
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Left behind: the report's folder line names where.
        }
    }

    internal static string SizeText(long size) => size >= 1 << 20 ? $"{size >> 20} MiB" : size >= 1 << 10 && size % 1024 == 0 ? $"{size >> 10} KiB" : $"{size} B";
}

/// <summary>An output that differs from its source: the one failure that gets an exit code of its own.</summary>
internal sealed class OutputMismatchException : Exception
{
    public OutputMismatchException(string message)
        : base(message)
    {
    }
}
