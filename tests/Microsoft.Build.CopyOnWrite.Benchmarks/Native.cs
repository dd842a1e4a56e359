using System;
using System.Diagnostics;
using System.IO;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Benchmarks;

/// <summary>Housekeeping between measurements (never inside one): flush a file system, give freed blocks back.</summary>
internal static class Native
{
    private const int O_RDONLY = 0;
    private static readonly int O_DIRECTORY = RuntimeInformation.ProcessArchitecture is Architecture.Arm64 or Architecture.Arm ? 0x4000 : 0x10000; // differs by processor
    private const int O_CLOEXEC = 0x80000;

    [DllImport("libc", SetLastError = true)]
    private static extern int syncfs(int fd);

    [DllImport("libc", SetLastError = true)]
    private static extern int open([MarshalAs(UnmanagedType.LPUTF8Str)] string path, int flags);

    [DllImport("libc", SetLastError = true)]
    private static extern int close(int fd);

    /// <summary>
    /// Writes out everything dirty on the file system holding <paramref name="folder"/> (for a loop mount, down
    /// to the image file on the host disk), so that no measurement pays for writeback left by the one before.
    /// </summary>
    public static void SyncFileSystem(string folder)
    {
        int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC); // .NET opens no folders
        if (fd < 0)
        {
            throw new IOException($"open({folder}) failed: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
        }

        try
        {
            if (syncfs(fd) != 0)
            {
                throw new IOException($"syncfs({folder}) failed: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
            }
        }
        finally
        {
            close(fd);
        }
    }

    /// <summary>Punches the freed blocks out of the sparse image (fstrim), so the images stay small on the host disk.</summary>
    public static void Trim(string mountPoint) => Run("fstrim", mountPoint);

    /// <summary>Runs a command and returns its output (stdout then stderr); null when it cannot be started.</summary>
    public static string? Run(string program, params string[] arguments)
    {
        var start = new ProcessStartInfo(program)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        try
        {
            using Process process = Process.Start(start)!;
            System.Threading.Tasks.Task<string> error = process.StandardError.ReadToEndAsync();
            string output = process.StandardOutput.ReadToEnd();
            process.WaitForExit();
            return output + error.Result;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return null;
        }
    }
}
