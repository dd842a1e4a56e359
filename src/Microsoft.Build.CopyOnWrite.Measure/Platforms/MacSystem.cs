using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>What macOS answers, as it answers it: a value, or the errno of the call.</summary>
internal interface IMacSystem
{
    MacAnswer<MacFileSystemStatus> StatFs(string path);

    /// <summary>Makes a small probe file in <paramref name="folder"/>, clones it with clonefile, removes both; 0 or clonefile's errno.</summary>
    int ProbeClone(string folder);

    void SyncAll();

    MacAnswer<double> LoadAverage();

    /// <summary>A sysctl string value by name, or null.</summary>
    string? Sysctl(string name);
}

internal readonly record struct MacAnswer<T>(T Value, int Errno)
{
    public bool Succeeded => Errno == 0;

    public static MacAnswer<T> Ok(T value) => new(value, 0);

    public static MacAnswer<T> Failed(int errno) => new(default!, errno);
}

internal readonly record struct MacFileSystemStatus(string TypeName, string MountedOn, ulong Blocks, ulong FreeBlocks, ulong BlockSize);

/// <summary>The real answers: thin calls into libSystem (64-bit struct statfs, as on every Mac .NET runs on).</summary>
[SupportedOSPlatform("macos")]
internal sealed unsafe partial class MacSystem : IMacSystem
{
    private const string LibSystem = "/usr/lib/libSystem.dylib";

    public MacAnswer<MacFileSystemStatus> StatFs(string path)
    {
        // struct statfs (64-bit inodes): f_bsize u32, f_iosize i32, f_blocks u64, f_bfree u64, f_bavail u64, f_files u64,
        // f_ffree u64, f_fsid 8, f_owner u32, f_type u32, f_flags u32, f_fssubtype u32, f_fstypename[16], f_mntonname[1024],
        // f_mntfromname[1024], f_flags_ext u32, f_reserved[7] u32: 2168 bytes.
        byte* buffer = stackalloc byte[2168];
        int result = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? statfs_inode64(path, buffer) : statfs(path, buffer);
        if (result != 0)
        {
            return MacAnswer<MacFileSystemStatus>.Failed(Marshal.GetLastPInvokeError());
        }

        uint blockSize = *(uint*)buffer;
        ulong blocks = *(ulong*)(buffer + 8);
        ulong free = *(ulong*)(buffer + 16);
        string type = CString(buffer + 72, 16);
        string mountedOn = CString(buffer + 88, 1024);
        return MacAnswer<MacFileSystemStatus>.Ok(new MacFileSystemStatus(type, mountedOn, blocks, free, blockSize));
    }

    public int ProbeClone(string folder)
    {
        string source = Path.Combine(folder, $".cow-measure-probe-{Guid.NewGuid():N}");
        string clone = source + ".clone";
        try
        {
            File.WriteAllBytes(source, new byte[65536]);
            return clonefile(source, clone, 0) == 0 ? 0 : Marshal.GetLastPInvokeError();
        }
        finally
        {
            File.Delete(clone);
            File.Delete(source);
        }
    }

    public void SyncAll() => sync();

    public MacAnswer<double> LoadAverage()
    {
        double* loads = stackalloc double[3];
        return getloadavg(loads, 3) >= 1 ? MacAnswer<double>.Ok(loads[0]) : MacAnswer<double>.Failed(-1);
    }

    public string? Sysctl(string name)
    {
        nuint length = 0;
        if (sysctlbyname(name, null, &length, null, 0) != 0 || length == 0)
        {
            return null;
        }

        byte[] value = new byte[(int)length];
        fixed (byte* pointer = value)
        {
            if (sysctlbyname(name, pointer, &length, null, 0) != 0)
            {
                return null;
            }

            return CString(pointer, (int)length);
        }
    }

    private static string CString(byte* start, int capacity)
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

    [LibraryImport(LibSystem)]
    private static partial void sync();

    [LibraryImport(LibSystem)]
    private static partial int getloadavg(double* loads, int count);

    [LibraryImport(LibSystem, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int sysctlbyname(string name, void* value, nuint* length, void* newValue, nuint newLength);
}
