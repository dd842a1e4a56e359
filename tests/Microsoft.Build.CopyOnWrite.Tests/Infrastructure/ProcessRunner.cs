using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

public sealed record ProcessResult(int ExitCode, string Output)
{
    public bool Succeeded => ExitCode == 0;
}

/// <summary>Runs a real program (dotnet, mkfs, mount, filefrag) and captures everything it printed.</summary>
public static class ProcessRunner
{
    public static ProcessResult Run(string fileName, IEnumerable<string> arguments, string? workingDirectory = null, IDictionary<string, string?>? environment = null, TimeSpan? timeout = null)
    {
        var start = new ProcessStartInfo(fileName)
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

        if (environment is not null)
        {
            foreach (KeyValuePair<string, string?> variable in environment)
            {
                start.Environment[variable.Key] = variable.Value;
            }
        }

        var output = new StringBuilder();
        using var process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, e) => { if (e.Data is not null) { lock (output) { output.AppendLine(e.Data); } } };
        process.ErrorDataReceived += (_, e) => { if (e.Data is not null) { lock (output) { output.AppendLine(e.Data); } } };
        process.Start();
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        TimeSpan limit = timeout ?? TimeSpan.FromMinutes(5);
        if (!process.WaitForExit((int)limit.TotalMilliseconds))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{fileName} {string.Join(' ', arguments)} did not finish within {limit}. Output so far:\n{output}");
        }

        process.WaitForExit();
        lock (output)
        {
            return new ProcessResult(process.ExitCode, output.ToString());
        }
    }

    public static ProcessResult Run(string fileName, params string[] arguments) => Run(fileName, (IEnumerable<string>)arguments);
}
