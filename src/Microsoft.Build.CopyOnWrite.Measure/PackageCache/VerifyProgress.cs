using System;
using System.Diagnostics;
using System.IO;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Measure.PackageCache;

/// <summary>
/// A progress line on standard error each second (packages, files, MiB read, rate), rewritten in place and erased at
/// the end; for a terminal only, and from the first second on, so a short run prints nothing.
/// </summary>
internal sealed class VerifyProgress : IDisposable
{
    private readonly TextWriter _terminal;
    private readonly int _packages;
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private readonly Thread _thread;
    private readonly ManualResetEventSlim _done = new();
    private long _packagesDone;
    private long _files;
    private long _bytes;
    private int _lastLength;

    public VerifyProgress(TextWriter terminal, int packages, TimeSpan? every = null)
    {
        _terminal = terminal;
        _packages = packages;
        TimeSpan period = every ?? TimeSpan.FromSeconds(1);

        // A thread of its own: the workers keep the cores busy, and a thread pool timer would wait behind them.
        _thread = new Thread(() =>
        {
            while (!_done.Wait(period))
            {
                Write();
            }
        }) { IsBackground = true, Name = "verify progress" };
        _thread.Start();
    }

    public void FileDone() => Interlocked.Increment(ref _files);

    public void BytesRead(int bytes) => Interlocked.Add(ref _bytes, bytes);

    public void PackageDone() => Interlocked.Increment(ref _packagesDone);

    public void Dispose()
    {
        _done.Set();
        _thread.Join();
        _done.Dispose();
        if (_lastLength > 0)
        {
            _terminal.Write("\r" + new string(' ', _lastLength) + "\r");
            _terminal.Flush();
        }
    }

    private void Write()
    {
        double seconds = Math.Max(_clock.Elapsed.TotalSeconds, 0.001);
        long bytes = Interlocked.Read(ref _bytes);
        string line = string.Create(
            System.Globalization.CultureInfo.InvariantCulture,
            $"verify: {Interlocked.Read(ref _packagesDone):N0} of {_packages:N0} packages, {Interlocked.Read(ref _files):N0} files, {bytes / 1048576.0:N1} MiB read ({bytes / 1048576.0 / seconds:N0} MiB/s)");
        _terminal.Write("\r" + line.PadRight(_lastLength));
        _terminal.Flush();
        _lastLength = line.Length;
    }
}
