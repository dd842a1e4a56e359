using System;
using System.Collections.Generic;
using Microsoft.Build.CopyOnWrite.Shared;

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
        (int exitCode, string output, _) = ChildProcess.Run(fileName, arguments, workingDirectory, environment, timeout ?? TimeSpan.FromMinutes(5));
        return new ProcessResult(exitCode, output);
    }

    public static ProcessResult Run(string fileName, params string[] arguments) => Run(fileName, (IEnumerable<string>)arguments);
}
