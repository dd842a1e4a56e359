using System;
using System.Collections.Generic;
using System.IO;
using Microsoft.Build.CopyOnWrite.Shared;

namespace Microsoft.Build.CopyOnWrite.Measure;

internal sealed record ShellResult(int ExitCode, string Output, TimeSpan Elapsed)
{
    public bool Succeeded => ExitCode == 0;
}

/// <summary>Runs programs (dotnet, mkfs, mount, sync) and captures what they print.</summary>
internal static class Shell
{
    public static ShellResult Run(string program, IEnumerable<string> arguments, string? workingDirectory = null, IDictionary<string, string?>? environment = null, TimeSpan? timeout = null)
    {
        (int exitCode, string output, TimeSpan elapsed) = ChildProcess.Run(program, arguments, workingDirectory, environment, timeout ?? TimeSpan.FromMinutes(60));
        return new ShellResult(exitCode, output, elapsed);
    }

    public static ShellResult Run(string program, params string[] arguments) => Run(program, (IEnumerable<string>)arguments);

    /// <summary>Runs and throws with the output when the program fails.</summary>
    public static ShellResult MustRun(string program, IEnumerable<string> arguments, string? workingDirectory = null, IDictionary<string, string?>? environment = null)
    {
        ShellResult result = Run(program, arguments, workingDirectory, environment);
        if (!result.Succeeded)
        {
            throw new MeasureException($"`{program} {string.Join(' ', arguments)}` failed (exit code {result.ExitCode}) in {workingDirectory ?? Environment.CurrentDirectory}:\n{Tail(result.Output, 60)}");
        }

        return result;
    }

    public static string Tail(string text, int lines)
    {
        string[] all = text.Split('\n');
        return string.Join('\n', all[Math.Max(0, all.Length - lines)..]);
    }
}

/// <summary>A failure the tool explains to its user and stops on.</summary>
internal sealed class MeasureException(string message) : Exception(message);

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
