using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>The Linux calls the measurement makes: statfs, syncfs, FICLONE (64-bit x64 and arm64 layouts).</summary>
[SupportedOSPlatform("linux")]
internal static unsafe partial class LinuxSystem
{
    public const int EBADF = 9;
    public const int EXDEV = 18;
    public const int EINVAL = 22;
    public const int ENOTTY = 25;
    public const int ENOSYS = 38;
    public const int EOPNOTSUPP = 95;

    private const int ORdonly = 0;
    private const int OWronly = 1;
    private const int OCreat = 0x40;
    private const int OExcl = 0x80;
    private const int ODirectory = 0x10000;
    private const int OCloexec = 0x80000;
    private const ulong Ficlone = 0x40049409; // _IOW(0x94, 9, int) on x64 and arm64

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

    /// <summary>Makes a small probe file in <paramref name="folder"/>, clones it with FICLONE, removes both; 0 or the errno.</summary>
    public static int ProbeClone(string folder)
    {
        RequireKnownLayout();
        string source = Path.Combine(folder, $".cow-measure-probe-{Guid.NewGuid():N}");
        string clone = source + ".clone";
        try
        {
            // Real data (not a hole) so there is an extent to share.
            File.WriteAllBytes(source, new byte[65536]);
            using var sourceStream = new FileStream(source, FileMode.Open, FileAccess.Read);
            int destination = open(clone, OWronly | OCreat | OExcl | OCloexec, 0x180);
            if (destination < 0)
            {
                int errno = Marshal.GetLastPInvokeError();
                throw new MeasureException($"Cannot create a probe file in {folder}: {Marshal.GetPInvokeErrorMessage(errno)}.");
            }

            try
            {
                return ioctl(destination, Ficlone, (int)sourceStream.SafeFileHandle.DangerousGetHandle()) == 0 ? 0 : Marshal.GetLastPInvokeError();
            }
            finally
            {
                close(destination);
            }
        }
        finally
        {
            File.Delete(clone);
            File.Delete(source);
        }
    }

    public static string ErrnoName(int errno) => errno switch
    {
        EBADF => "EBADF",
        EXDEV => "EXDEV",
        EINVAL => "EINVAL",
        ENOTTY => "ENOTTY",
        ENOSYS => "ENOSYS",
        EOPNOTSUPP => "EOPNOTSUPP",
        _ => $"errno {errno}",
    };

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

    [LibraryImport("libc", SetLastError = true)]
    private static partial int ioctl(int fd, ulong request, int argument);
}
