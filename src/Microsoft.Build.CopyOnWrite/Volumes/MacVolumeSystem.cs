#if NET
using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>The real answers: thin calls into libSystem (64-bit struct statfs, as on every Mac .NET runs on).</summary>
[SupportedOSPlatform("macos")]
internal unsafe partial class MacVolumeSystem : IMacVolumeSystem
{
    protected const string LibSystem = "/usr/lib/libSystem.dylib";

    public SystemAnswer<MacFileSystemStatus> StatFs(string path)
    {
        // struct statfs (64-bit inodes): f_bsize u32, f_iosize i32, f_blocks u64, f_bfree u64, f_bavail u64, f_files u64,
        // f_ffree u64, f_fsid 8, f_owner u32, f_type u32, f_flags u32, f_fssubtype u32, f_fstypename[16], f_mntonname[1024],
        // f_mntfromname[1024], f_flags_ext u32, f_reserved[7] u32: 2168 bytes.
        byte* buffer = stackalloc byte[2168];
        path = VolumeCatalog.NearestExisting(path);
        int result = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? statfs_inode64(path, buffer) : statfs(path, buffer);
        if (result != 0)
        {
            return SystemAnswer<MacFileSystemStatus>.Failed(Marshal.GetLastPInvokeError());
        }

        uint blockSize = *(uint*)buffer;
        ulong blocks = *(ulong*)(buffer + 8);
        ulong free = *(ulong*)(buffer + 16);
        string type = CString(buffer + 72, 16);
        string mountedOn = CString(buffer + 88, 1024);
        return SystemAnswer<MacFileSystemStatus>.Ok(new MacFileSystemStatus(type, mountedOn, blocks, free, blockSize));
    }

    public int ProbeClone(string folder)
    {
        string folderThere = VolumeCatalog.NearestExisting(folder);
        string source = AtomicFile.TemporaryPathBeside(Path.Combine(folderThere, "cow-probe"));
        string clone = AtomicFile.TemporaryPathBeside(Path.Combine(folderThere, "cow-probe-clone"));
        try
        {
            File.WriteAllBytes(source, new byte[65536]);
            return clonefile(source, clone, 0) == 0 ? 0 : Marshal.GetLastPInvokeError();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return -1;
        }
        finally
        {
            AtomicFile.DeleteQuietly(clone);
            AtomicFile.DeleteQuietly(source);
        }
    }

    protected static string CString(byte* start, int capacity)
    {
        int length = 0;
        while (length < capacity && start[length] != 0)
        {
            length++;
        }

        return Encoding.UTF8.GetString(start, length);
    }

    // On x64 the 64-bit-inode layout has its own symbol; on arm64 it is the only one.
    [LibraryImport(LibSystem, SetLastError = true, StringMarshalling = StringMarshalling.Utf8, EntryPoint = "statfs$INODE64")]
    private static partial int statfs_inode64(string path, byte* buffer);

    [LibraryImport(LibSystem, SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int statfs(string path, byte* buffer);

    [LibraryImport(LibSystem, SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int clonefile(string source, string destination, uint flags);
}
#endif
