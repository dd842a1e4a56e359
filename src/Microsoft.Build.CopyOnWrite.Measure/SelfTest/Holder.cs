using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Measure.SelfTest;

/// <summary>How another process holds a destination open: what it asked for, and on Windows which sharing it allows.</summary>
internal sealed record HoldMode(string Name, string Access, string Share);

internal static class HoldModes
{
    /// <summary>
    /// Windows: each share mode FileShare has, for a reader (an editor, an indexer, a test host). Linux and macOS have
    /// no share modes: a reader and a writer.
    /// </summary>
    public static IReadOnlyList<HoldMode> ForThisOS() => RuntimeInformation.IsOSPlatform(OSPlatform.Windows)
        ? [
            new("read, sharing nothing", "Read", "None"),
            new("read, sharing reading", "Read", "Read"),
            new("read, sharing reading and writing", "Read", "ReadWrite"),
            new("read, sharing reading, writing and deleting", "Read", "ReadWrite, Delete"),
        ]
        : [new("open for reading", "Read", "-"), new("open for writing", "ReadWrite", "-")];
}

/// <summary>Another process that holds a file open until disposed.</summary>
internal sealed class Holder : IDisposable
{
    private readonly Process _process;

    private Holder(Process process) => _process = process;

    /// <summary>
    /// Starts the holder; returns once it has the file open. On Unix the shell execs a `cat` of our pipe, so it ends
    /// with <see cref="Dispose"/> or this process, however that ends; it works in / so that it keeps no volume busy.
    /// </summary>
    public static Holder Hold(string path, HoldMode mode)
    {
        var start = RuntimeInformation.IsOSPlatform(OSPlatform.Windows)
            ? new ProcessStartInfo("powershell.exe")
            {
                Arguments = "-NoProfile -NonInteractive -Command \"$f = [IO.File]::Open($env:COW_HOLD, 'Open', '" + mode.Access + "', '" + mode.Share + "'); 'held'; Start-Sleep 120\"",
                WorkingDirectory = Environment.SystemDirectory,
            }
            : new ProcessStartInfo("/bin/sh")
            {
                Arguments = mode.Access == "Read" ? "-c \"exec 3<\\\"$COW_HOLD\\\"; echo held; exec cat >/dev/null\"" : "-c \"exec 3<>\\\"$COW_HOLD\\\"; echo held; exec cat >/dev/null\"",
                WorkingDirectory = "/",
                RedirectStandardInput = true,
            };
        start.UseShellExecute = false;
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.Environment["COW_HOLD"] = path;
        Process process = Process.Start(start) ?? throw new IOException($"could not start a process to hold {path}");
        string? said = process.StandardOutput.ReadLine();
        if (said?.Trim() != "held")
        {
            string error = process.StandardError.ReadToEnd();
            process.Kill();
            throw new IOException($"the process meant to hold {path} ({mode.Name}) did not: {said} {error}".Trim());
        }

        return new Holder(process);
    }

    public void Dispose()
    {
        try
        {
            if (_process.StartInfo.RedirectStandardInput)
            {
                _process.StandardInput.Close();
            }

            _process.Kill();
            _process.WaitForExit(10_000);
        }
        catch (InvalidOperationException)
        {
            // Already gone.
        }

        _process.Dispose();
    }
}
