using System;
using System.IO;
using System.Runtime.InteropServices;
#if NET
using Microsoft.Win32.SafeHandles;
#endif

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// Linux file identity and file type, read with statx (one layout on every architecture): is a destination
/// the source's own directory entry under another spelling, and is a source something that can be read
/// to its end without blocking. Elsewhere the answers are "no" and "yes", which change nothing.
/// </summary>
internal static unsafe class UnixFiles
{
    private const int AtFdCwd = -100;
    private const int AtSymlinkNoFollow = 0x100;
    private const int AtEmptyPath = 0x1000;
    private const uint StatxBasicStats = 0x7FF;
    private const int OpenReadOnly = 0;
    private const int OpenNonBlocking = 0x800;   // O_NONBLOCK: opening a FIFO with no writer returns at once
    private const int OpenCloseOnExec = 0x80000; // O_CLOEXEC
    private const int GetFlags = 3;              // F_GETFL
    private const int SetFlags = 4;              // F_SETFL

    /// <summary>
    /// True when writing <paramref name="destinationPath"/> would replace the directory entry that
    /// <paramref name="sourcePath"/> reads, that is the source itself: through a symlinked folder, a bind
    /// mount, /proc/self/root or a source symlink that points at the destination. Copying onto it must
    /// do nothing, as for identical paths. A destination that is a symlink or another hard link of the
    /// source is a different entry: replacing it leaves the source alone, as the stock task does.
    /// </summary>
    public static bool AreOneDirectoryEntry(string sourcePath, string destinationPath)
    {
#if NET
        if (!OperatingSystem.IsLinux()
            || !TryStat(sourcePath, followLinks: true, out Status source)
            || !TryStat(destinationPath, followLinks: true, out Status destination)
            || source.Device != destination.Device
            || source.Inode != destination.Inode)
        {
            return false;
        }

        if (!TryStat(destinationPath, followLinks: false, out Status destinationEntry) || destinationEntry.IsSymbolicLink)
        {
            return false;
        }

        if (destination.Links <= 1)
        {
            return true; // one name only, and both paths reach the file: it is that name
        }

        // Hard links: the same entry only when the names match and the folders are one folder.
        string sourceEntry = new FileInfo(sourcePath).ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? sourcePath;
        return Path.GetFileName(sourceEntry) == Path.GetFileName(destinationPath)
            && TryStat(Path.GetDirectoryName(sourceEntry) ?? "/", followLinks: true, out Status sourceFolder)
            && TryStat(Path.GetDirectoryName(destinationPath) ?? "/", followLinks: true, out Status destinationFolder)
            && sourceFolder.Device == destinationFolder.Device
            && sourceFolder.Inode == destinationFolder.Inode;
#else
        return false;
#endif
    }

#if NET
    /// <summary>
    /// Opens a copy source for reading without ever blocking, and only if it is a regular file (or the
    /// null device, which reads as empty, as File.Copy copies it). A FIFO opened for reading blocks until
    /// a writer comes, possibly forever, and a device such as /dev/zero never ends: both are refused
    /// before opening, and again after (O_NONBLOCK), in case the path was swapped in between.
    /// </summary>
    /// <exception cref="NotSupportedException">Not a regular file; retrying will not change that.</exception>
    public static SafeFileHandle OpenSourceForReading(string path)
    {
        if (TryStat(path, followLinks: true, out Status before) && Unsupported(before) is string kind)
        {
            throw NotARegularFile(path, kind);
        }

        int fd = open(path, OpenReadOnly | OpenNonBlocking | OpenCloseOnExec);
        if (fd < 0)
        {
            throw OpenFailed(Marshal.GetLastPInvokeError(), path);
        }

        var handle = new SafeFileHandle((IntPtr)fd, ownsHandle: true);
        Status opened;
        if (!TryStat(fd, out opened))
        {
            int errno = Marshal.GetLastPInvokeError();
            handle.Dispose();
            throw Cloning.UnixErrors.ToException(errno, path);
        }

        if (Unsupported(opened) is string openedKind)
        {
            handle.Dispose();
            throw NotARegularFile(path, openedKind);
        }

        if ((opened.Mode & 0xF000) == 0x4000)
        {
            handle.Dispose();
            throw Cloning.UnixErrors.ToException(21, path); // EISDIR, as reading it would say; the caller's MSB3025 check comes first
        }

        // Regular files ignore O_NONBLOCK, but .NET takes a non-blocking descriptor for an asynchronous one.
        int flags = fcntl(fd, GetFlags, 0);
        if (flags < 0 || fcntl(fd, SetFlags, flags & ~OpenNonBlocking) < 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            handle.Dispose();
            throw Cloning.UnixErrors.ToException(errno, path);
        }

        return handle;
    }

    /// <summary>The exception File.OpenHandle throws for this errno, so retry warnings read as the stock task's do.</summary>
    private static Exception OpenFailed(int errno, string path) => errno switch
    {
        2 when !Directory.Exists(Path.GetDirectoryName(path)) => new DirectoryNotFoundException($"Could not find a part of the path '{path}'."), // ENOENT
        36 => new PathTooLongException($"The path '{path}' is too long, or a component of the specified path is too long."),             // ENAMETOOLONG
        _ => Cloning.UnixErrors.ToException(errno, path),
    };

    private static NotSupportedException NotARegularFile(string path, string kind)
        => new($"The source '{path}' is {kind}, not a regular file. The Copy task copies regular files (and /dev/null) only: reading {kind} may block forever or never end.");

    /// <summary>What kind of file cannot be copied, or null when it can.</summary>
    private static string? Unsupported(in Status status) => (status.Mode & 0xF000) switch
    {
        0x8000 => null,                                                        // regular file
        0x4000 => null,                                                        // a folder: handled apart (MSB3025 in the task)
        0x2000 when status.RdevMajor == 1 && status.RdevMinor == 3 => null,    // /dev/null: empty
        0x1000 => "a FIFO (named pipe)",
        0xC000 => "a socket",
        0x2000 => "a character device",
        0x6000 => "a block device",
        _ => "not a regular file",
    };

    private readonly struct Status
    {
        public uint Mode { get; init; }
        public uint Links { get; init; }
        public ulong Inode { get; init; }
        public ulong Device { get; init; }
        public uint RdevMajor { get; init; }
        public uint RdevMinor { get; init; }

        public bool IsSymbolicLink => (Mode & 0xF000) == 0xA000;
    }

    private static bool TryStat(string path, bool followLinks, out Status status)
        => TryStatx(AtFdCwd, path, followLinks ? 0 : AtSymlinkNoFollow, out status);

    private static bool TryStat(int fd, out Status status) => TryStatx(fd, string.Empty, AtEmptyPath, out status);

    private static bool TryStatx(int dirFd, string path, int flags, out Status status)
    {
        // struct statx: nlink @16, mode @28, ino @32, rdev major/minor @128/@132, dev major/minor @136/@140.
        byte* buffer = stackalloc byte[256];
        if (statx(dirFd, path, flags, StatxBasicStats, buffer) != 0)
        {
            status = default;
            return false;
        }

        status = new Status
        {
            Links = *(uint*)(buffer + 16),
            Mode = *(ushort*)(buffer + 28),
            Inode = *(ulong*)(buffer + 32),
            RdevMajor = *(uint*)(buffer + 128),
            RdevMinor = *(uint*)(buffer + 132),
            Device = ((ulong)*(uint*)(buffer + 136) << 32) | *(uint*)(buffer + 140),
        };
        return true;
    }

    [DllImport("libc", SetLastError = true)]
    private static extern int statx(int dirfd, string path, int flags, uint mask, byte* buffer);

    [DllImport("libc", SetLastError = true)]
    private static extern int open(string path, int flags);

    [DllImport("libc", SetLastError = true)]
    private static extern int fcntl(int fd, int command, int argument);
#endif
}
