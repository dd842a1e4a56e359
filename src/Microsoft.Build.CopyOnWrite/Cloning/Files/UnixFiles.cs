using System;
using System.IO;
using System.Runtime.InteropServices;
#if NET
using Microsoft.Win32.SafeHandles;
#endif

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>Linux file identity and type probes; elsewhere their answers ("no", "yes") change nothing.</summary>
internal static class UnixFiles
{
    /// <summary>
    /// True when the destination is the source's own entry reached another way (a symlinked folder, a bind mount, a
    /// source symlink): copying onto it must do nothing. A symlink or another hard link there is a different entry.
    /// </summary>
    public static bool AreOneDirectoryEntry(string sourcePath, string destinationPath)
        => AreOneDirectoryEntry(sourcePath, destinationPath, EntryKind.Unknown, default, out _);

    /// <summary>
    /// <see cref="AreOneDirectoryEntry(string, string)"/>, reusing a no-follow probe: a regular file there is no link,
    /// so it is not asked again. <paramref name="source"/>: what the source proved to be, RegularFile or Unknown.
    /// </summary>
    public static bool AreOneDirectoryEntry(string sourcePath, string destinationPath, EntryKind destinationEntryKind, in EntryIdentity destinationEntry, out EntryKind source)
    {
        source = EntryKind.Unknown;
#if NET
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        bool destinationIsItsEntry = destinationEntryKind == EntryKind.RegularFile;
        LinuxNative.FileStatus destination = default;
        if (!destinationIsItsEntry && !LinuxNative.TryStat(destinationPath, followLinks: true, out destination))
        {
            return false;
        }

        if (!LinuxNative.TryStat(sourcePath, followLinks: true, out LinuxNative.FileStatus sourceStatus))
        {
            return false;
        }

        source = sourceStatus.IsRegularFile ? EntryKind.RegularFile : EntryKind.Unknown;
        ulong destinationDevice = destinationIsItsEntry ? destinationEntry.Device : destination.Device;
        ulong destinationInode = destinationIsItsEntry ? destinationEntry.Inode : destination.Inode;
        uint destinationLinks = destinationIsItsEntry ? destinationEntry.Links : destination.Links;
        if (sourceStatus.Device != destinationDevice || sourceStatus.Inode != destinationInode)
        {
            return false;
        }

        if (!destinationIsItsEntry
            && (!LinuxNative.TryStat(destinationPath, followLinks: false, out LinuxNative.FileStatus destinationLinkOrFile) || destinationLinkOrFile.IsSymbolicLink))
        {
            return false;
        }

        if (destinationLinks <= 1)
        {
            return true; // one name only, and both paths reach the file: it is that name
        }

        // Hard links: the same entry only when the names match and the folders are one folder.
        string sourceEntry = new FileInfo(sourcePath).ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? sourcePath;
        return Path.GetFileName(sourceEntry) == Path.GetFileName(destinationPath)
            && LinuxNative.TryStat(Path.GetDirectoryName(sourceEntry) ?? "/", followLinks: true, out LinuxNative.FileStatus sourceFolder)
            && LinuxNative.TryStat(Path.GetDirectoryName(destinationPath) ?? "/", followLinks: true, out LinuxNative.FileStatus destinationFolder)
            && sourceFolder.Device == destinationFolder.Device
            && sourceFolder.Inode == destinationFolder.Inode;
#else
        return false;
#endif
    }

    /// <summary>
    /// One stat's answer where it settles the task's checks: nothing at the path (ENOENT) or a regular file. Otherwise,
    /// and off Linux, <see cref="EntryKind.Unknown"/>: the caller asks .NET, as the stock task does.
    /// </summary>
    public static EntryKind Probe(string path, bool followLinks) => Probe(path, followLinks, out _);

    /// <summary><see cref="Probe(string, bool)"/>, and which file it found (zeros where it found none or off Linux).</summary>
    public static EntryKind Probe(string path, bool followLinks, out EntryIdentity identity)
    {
        identity = default;
#if NET
        if (!OperatingSystem.IsLinux())
        {
            return EntryKind.Unknown;
        }

        if (LinuxNative.TryStat(path, followLinks, out LinuxNative.FileStatus status))
        {
            identity = new EntryIdentity(status.Device, status.Inode, status.Links);
            return status.IsRegularFile ? EntryKind.RegularFile : EntryKind.Unknown;
        }

        const int NoSuchEntry = 2; // ENOENT; ENOTDIR and the rest go the long way, which reports them as .NET does
        return Marshal.GetLastPInvokeError() == NoSuchEntry ? EntryKind.Missing : EntryKind.Unknown;
#else
        return EntryKind.Unknown;
#endif
    }

#if NET
    /// <summary>
    /// Opens a source only if it is a regular file (or /dev/null, empty as in File.Copy), with O_NONBLOCK: opening a
    /// FIFO blocks until a writer comes, maybe forever, and /dev/zero never ends. Returns what statx said of it.
    /// </summary>
    /// <exception cref="NotSupportedException">Not a regular file; retrying will not change that.</exception>
    public static SafeFileHandle OpenSourceForReading(string path, out LinuxNative.FileStatus status)
    {
        int fd = LinuxNative.Open(path, LinuxNative.OpenReadOnly | LinuxNative.OpenNonBlocking | LinuxNative.OpenCloseOnExec);
        if (fd < 0)
        {
            throw OpenFailed(Marshal.GetLastPInvokeError(), path);
        }

        var handle = new SafeFileHandle((IntPtr)fd, ownsHandle: true);
        if (!LinuxNative.TryStat(fd, out status))
        {
            int errno = Marshal.GetLastPInvokeError();
            handle.Dispose();
            throw UnixErrors.ToException(errno, path);
        }

        if (Unsupported(status) is string kind)
        {
            handle.Dispose();
            throw NotARegularFile(path, kind);
        }

        if (status.IsDirectory)
        {
            handle.Dispose();
            throw UnixErrors.ToException(21, path); // EISDIR, as reading it would say; the caller's MSB3025 check comes first
        }

        return handle;
    }

    /// <summary>A new file for writing only, failing if the name exists, with the exceptions File.OpenHandle would give.</summary>
    /// <remarks>Not File.OpenHandle: that adds an fstat and an flock per file, which a build of many small files pays for.</remarks>
    public static SafeFileHandle CreateNew(string path)
        => TryCreateNew(path, out int errno) ?? throw OpenFailed(errno, path);

    /// <summary><see cref="CreateNew"/>, or null and the errno (EEXIST when the name is taken, even by a link).</summary>
    public static SafeFileHandle? TryCreateNew(string path, out int errno)
    {
        const uint OwnerReadWrite = 0x180; // the final mode is set once the content is in
        int fd = LinuxNative.Open(path, LinuxNative.OpenWriteOnly | LinuxNative.OpenCreate | LinuxNative.OpenExclusive | LinuxNative.OpenCloseOnExec, OwnerReadWrite);
        errno = fd >= 0 ? 0 : Marshal.GetLastPInvokeError();
        return fd >= 0 ? new SafeFileHandle((IntPtr)fd, ownsHandle: true) : null;
    }

    /// <summary>Clears O_NONBLOCK for a source that said EAGAIN: read blocking, as File.Copy reads it.</summary>
    public static void MakeBlocking(SafeFileHandle handle, string pathForErrors)
    {
        const int GetFlags = 3; // F_GETFL
        const int SetFlags = 4; // F_SETFL
        int fd = (int)handle.DangerousGetHandle();
        int flags = LinuxNative.fcntl(fd, GetFlags, 0);
        if (flags < 0 || LinuxNative.fcntl(fd, SetFlags, flags & ~LinuxNative.OpenNonBlocking) < 0)
        {
            throw UnixErrors.ToException(Marshal.GetLastPInvokeError(), pathForErrors);
        }
    }

    /// <summary>The exception File.OpenHandle throws for this errno, so retry warnings read as the stock task's do.</summary>
    public static Exception OpenFailed(int errno, string path) => errno switch
    {
        2 when !Directory.Exists(Path.GetDirectoryName(path)) => new DirectoryNotFoundException($"Could not find a part of the path '{path}'."), // ENOENT
        _ => UnixErrors.ToException(errno, path),
    };

    private static NotARegularFileException NotARegularFile(string path, string kind)
        => new($"The source '{path}' is {kind}, not a regular file. The Copy task copies regular files (and /dev/null) only: reading {kind} may block forever or never end.");

    /// <summary>What kind of file cannot be copied, or null when it can.</summary>
    private static string? Unsupported(in LinuxNative.FileStatus status) => (status.Mode & 0xF000) switch
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
#endif
}

/// <summary>A FIFO or device source: not an engine fault, so the <see cref="FallbackLadder"/> passes it on.</summary>
internal sealed class NotARegularFileException : NotSupportedException
{
    public NotARegularFileException(string message)
        : base(message)
    {
    }
}

/// <summary><see cref="UnixFiles.Probe(string, bool)"/>'s answer; to the engine a hint, never a promise.</summary>
internal enum EntryKind
{
    Unknown,
    Missing,
    RegularFile,
}

/// <summary>Which file a stat found: its device, inode and link count.</summary>
internal readonly record struct EntryIdentity(ulong Device, ulong Inode, uint Links);
