#if NET
using System;
using System.Buffers.Binary;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.IO;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// <see cref="IMacFileSystem"/> on libSystem, reading struct stat and statfs in their 64-bit-inode layouts: arm64's
/// only ones, which x86-64 has only under the "$INODE64" symbols (its plain names keep the old 32-bit-inode layouts).
/// </summary>
[SupportedOSPlatform("macos")]
internal sealed unsafe partial class MacNative : IMacFileSystem
{
    private const string LibSystem = "libc"; // .NET resolves it to /usr/lib/libc.dylib, which is libSystem

    private const int AtCurrentDirectory = -2; // AT_FDCWD on macOS
    private const uint CopyFileMetadata = 0x7;  // COPYFILE_ACL | COPYFILE_STAT | COPYFILE_XATTR

    private static readonly bool UsesInode64Symbols = RuntimeInformation.ProcessArchitecture == Architecture.X64;

    /// <summary>The processors whose struct layouts and symbol names this file knows (all that .NET runs on macOS).</summary>
    public static bool KnowsAbiOf(Architecture architecture) => architecture is Architecture.X64 or Architecture.Arm64;

    public MacFile OpenForReading(string path) => OpenWith(path, FileMode.Open, FileAccess.Read);

    public MacFile CreateNew(string path) => OpenWith(path, FileMode.CreateNew, FileAccess.Write);

    public int Stat(MacFile file, out MacFileStatus status)
    {
        byte* buffer = stackalloc byte[MacStructLayouts.StatBytes];
        int result = UsesInode64Symbols ? FStatX64(Fd(file), buffer) : FStatArm64(Fd(file), buffer);
        status = result == 0 ? MacStructLayouts.ParseStat(new ReadOnlySpan<byte>(buffer, MacStructLayouts.StatBytes)) : default;
        return result == 0 ? 0 : Marshal.GetLastPInvokeError();
    }

    public int DeviceOf(string folder, out ulong device)
    {
        byte* buffer = stackalloc byte[MacStructLayouts.StatBytes];
        int result = UsesInode64Symbols ? StatX64(folder, buffer) : StatArm64(folder, buffer);
        device = result == 0 ? MacStructLayouts.ParseStat(new ReadOnlySpan<byte>(buffer, MacStructLayouts.StatBytes)).Device : 0;
        return result == 0 ? 0 : Marshal.GetLastPInvokeError();
    }

    public string? FileSystemTypeName(string folder)
    {
        byte* buffer = stackalloc byte[MacStructLayouts.StatfsBytes];
        int result = UsesInode64Symbols ? StatfsX64(folder, buffer) : StatfsArm64(folder, buffer);
        return result == 0 ? MacStructLayouts.ParseFileSystemTypeName(new ReadOnlySpan<byte>(buffer, MacStructLayouts.StatfsBytes)) : null;
    }

    public int CloneFrom(MacFile source, string destinationPath, uint flags)
        => FClonefileAt(Fd(source), AtCurrentDirectory, destinationPath, flags) == 0 ? 0 : Marshal.GetLastPInvokeError();

    public int Read(MacFile file, byte[] buffer) => ((NativeFile)file).Stream.Read(buffer, 0, buffer.Length);

    public void Write(MacFile file, byte[] buffer, int count) => ((NativeFile)file).Stream.Write(buffer, 0, count);

    public int CopyMetadata(MacFile source, MacFile destination)
        => FCopyfile(Fd(source), Fd(destination), IntPtr.Zero, CopyFileMetadata) == 0 ? 0 : Marshal.GetLastPInvokeError();

    public int SetPermissions(string path, uint mode) => Chmod(path, (ushort)mode) == 0 ? 0 : Marshal.GetLastPInvokeError();

    public int SetPermissions(MacFile file, uint mode) => FChmod(Fd(file), (ushort)mode) == 0 ? 0 : Marshal.GetLastPInvokeError();

    public int Rename(string fromPath, string toPath) => RenameFile(fromPath, toPath) == 0 ? 0 : Marshal.GetLastPInvokeError();

    public int Unlink(string path) => UnlinkFile(path) == 0 ? 0 : Marshal.GetLastPInvokeError();

    /// <summary>FileStream, unlike offset-based reads, also reads pipes and devices; bufferSize 0: no buffer of its own.</summary>
    private static MacFile OpenWith(string path, FileMode mode, FileAccess access)
        => new NativeFile(new FileStream(path, mode, access, FileShare.ReadWrite | FileShare.Delete, bufferSize: 0));

    private static int Fd(MacFile file) => (int)((NativeFile)file).Stream.SafeFileHandle.DangerousGetHandle();

    private sealed class NativeFile : MacFile
    {
        public NativeFile(FileStream stream) => Stream = stream;

        public FileStream Stream { get; }

        public override void Dispose() => Stream.Dispose();
    }

    // Source-generated marshalling (LibraryImport), which the precompiled image holds: a [DllImport] with a string or
    // SetLastError needs a marshalling stub that the JIT compiles on first use in every MSBuild node (measured on Linux).
    [LibraryImport(LibSystem, EntryPoint = "fstat$INODE64", SetLastError = true)]
    private static partial int FStatX64(int fd, byte* buffer);

    [LibraryImport(LibSystem, EntryPoint = "fstat", SetLastError = true)]
    private static partial int FStatArm64(int fd, byte* buffer);

    [LibraryImport(LibSystem, EntryPoint = "stat$INODE64", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int StatX64(string path, byte* buffer);

    [LibraryImport(LibSystem, EntryPoint = "stat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int StatArm64(string path, byte* buffer);

    [LibraryImport(LibSystem, EntryPoint = "statfs$INODE64", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int StatfsX64(string path, byte* buffer);

    [LibraryImport(LibSystem, EntryPoint = "statfs", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int StatfsArm64(string path, byte* buffer);

    [LibraryImport(LibSystem, EntryPoint = "fclonefileat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int FClonefileAt(int sourceFd, int destinationDirectoryFd, string destinationPath, uint flags);

    [LibraryImport(LibSystem, EntryPoint = "fcopyfile", SetLastError = true)]
    private static partial int FCopyfile(int fromFd, int toFd, IntPtr state, uint flags);

    [LibraryImport(LibSystem, EntryPoint = "fchmod", SetLastError = true)]
    private static partial int FChmod(int fd, ushort mode);

    [LibraryImport(LibSystem, EntryPoint = "chmod", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Chmod(string path, ushort mode);

    [LibraryImport(LibSystem, EntryPoint = "rename", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int RenameFile(string fromPath, string toPath);

    [LibraryImport(LibSystem, EntryPoint = "unlink", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int UnlinkFile(string path);
}

/// <summary>Offsets in __DARWIN_STRUCT_STAT64 and __DARWIN_STRUCT_STATFS64, alike on x86-64 and arm64.</summary>
internal static class MacStructLayouts
{
    public const int StatBytes = 144;
    public const int StatfsBytes = 2168;

    // struct stat: dev_t st_dev (int32) 0, mode_t st_mode (uint16) 4, nlink 6, st_ino 8, uid 16, gid 20, rdev 24,
    // 4 bytes padding, then four timespecs {long, long}: access 32, modify 48, change 64, birth 80; off_t st_size 96.
    private const int StatDevice = 0;
    private const int StatMode = 4;
    private const int StatSize = 96;

    // struct statfs: f_bsize 0, f_iosize 4, five uint64 counts 8-47, f_fsid 48, f_owner 56, f_type 60,
    // f_flags 64, f_fssubtype 68, char f_fstypename[16] 72.
    private const int StatfsTypeName = 72;
    private const int StatfsTypeNameBytes = 16;

    public static MacFileStatus ParseStat(ReadOnlySpan<byte> stat) => new()
    {
        Device = (uint)BinaryPrimitives.ReadInt32LittleEndian(stat.Slice(StatDevice)),
        Mode = BinaryPrimitives.ReadUInt16LittleEndian(stat.Slice(StatMode)),
        Size = BinaryPrimitives.ReadInt64LittleEndian(stat.Slice(StatSize)),
    };

    public static string ParseFileSystemTypeName(ReadOnlySpan<byte> statfs)
    {
        ReadOnlySpan<byte> name = statfs.Slice(StatfsTypeName, StatfsTypeNameBytes);
        int end = name.IndexOf((byte)0);
        return Encoding.UTF8.GetString(end < 0 ? name : name.Slice(0, end));
    }
}

/// <summary>The parts of a macOS struct stat the engine uses.</summary>
internal readonly record struct MacFileStatus
{
    public ulong Device { get; init; }
    public uint Mode { get; init; }
    public long Size { get; init; }

    public bool IsRegularFile => (Mode & 0xF000) == 0x8000;
}
#endif
