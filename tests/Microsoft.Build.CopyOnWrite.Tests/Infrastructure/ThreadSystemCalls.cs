using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// The system calls this thread makes during an action, as the kernel shows them to strace attached to the thread alone
/// (`strace -p TID` without -f): the test runner's other threads are not seen. The runtime's memory and thread calls
/// (the JIT, the GC) are left out; the action should run once untraced first, so that nothing is loaded on the way.
/// </summary>
public static partial class ThreadSystemCalls
{
    /// <summary>The runtime's own calls, which follow the JIT, the GC and its threads rather than the files: left out of every count.</summary>
    public static readonly IReadOnlySet<string> RuntimeCalls = new HashSet<string>
    {
        "mprotect", "mmap", "munmap", "futex", "sched_yield", "madvise", "rt_sigprocmask", "sched_getaffinity", "brk", "clock_nanosleep",
        "nanosleep", "getpid", "gettid", "tgkill", "rt_sigreturn", "membarrier",
    };

    /// <summary>The calls' names in the order made, e.g. ["statx", "lstat"].</summary>
    public static string[] During(Action action)
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Inconclusive("SKIPPED: counting system calls needs Linux and strace");
        }

        string thread = Path.GetFileName(new DirectoryInfo("/proc/thread-self").LinkTarget!);
        string trace = Path.Combine(TestScratch.NewFolder("thread-trace"), "calls.strace");
        string mark = "/cow-mark-" + Guid.NewGuid().ToString("N")[..8];
        Process strace;
        try
        {
            strace = Process.Start(new ProcessStartInfo("strace", ["-qq", "-s", "256", "-p", thread, "-o", trace]) { RedirectStandardError = true })!;
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            Assert.Inconclusive($"SKIPPED: counting system calls needs strace ({e.Message}); .ci/run installs Debian's strace package");
            throw;
        }

        using (strace)
        {
            WaitUntilTraced(thread, strace);
            File.Exists(mark + "-start");
            action();
            File.Exists(mark + "-end");
            Assert.AreEqual(0, kill(strace.Id, SignalInterrupt), "strace could not be stopped");
            Assert.IsTrue(strace.WaitForExit(10_000), "strace did not detach");
        }

        string[] lines = File.ReadAllLines(trace);
        int start = Array.FindIndex(lines, line => line.Contains(mark + "-start", StringComparison.Ordinal));
        int end = Array.FindIndex(lines, line => line.Contains(mark + "-end", StringComparison.Ordinal));
        Assert.IsTrue(start >= 0 && end > start, "the trace misses its marks:\n" + string.Join("\n", lines));
        return lines[(start + 1)..end]
            .Select(line => line.Split('(')[0].Trim())
            .Where(name => name.Length > 0 && !RuntimeCalls.Contains(name))
            .ToArray();
    }

    private static void WaitUntilTraced(string thread, Process strace)
    {
        var clock = Stopwatch.StartNew();
        while (!File.ReadLines($"/proc/self/task/{thread}/status").Any(line => line.StartsWith("TracerPid:", StringComparison.Ordinal) && line.Split(':')[1].Trim() != "0"))
        {
            if (strace.HasExited)
            {
                Assert.Inconclusive("SKIPPED: strace may not attach to this process here (ptrace): " + strace.StandardError.ReadToEnd().Trim());
            }

            Assert.IsTrue(clock.Elapsed < TimeSpan.FromSeconds(10), "strace did not attach to this thread in 10 s");
            Thread.Sleep(10);
        }

        Thread.Sleep(50); // attached is not yet traced: strace still has to set its options and let the thread go on
    }

    private const int SignalInterrupt = 2;

    [LibraryImport("libc", SetLastError = true)]
    private static partial int kill(int pid, int signal);
}
