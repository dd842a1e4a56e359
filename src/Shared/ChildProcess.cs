using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Shared;

/// <summary>
/// A child program and its output (standard output and error, interleaved): <see cref="Run"/> to completion, or
/// <see cref="Start"/> to watch, signal and time out. Disposing kills what is left of its process tree.
/// </summary>
internal sealed partial class ChildProcess : IDisposable
{
    public const int SIGINT = 2;
    public const int SIGKILL = 9;

    private readonly Process _process;
    private readonly StringBuilder _output = new();

    private ChildProcess(ProcessStartInfo start)
    {
        _process = new Process { StartInfo = start };
        _process.OutputDataReceived += (_, e) => Append(e.Data);
        _process.ErrorDataReceived += (_, e) => Append(e.Data);
    }

    public int Id => _process.Id;

    public bool HasExited => _process.HasExited;

    public int ExitCode => _process.ExitCode;

    public string Output
    {
        get
        {
            lock (_output)
            {
                return _output.ToString();
            }
        }
    }

    /// <summary>Runs <paramref name="program"/> to its end.</summary>
    /// <param name="environment">Variables to set for the child; a null value removes one.</param>
    /// <exception cref="TimeoutException">Past <paramref name="timeout"/>: it and its children are killed.</exception>
    public static (int ExitCode, string Output, TimeSpan Elapsed) Run(string program, IEnumerable<string> arguments, string? workingDirectory, IDictionary<string, string?>? environment, TimeSpan timeout)
    {
        using ChildProcess child = new(StartInfo(program, arguments, workingDirectory ?? Environment.CurrentDirectory, environment));
        var clock = Stopwatch.StartNew();
        child.Begin();
        if (!child._process.WaitForExit(timeout))
        {
            child.KillTree();
            throw new TimeoutException($"{program} {string.Join(' ', arguments)} did not finish within {timeout}. Output so far:\n{child.Output}");
        }

        child._process.WaitForExit();
        clock.Stop();
        return (child.ExitCode, child.Output, clock.Elapsed);
    }

    /// <summary>
    /// Starts <paramref name="fileName"/> via `env --default-signal=INT` (coreutils 8.31+; it execs, keeping the PID):
    /// a `cmd &amp;` without job control starts with SIGINT ignored (POSIX), .NET keeps it, and Ctrl-C would be lost.
    /// </summary>
    public static ChildProcess Start(string fileName, IEnumerable<string> arguments, string workingDirectory, IDictionary<string, string?>? environment = null)
    {
        var child = new ChildProcess(StartInfo("env", ["--default-signal=INT", fileName, .. arguments], workingDirectory, environment));
        child.Begin();
        return child;
    }

    /// <summary>Waits for the exit and for the last output line.</summary>
    public bool WaitForExit(TimeSpan timeout)
    {
        if (!_process.WaitForExit((int)timeout.TotalMilliseconds))
        {
            return false;
        }

        _process.WaitForExit();
        return true;
    }

    /// <summary>Sends a signal to the process itself (as a terminal's Ctrl-C or `kill -9` would).</summary>
    public void Signal(int signal)
    {
        if (kill(_process.Id, signal) != 0)
        {
            throw new InvalidOperationException($"kill({_process.Id}, {signal}) failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    /// <summary>
    /// How the process handles <paramref name="signal"/> now, from the kernel's own record (/proc/PID/status):
    /// "ignored", "caught" or "default". (A mask that blocks it, SigBlk, is per thread; another thread still takes it.)
    /// </summary>
    public string Disposition(int signal) => Disposition(_process.Id, signal);

    /// <summary>As <see cref="Disposition(int)"/>, for any process (one this process did not start, such as a grandchild).</summary>
    public static string Disposition(int processId, int signal)
    {
        string[] status = File.ReadAllLines($"/proc/{processId}/status");
        bool Has(string field) => status
            .Where(line => line.StartsWith(field + ":", StringComparison.Ordinal))
            .Select(line => (ulong.Parse(line[(field.Length + 1)..].Trim(), NumberStyles.HexNumber, CultureInfo.InvariantCulture) >> (signal - 1) & 1) == 1)
            .FirstOrDefault();
        return Has("SigIgn") ? "ignored" : Has("SigCgt") ? "caught" : "default";
    }

    /// <summary>SIGKILL to the process and every descendant.</summary>
    public void KillTree() => _process.Kill(entireProcessTree: true);

    public void Dispose()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
                _process.WaitForExit(10_000);
            }
        }
        catch (InvalidOperationException)
        {
            // Never started, or already gone.
        }

        _process.Dispose();
    }

    /// <summary>Polls <paramref name="condition"/> every millisecond or so until it holds or the time is up.</summary>
    public static bool WaitUntil(Func<bool> condition, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            if (clock.Elapsed > timeout)
            {
                return false;
            }

            Thread.Sleep(1);
        }

        return true;
    }

    private static ProcessStartInfo StartInfo(string program, IEnumerable<string> arguments, string workingDirectory, IDictionary<string, string?>? environment)
    {
        var start = new ProcessStartInfo(OnPath(program))
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory,
        };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach ((string name, string? value) in environment ?? new Dictionary<string, string?>())
        {
            start.Environment[name] = value;
        }

        return start;
    }

    /// <summary>
    /// A bare program name found on PATH as a shell finds it: .NET looks in its own process's folder first, so "dotnet"
    /// would be the running one, not the one build/test.sh puts first on PATH. Windows keeps .NET's search (PATHEXT).
    /// </summary>
    private static string OnPath(string program)
    {
        if (OperatingSystem.IsWindows() || program.Contains('/', StringComparison.Ordinal))
        {
            return program;
        }

        const UnixFileMode Executable = UnixFileMode.UserExecute | UnixFileMode.GroupExecute | UnixFileMode.OtherExecute;
        foreach (string folder in (Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
        {
            string candidate = Path.Combine(folder, program);
            if (File.Exists(candidate) && (File.GetUnixFileMode(candidate) & Executable) != 0)
            {
                return candidate;
            }
        }

        return program;
    }

    private void Begin()
    {
        _process.Start();
        _process.StandardInput.Close();
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
    }

    private void Append(string? line)
    {
        if (line is not null)
        {
            lock (_output)
            {
                _output.AppendLine(line);
            }
        }
    }

    [LibraryImport("libc", SetLastError = true)]
    private static partial int kill(int pid, int signal);
}
