using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Shared;

namespace Microsoft.Build.CopyOnWrite.Measure;

internal sealed record ShellResult(int ExitCode, string Output, TimeSpan Elapsed)
{
    public bool Succeeded => ExitCode == 0;
}

/// <summary>Runs programs (dotnet, mkfs, mount) and captures what they print.</summary>
internal static class Shell
{
    public static ShellResult Run(string program, IEnumerable<string> arguments, string? workingDirectory = null, IDictionary<string, string?>? environment = null, TimeSpan? timeout = null)
    {
        (int exitCode, string output, TimeSpan elapsed) = ChildProcess.Run(program, arguments, workingDirectory, environment, timeout ?? TimeSpan.FromMinutes(60));
        return new ShellResult(exitCode, output, elapsed);
    }

    public static ShellResult Run(string program, params string[] arguments) => Run(program, (IEnumerable<string>)arguments);

    /// <summary>Runs, and when the program fails throws one line: the command, its first error line, and where its whole output was saved.</summary>
    public static ShellResult MustRun(string program, IEnumerable<string> arguments, string? workingDirectory = null, IDictionary<string, string?>? environment = null, string? logFile = null)
    {
        ShellResult result = Run(program, arguments, workingDirectory, environment);
        if (!result.Succeeded)
        {
            string where = SaveLog(logFile, $"{program} {string.Join(' ', arguments)}\n(in {workingDirectory ?? Environment.CurrentDirectory})\n\n{result.Output}");
            throw new MeasureException($"`{program} {string.Join(' ', arguments)}` failed (exit code {result.ExitCode}): {FirstError(result.Output)}{where}", Program.MeasurementFailed);
        }

        return result;
    }

    /// <summary>The first line that reads like an error (MSBuild's "error XX1234:", or "error:"), else the last non-empty line.</summary>
    public static string FirstError(string output)
    {
        string[] lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        return lines.FirstOrDefault(l => l.Contains(": error ", StringComparison.Ordinal) || l.StartsWith("error", StringComparison.OrdinalIgnoreCase))
            ?? lines.LastOrDefault()
            ?? "(no output)";
    }

    public static bool IsOnPath(string program)
        => (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Any(folder => File.Exists(Path.Combine(folder, program)));

    private static string SaveLog(string? logFile, string text)
    {
        if (logFile is null)
        {
            return string.Empty;
        }

        try
        {
            Directory.CreateDirectory(Path.GetDirectoryName(logFile)!);
            File.WriteAllText(logFile, text);
            return $" (whole output: {logFile})";
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return string.Empty;
        }
    }
}

/// <summary>A failure the tool explains to its user in one line and stops on.</summary>
internal sealed class MeasureException(string message, int exitCode = Program.BadInput) : Exception(message)
{
    public int ExitCode { get; } = exitCode;
}

internal static class Paths
{
    /// <summary>Copies a source tree, leaving out build outputs and version control folders.</summary>
    public static void CopyTree(string from, string to, Func<string, bool> skipFolder)
    {
        Directory.CreateDirectory(to);
        foreach (string entry in Directory.EnumerateFileSystemEntries(from))
        {
            string name = Path.GetFileName(entry);
            string target = Path.Combine(to, name);
            var info = new FileInfo(entry);
            if (info.LinkTarget is not null)
            {
                File.CreateSymbolicLink(target, info.LinkTarget);
            }
            else if (Directory.Exists(entry))
            {
                if (!skipFolder(name))
                {
                    CopyTree(entry, target, skipFolder);
                }
            }
            else
            {
                File.Copy(entry, target);
                File.SetLastWriteTimeUtc(target, File.GetLastWriteTimeUtc(entry));
            }
        }
    }
}
