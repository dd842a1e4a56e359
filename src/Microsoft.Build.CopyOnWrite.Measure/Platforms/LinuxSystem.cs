using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>The Linux calls the measurement makes: statfs for used space, syncfs (64-bit x64 and arm64 layouts).</summary>
[SupportedOSPlatform("linux")]
internal static unsafe partial class LinuxSystem
{

    private const int ORdonly = 0;
    private const int ODirectory = 0x10000;
    private const int OCloexec = 0x80000;

    public readonly record struct FileSystemStatus(long Type, long Blocks, long FreeBlocks, long FragmentSize);

    public static FileSystemStatus StatFs(string path)
    {
        RequireKnownLayout();

        // struct statfs on 64-bit: f_type, f_bsize, f_blocks, f_bfree, f_bavail, f_files, f_ffree (8 bytes each),
        // f_fsid (8), f_namelen, f_frsize, f_flags, f_spare[4] (8 bytes each): 120 bytes.
        long* buffer = stackalloc long[15];
        if (statfs(path, buffer) != 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            throw new MeasureException($"Cannot read the file system of {path}: statfs failed: {Marshal.GetPInvokeErrorMessage(errno)}.");
        }

        return new FileSystemStatus(buffer[0], buffer[2], buffer[3], buffer[9] > 0 ? buffer[9] : buffer[1]);
    }

    /// <summary>syncfs: writes back everything pending on the file system holding <paramref name="folder"/>.</summary>
    public static void SyncFileSystem(string folder)
    {
        int fd = open(folder, ORdonly | ODirectory | OCloexec, 0);
        if (fd < 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            throw new MeasureException($"Cannot open {folder} to flush its file system: {Marshal.GetPInvokeErrorMessage(errno)}.");
        }

        try
        {
            syncfs(fd);
        }
        finally
        {
            close(fd);
        }
    }

    private static void RequireKnownLayout()
    {
        if (RuntimeInformation.ProcessArchitecture is not (Architecture.X64 or Architecture.Arm64))
        {
            throw new MeasureException($"dotnet-cow-measure reads Linux file systems on x64 and arm64 only, not on {RuntimeInformation.ProcessArchitecture}.");
        }
    }

    [LibraryImport("libc", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int statfs(string path, long* buffer);

    [LibraryImport("libc", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int open(string path, int flags, int mode);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int close(int fd);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int syncfs(int fd);
}
