#if NET
using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// The Linux system calls the engine needs. futimens, pread and ftruncate take 64-bit time_t and off_t, so only 64-bit
/// processes get the engine; statx, open and fcntl, which any process may call, take ints, pointers and struct statx.
/// </summary>
internal static unsafe partial class LinuxNative
{
    private const string LibC = "libc";

    public const int EINTR = 4;
    public const int EAGAIN = 11;
    public const int EINVAL = 22;
    public const int ENOSYS = 38;

    /// <summary>The FICLONE request, _IOW(0x94, 9, int), whose encoding depends on the processor; null where we do not know it.</summary>
    public static nuint? FicloneRequestFor(Architecture architecture) => architecture.ToString() switch
    {
        "X64" or "Arm64" or "S390x" or "RiscV64" or "LoongArch64" => 0x40049409,
        "Ppc64le" => 0x80049409,
        _ => null, // 32-bit processors (other struct layouts) and anything unknown: no clone, a clean copy.
    };

    [LibraryImport(LibC, SetLastError = true)]
    public static partial int ioctl(int fd, nuint request, nint argument);

    /// <summary>How many times an interrupted clone (EINTR) is tried, in all.</summary>
    public const int CloneAttempts = 4;

    /// <summary>
    /// ioctl(FICLONE): <paramref name="destinationFd"/> shares <paramref name="sourceFd"/>'s extents; 0 or the errno.
    /// EINTR (FUSE, a network file system, a signal) says nothing of the volume: <see cref="CloneAttempts"/> tries.
    /// </summary>
    public static int Clone(int destinationFd, int sourceFd, nuint ficlone)
    {
        int errno = EINTR;
        for (int attempt = 0; attempt < CloneAttempts && errno == EINTR; attempt++)
        {
            errno = ioctl(destinationFd, ficlone, sourceFd) == 0 ? 0 : Marshal.GetLastPInvokeError();
        }

        return errno;
    }

    [LibraryImport(LibC, SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int statx(int dirfd, string path, int flags, uint mask, byte* buffer);

    /// <summary>Whether the C library has statx (glibc 2.28+, musl 1.2.5+); tests set it to run the fallback.</summary>
    internal static bool HasStatx
    {
        get => StatxExport.Exists;
        set => StatxExport.Exists = value;
    }

    /// <summary>Whether the C library this process has loaded exports <paramref name="name"/>.</summary>
    internal static bool CLibraryExports(string name)
        => NativeLibrary.TryGetExport(NativeLibrary.GetMainProgramHandle(), name, out _);

    /// <summary>statx where the C library has it; else -1 and ENOSYS, as a kernel without statx would say.</summary>
    private static int StatxOrNoSuchCall(int dirfd, string path, int flags, byte* buffer)
    {
        if (!StatxExport.Exists)
        {
            Marshal.SetLastPInvokeError(ENOSYS);
            return -1;
        }

        return statx(dirfd, path, flags, StatxBasicStats, buffer);
    }

    // Apart, so the lookup runs on the first stat and not whenever anything in LinuxNative is touched.
    private static class StatxExport
    {
        public static bool Exists = CLibraryExports("statx");
    }

    [LibraryImport(LibC, SetLastError = true)]
    private static partial int fstatfs(int fd, byte* buffer);

    [LibraryImport(LibC, SetLastError = true)]
    public static partial int fchmod(int fd, uint mode);

    [LibraryImport(LibC, SetLastError = true)]
    private static partial int futimens(int fd, Timespec* times);

    [LibraryImport(LibC, SetLastError = true)]
    public static partial nint sendfile(int outFd, int inFd, nint offset, nuint count);

    /// <summary>copy_file_range(2) from and to the files' own offsets (null offset pointers), flags 0.</summary>
    [LibraryImport(LibC, SetLastError = true)]
    public static partial nint copy_file_range(int inFd, long* inOffset, int outFd, long* outOffset, nuint count, uint flags);

    /// <summary>Whether the C library has copy_file_range (glibc 2.27+, musl 1.1.20+); else calls throw.</summary>
    internal static bool HasCopyFileRange => CopyFileRangeExport.Exists;

    private static class CopyFileRangeExport
    {
        public static readonly bool Exists = CLibraryExports("copy_file_range");
    }

    [LibraryImport(LibC, SetLastError = true)]
    public static partial nint read(int fd, byte* buffer, nuint count);

    [LibraryImport(LibC, SetLastError = true)]
    public static partial nint write(int fd, byte* buffer, nuint count);

    /// <summary>Sets a file's size (64-bit off_t: 64-bit processors only, as is the rest of the engine).</summary>
    [LibraryImport(LibC, SetLastError = true)]
    public static partial int ftruncate(int fd, long length);

    /// <summary>Reads at an offset without moving the file's own (64-bit processors only, as is the rest of the engine).</summary>
    [LibraryImport(LibC, SetLastError = true)]
    public static partial nint pread(int fd, byte* buffer, nuint count, long offset);

    [LibraryImport(LibC, SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int unlink(string path);

    [LibraryImport(LibC, SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial byte* realpath(string path, byte* resolved);

    /// <summary>The absolute path with every link, "." and ".." resolved (realpath(3)), or null where it cannot be (a missing part, no access).</summary>
    public static string? RealPath(string path)
    {
        const int PathMax = 4096; // PATH_MAX: what realpath may write into the buffer it is given
        byte* resolved = stackalloc byte[PathMax];
        return realpath(path, resolved) is null ? null : Marshal.PtrToStringUTF8((nint)resolved);
    }

    [LibraryImport(LibC, SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int open(string path, int flags, uint mode);

    [LibraryImport(LibC, SetLastError = true)]
    public static partial int fcntl(int fd, int command, int argument);

    public const int OpenReadOnly = 0;
    public const int OpenWriteOnly = 1;
    public const int OpenCreate = 0x40;
    public const int OpenExclusive = 0x80;
    public const int OpenNonBlocking = 0x800;
    public const int OpenCloseOnExec = 0x80000;

    [LibraryImport(LibC, SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int linkat(int oldDirFd, string oldPath, int newDirFd, string newPath, int flags);

    public const int AtFdCwdValue = -100;
    public const int AtSymlinkFollow = 0x400;

    /// <summary>
    /// O_TMPFILE (__O_TMPFILE | O_DIRECTORY), whose O_DIRECTORY bit differs by processor: 040000 on arm64 and
    /// powerpc, 0200000 on the rest we clone on. Null where we do not know it: the engine then names its file.
    /// </summary>
    public static int? UnnamedFileFlagFor(Architecture architecture) => architecture.ToString() switch
    {
        "X64" or "S390x" or "RiscV64" or "LoongArch64" => 0x410000,
        "Arm64" or "Ppc64le" => 0x404000,
        _ => null,
    };

    /// <summary>open(2); a negative result leaves errno for <see cref="Marshal.GetLastPInvokeError"/>.</summary>
    public static int Open(string path, int flags, uint mode = 0) => open(path, flags, mode);

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    public readonly struct FileStatus
    {
        public uint Mode { get; init; }
        public uint Links { get; init; }
        public uint RdevMajor { get; init; }
        public uint RdevMinor { get; init; }
        public long Size { get; init; }
        public ulong Device { get; init; }
        public ulong Inode { get; init; }
        public long AccessSeconds { get; init; }
        public uint AccessNanoseconds { get; init; }
        public long ModifySeconds { get; init; }
        public uint ModifyNanoseconds { get; init; }

        public bool IsRegularFile => (Mode & 0xF000) == 0x8000;

        public bool IsDirectory => (Mode & 0xF000) == 0x4000;

        public bool IsSymbolicLink => (Mode & 0xF000) == 0xA000;

        public uint PermissionBits => Mode & 0x1FF;
    }

    private const int AtFdCwd = -100;
    private const int AtSymlinkNoFollow = 0x100;
    public const int AtEmptyPath = 0x1000;
    private const uint StatxBasicStats = 0x7FF;

    /// <summary>
    /// statx(fd, "", AT_EMPTY_PATH): struct statx has one layout on every architecture, unlike struct stat. Without it
    /// every stat fails with ENOSYS: the task asks .NET instead, and <see cref="CloneEngines.Choose"/> copies.
    /// </summary>
    public static FileStatus Stat(int fd, string pathForErrors)
        => TryStat(fd, out FileStatus status) ? status : throw UnixErrors.ToException(Marshal.GetLastPInvokeError(), pathForErrors);

    public static bool TryStat(int fd, out FileStatus status)
    {
        byte* buffer = stackalloc byte[256];
        bool ok = StatxOrNoSuchCall(fd, string.Empty, AtEmptyPath, buffer) == 0;
        status = ok ? Read(buffer) : default;
        return ok;
    }

    /// <summary>statx of a path; <paramref name="followLinks"/> false describes a symlink itself.</summary>
    public static bool TryStat(string path, bool followLinks, out FileStatus status)
    {
        byte* buffer = stackalloc byte[256];
        bool ok = StatxOrNoSuchCall(AtFdCwd, path, followLinks ? 0 : AtSymlinkNoFollow, buffer) == 0;
        status = ok ? Read(buffer) : default;
        return ok;
    }

    private static FileStatus Read(byte* buffer)
        => new()
        {
            Links = *(uint*)(buffer + 16),
            RdevMajor = *(uint*)(buffer + 128),
            RdevMinor = *(uint*)(buffer + 132),
            Mode = *(ushort*)(buffer + 28),
            Inode = *(ulong*)(buffer + 32),
            Size = *(long*)(buffer + 40),
            AccessSeconds = *(long*)(buffer + 64),
            AccessNanoseconds = *(uint*)(buffer + 72),
            ModifySeconds = *(long*)(buffer + 112),
            ModifyNanoseconds = *(uint*)(buffer + 120),
            Device = MakeDevice(*(uint*)(buffer + 136), *(uint*)(buffer + 140)),
        };

    /// <summary>glibc's makedev: the st_dev number that stat(1) and every other tool print.</summary>
    public static ulong MakeDevice(uint major, uint minor)
        => ((major & 0x00000FFFUL) << 8) | ((major & 0xFFFFF000UL) << 32) | (minor & 0xFFUL) | ((minor & 0xFFFFFF00UL) << 12);

    /// <summary>glibc's major() and minor(), the inverse of <see cref="MakeDevice"/>: "8:1", as /proc/self/mountinfo shows a device.</summary>
    public static void SplitDevice(ulong device, out ulong major, out ulong minor)
    {
        // Each half is a 32-bit unsigned int in glibc: the high bits of the minor must not pick up the major's.
        major = ((uint)(device >> 8) & 0xFFFu) | ((uint)(device >> 32) & ~0xFFFu);
        minor = ((uint)device & 0xFFu) | ((uint)(device >> 12) & ~0xFFu);
    }

    /// <summary>statfs f_type and f_fsid, 0s if unknown; out parameters, as a tuple would be JIT-compiled.</summary>
    public static void FileSystem(int fd, StatfsLayout? layout, out long type, out ulong id)
    {
        byte* buffer = stackalloc byte[StatfsBufferBytes];
        if (layout is StatfsLayout fields && fstatfs(fd, buffer) == 0)
        {
            ReadFileSystem(buffer, fields, out type, out id);
            return;
        }

        type = 0;
        id = 0;
    }

    /// <summary>Room for struct statfs on every 64-bit Linux (120 bytes on x86-64 and s390x).</summary>
    internal const int StatfsBufferBytes = 256;

    /// <summary>f_type and f_fsid from a struct statfs in this process's byte order.</summary>
    internal static void ReadFileSystem(byte* statfs, StatfsLayout layout, out long type, out ulong id)
    {
        type = layout.TypeIsFourBytes ? *(uint*)statfs : *(long*)statfs;
        id = *(ulong*)(statfs + layout.IdOffset);
    }

    /// <summary>
    /// Where struct statfs keeps f_type and f_fsid: a word at 0 and 56, but s390x has 4-byte f_type and f_bsize, so
    /// f_fsid at 48 (big-endian: 8 bytes at 0 would be f_type &lt;&lt; 32 | f_bsize). Null where not checked.
    /// </summary>
    public static StatfsLayout? StatfsLayoutFor(Architecture architecture) => architecture.ToString() switch
    {
        "X64" or "Arm64" or "Ppc64le" or "RiscV64" or "LoongArch64" => new StatfsLayout(TypeIsFourBytes: false, IdOffset: 56),
        "S390x" => new StatfsLayout(TypeIsFourBytes: true, IdOffset: 48),
        _ => null,
    };

    public static void SetTimes(int fd, in FileStatus source, string pathForErrors)
    {
        Timespec* times = stackalloc Timespec[2];
        times[0] = new Timespec { Seconds = source.AccessSeconds, Nanoseconds = source.AccessNanoseconds };
        times[1] = new Timespec { Seconds = source.ModifySeconds, Nanoseconds = source.ModifyNanoseconds };
        if (futimens(fd, times) != 0)
        {
            throw UnixErrors.ToException(Marshal.GetLastPInvokeError(), pathForErrors);
        }
    }

    public static void SetPermissions(int fd, uint permissionBits, string pathForErrors)
    {
        if (fchmod(fd, permissionBits) != 0)
        {
            throw UnixErrors.ToException(Marshal.GetLastPInvokeError(), pathForErrors);
        }
    }

    /// <summary>Names for the file systems users meet, for "ext4 cannot clone" style messages.</summary>
    public static string? FileSystemName(long type) => type switch
    {
        0x9123683E => "btrfs",
        0x58465342 => "XFS",
        0xCA451A4E => "bcachefs",
        0x7461636F => "OCFS2",
        0x794C7630 => "overlayfs",
        0x6969 => "NFS",
        0xFE534D42 => "SMB",
        0xFF534D42 => "CIFS",
        0xEF53 => "ext4",
        0x01021994 => "tmpfs",
        0x2FC12FC1 => "ZFS",
        0x65735546 => "FUSE",
        0x4D44 => "FAT",
        0x5346544E => "NTFS",
        _ => null,
    };
}

/// <param name="TypeIsFourBytes">f_type (at 0) is an unsigned int, not a word.</param>
/// <param name="IdOffset">Where the 8 bytes of f_fsid start.</param>
internal readonly record struct StatfsLayout(bool TypeIsFourBytes, int IdOffset);

#endif
