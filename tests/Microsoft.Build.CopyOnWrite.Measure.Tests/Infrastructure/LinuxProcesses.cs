using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;

/// <summary>
/// Other processes as the kernel shows them (/proc), and signals sent to them by kill(2) itself: the Ctrl-C tests stop
/// a process at a point they can see, check that it is still there, and only then press Ctrl-C. A `kill` program
/// would take milliseconds to start, longer than some of those points last.
/// </summary>
internal static class LinuxProcesses
{
    public const int SIGCONT = 18;
    public const int SIGSTOP = 19;

    /// <summary>Sends <paramref name="signal"/> to the process (as a terminal's Ctrl-C does); false when it is gone.</summary>
    public static bool Signal(int process, int signal) => kill(process, signal) == 0;

    /// <summary>The children of every thread of <paramref name="process"/>; none once it has ended.</summary>
    public static int[] ChildrenOf(int process)
    {
        var children = new List<int>();
        try
        {
            foreach (string thread in Directory.EnumerateDirectories($"/proc/{process}/task"))
            {
                children.AddRange(Read(Path.Combine(thread, "children")).Split(' ', StringSplitOptions.RemoveEmptyEntries).Select(int.Parse));
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // the process ended while we looked
        }

        return children.ToArray();
    }

    /// <summary>Its arguments joined by spaces; empty once it has ended.</summary>
    public static string CommandLine(int process) => Read($"/proc/{process}/cmdline").Replace('\0', ' ').Trim();

    /// <summary>
    /// Every thread stopped by a signal (state T): the process runs none of its code until SIGCONT. False once it has
    /// ended. (SIGSTOP stops each thread when it next leaves the kernel, so this holds a moment after the signal.)
    /// </summary>
    public static bool IsStopped(int process)
    {
        try
        {
            string[] threads = Directory.GetDirectories($"/proc/{process}/task");
            return threads.Length > 0 && threads.All(thread => State(Read(Path.Combine(thread, "stat"))) == 'T');
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    /// <summary>
    /// The system call <paramref name="thread"/> of <paramref name="process"/> is held in, from the kernel's
    /// /proc/PID/task/TID/syscall: its number, then its six arguments. Null while the thread runs, when it is in no
    /// system call, or once it has ended (the kernel shows a call only for a thread that is stopped or blocked).
    /// </summary>
    public static long[]? SystemCall(int process, int thread)
    {
        string[] fields = Read($"/proc/{process}/task/{thread}/syscall").Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (fields.Length < 7 || !long.TryParse(fields[0], NumberStyles.Integer, CultureInfo.InvariantCulture, out long number) || number < 0)
        {
            return null;
        }

        return fields[1..7].Select(argument => long.Parse(argument.AsSpan(2), NumberStyles.HexNumber, CultureInfo.InvariantCulture)).Prepend(number).ToArray();
    }

    /// <summary>What each descriptor points at ("/folder/#inode (deleted)" for an unnamed file, "pipe:[inode]" for a pipe); none once it has ended.</summary>
    public static IReadOnlyDictionary<int, string> OpenFiles(int process)
    {
        var files = new Dictionary<int, string>();
        try
        {
            foreach (string descriptor in Directory.EnumerateFileSystemEntries($"/proc/{process}/fd"))
            {
                if (new FileInfo(descriptor).LinkTarget is string target)
                {
                    files[int.Parse(Path.GetFileName(descriptor), CultureInfo.InvariantCulture)] = target;
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // the process ended while we looked
        }

        return files;
    }

    /// <summary>The state letter of a /proc stat line: after the command name in parentheses, which may itself hold ") ".</summary>
    private static char State(string stat)
    {
        int end = stat.LastIndexOf(')');
        return end >= 0 && end + 2 < stat.Length ? stat[end + 2] : '?';
    }

    private static string Read(string path)
    {
        try
        {
            return File.ReadAllText(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return string.Empty; // ended, or a thread that ended
        }
    }

    [DllImport("libc")]
    private static extern int kill(int pid, int sig);
}
