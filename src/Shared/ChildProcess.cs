using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Shared;

/// <summary>
/// Runs a program and captures everything it printed (standard output and error, interleaved as they came).
/// One implementation, compiled into the measurement tool and the test suites (linked source, no shared assembly).
/// </summary>
internal static class ChildProcess
{
    /// <param name="environment">Variables to set for the child; a null value removes one.</param>
    /// <exception cref="TimeoutException">The program ran longer than <paramref name="timeout"/>; it and its children are killed.</exception>
    public static (int ExitCode, string Output, TimeSpan Elapsed) Run(string program, IEnumerable<string> arguments, string? workingDirectory, IDictionary<string, string?>? environment, TimeSpan timeout)
    {
        var start = new ProcessStartInfo(program)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? Environment.CurrentDirectory,
        };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach ((string name, string? value) in environment ?? new Dictionary<string, string?>())
        {
            start.Environment[name] = value;
        }

        var output = new StringBuilder();
        using var process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, e) => { if (e.Data is not null) { lock (output) { output.AppendLine(e.Data); } } };
        process.ErrorDataReceived += (_, e) => { if (e.Data is not null) { lock (output) { output.AppendLine(e.Data); } } };
        var clock = Stopwatch.StartNew();
        process.Start();
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (!process.WaitForExit(timeout))
        {
            process.Kill(entireProcessTree: true);
            lock (output)
            {
                throw new TimeoutException($"{program} {string.Join(' ', arguments)} did not finish within {timeout}. Output so far:\n{output}");
            }
        }

        process.WaitForExit();
        clock.Stop();
        lock (output)
        {
            return (process.ExitCode, output.ToString(), clock.Elapsed);
        }
    }
}
