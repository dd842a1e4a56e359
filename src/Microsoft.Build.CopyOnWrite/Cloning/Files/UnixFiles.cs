using System;
using System.IO;
using System.Runtime.InteropServices;
#if NET
using Microsoft.Win32.SafeHandles;
#endif

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Linux file identity and file type: is a destination the source's own directory entry under another
/// spelling, and is a source something that can be read to its end without blocking. Elsewhere the answers
/// are "no" and "yes", which change nothing.
/// </summary>
internal static class UnixFiles
{
    /// <summary>
    /// True when writing <paramref name="destinationPath"/> would replace the directory entry that
    /// <paramref name="sourcePath"/> reads, that is the source itself: through a symlinked folder, a bind
    /// mount, /proc/self/root or a source symlink that points at the destination. Copying onto it must
    /// do nothing, as for identical paths. A destination that is a symlink or another hard link of the
    /// source is a different entry: replacing it leaves the source alone, as the stock task does.
    /// </summary>
    public static bool AreOneDirectoryEntry(string sourcePath, string destinationPath)
        => AreOneDirectoryEntry(sourcePath, destinationPath, EntryKind.Unknown, default, out _);

    /// <summary>
    /// <see cref="AreOneDirectoryEntry(string, string)"/>, using what a <see cref="Probe(string, bool, out EntryIdentity)"/> of
    /// the destination without following links already found: a regular file there is no link, so following links
    /// would find the same file, and neither is asked again. <paramref name="source"/> says what the source (links
    /// followed) was found to be, for the caller's checks: <see cref="EntryKind.RegularFile"/> or Unknown.
    /// </summary>
    /// <remarks>Over an existing destination this is one statx (the source's) instead of three (strace, #42).</remarks>
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
    /// What one stat call says of a path, where that settles the task's checks by itself: a destination that does not
    /// exist (ENOENT from lstat: no file, folder or link of that name) or a source that is a regular file (stat,
    /// following links). <see cref="EntryKind.Unknown"/> for everything else and off Linux: the caller then asks .NET
    /// as before, which keeps the stock task's checks, their order and their exceptions for every unusual case.
    /// </summary>
    /// <remarks>
    /// Measured on Linux (strace, fresh process): a new file took five path lookups before the clone
    /// (Directory.Exists and FileInfo of the destination, Directory.Exists and File.Exists of the source, and the
    /// same-entry check); with this, two.
    /// </remarks>
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
    /// Opens a copy source for reading without ever blocking, and only if it is a regular file (or the
    /// null device, which reads as empty, as File.Copy copies it). A FIFO opened for reading blocks until
    /// a writer comes, possibly forever, and a device such as /dev/zero never ends: O_NONBLOCK makes the
    /// open return at once, and the type of what was opened decides. Returns what statx said of it.
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

    /// <summary>
    /// Clears O_NONBLOCK, for a source that said EAGAIN (a pseudo file with nothing to give yet): File.Copy
    /// reads it blocking, so the copy waits as File.Copy would. Regular files ignore the flag, so this is rare.
    /// </summary>
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

/// <summary>
/// A source the engine will not read because reading it may block forever or never end (a FIFO, a device): a verdict
/// on the source, not a fault of the engine, so <see cref="FallbackLadder"/> passes it on instead of reading it the
/// stock task's way (which hangs, or fills the disk).
/// </summary>
internal sealed class NotARegularFileException : NotSupportedException
{
    public NotARegularFileException(string message)
        : base(message)
    {
    }
}

/// <summary>
/// See <see cref="UnixFiles.Probe(string, bool)"/>. Also what the task tells the engine of a destination it has just
/// looked at (<see cref="ICloneEngine.CloneOrCopy"/>): a hint that orders the engine's attempts, never a promise, since
/// the destination may change in between.
/// </summary>
internal enum EntryKind
{
    Unknown,
    Missing,
    RegularFile,
}

/// <summary>Which file a stat found: its device, inode and link count.</summary>
internal readonly record struct EntryIdentity(ulong Device, ulong Inode, uint Links);
