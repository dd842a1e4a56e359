using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>The one Linux call the measurement makes that .NET has no API for: syncfs. (Used space is DriveInfo's statfs; the volume's identity is LinuxVolumes'.)</summary>
[SupportedOSPlatform("linux")]
internal static partial class LinuxSystem
{
    private const int ORdonly = 0;
    private const int ODirectory = 0x10000;
    private const int OCloexec = 0x80000;

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

    [LibraryImport("libc", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int open(string path, int flags, int mode);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int close(int fd);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int syncfs(int fd);
}
