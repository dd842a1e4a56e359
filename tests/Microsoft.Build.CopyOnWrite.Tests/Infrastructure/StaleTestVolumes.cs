using System;
using System.Diagnostics;
using System.IO;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// What earlier test processes that were killed left behind (their loop volumes still mounted, their scratch
/// folders), removed before this one makes its own: build/sweep-test-volumes.sh, run once at assembly set-up.
/// A process killed with SIGKILL, or stopped by Stryker between two mutants, never reaches its assembly cleanup.
/// </summary>
public static class StaleTestVolumes
{
    /// <summary>Runs the sweep (Linux only; quietly nothing without the script) and returns what it printed.</summary>
    public static string Sweep()
    {
        if (!OperatingSystem.IsLinux() || Script() is not string script)
        {
            return string.Empty;
        }

        var start = new ProcessStartInfo("bash") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add(script);
        using Process process = Process.Start(start)!;
        System.Threading.Tasks.Task<string> errors = process.StandardError.ReadToEndAsync();
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        return output + errors.Result;
    }

    /// <summary>build/sweep-test-volumes.sh of the checkout this test assembly was built in.</summary>
    private static string? Script()
    {
        for (DirectoryInfo? folder = new(AppContext.BaseDirectory); folder is not null; folder = folder.Parent)
        {
            string script = Path.Combine(folder.FullName, "build", "sweep-test-volumes.sh");
            if (File.Exists(script))
            {
                return script;
            }
        }

        return null;
    }
}
