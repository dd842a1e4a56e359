using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>Hard and symbolic links, made at a new path (the caller renames them into place).</summary>
internal static class FileLinks
{
    public static void CreateHardLink(string existingFile, string newLinkPath)
    {
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            if (!CreateHardLinkW(newLinkPath, existingFile, IntPtr.Zero))
            {
                throw new IOException(Win32Message(Marshal.GetLastWin32Error()));
            }
        }
        else if (link(existingFile, newLinkPath) != 0)
        {
            throw new LinkCallException("link", Marshal.GetLastWin32Error());
        }
    }

    /// <summary>Whether the entry itself (not what it points to) is a symbolic link; false when there is none.</summary>
    public static bool IsSymbolicLink(FileInfo entry)
    {
        try
        {
            FileAttributes attributes = entry.Attributes; // -1 when nothing is there
            return (int)attributes != -1 && (attributes & FileAttributes.ReparsePoint) != 0;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return false; // e.g. a name too long to exist: the copy itself reports it, as the stock task's does
        }
    }

    /// <summary>Whether two paths reach one file (device and inode, links followed); Linux only, else false.</summary>
    public static unsafe bool AreSameFile(string first, string second)
    {
        if (!RuntimeInformation.IsOSPlatform(OSPlatform.Linux))
        {
            return false;
        }
#if NET
        return LinuxNative.TryStat(first, followLinks: true, out LinuxNative.FileStatus a)
            && LinuxNative.TryStat(second, followLinks: true, out LinuxNative.FileStatus b)
            && a.Inode == b.Inode && a.Device == b.Device;
#else
        // The .NET Framework build under Mono (FullFrameworkFlavourTests), where LinuxNative is not compiled.
        byte* a = stackalloc byte[256];
        byte* b = stackalloc byte[256];
        try
        {
            const int AtFdCwd = -100;
            const uint StatxBasicStats = 0x7FF;
            if (statx(AtFdCwd, first, 0, StatxBasicStats, a) != 0 || statx(AtFdCwd, second, 0, StatxBasicStats, b) != 0)
            {
                return false;
            }
        }
        catch (EntryPointNotFoundException)
        {
            return false; // a C library without statx
        }

        // struct statx: stx_ino (u64) at 32, stx_dev_major and stx_dev_minor (u32) at 136 and 140.
        return *(ulong*)(a + 32) == *(ulong*)(b + 32) && *(ulong*)(a + 136) == *(ulong*)(b + 136);
#endif
    }

    /// <summary>What .NET's File.Copy throws when the destination is the source file itself (sharing violation).</summary>
    public static IOException SameFileInUse(string destinationPath)
        => new($"The process cannot access the file '{destinationPath}' because it is being used by another process.", unchecked((int)0x80070020));

    /// <summary>EEXIST: what link() and symlink() fail with when the new name is taken.</summary>
    public const int FileExistsErrno = 17;

    /// <summary>ERROR_ALREADY_EXISTS: what CreateHardLinkW and CreateSymbolicLinkW fail with when the new name is taken.</summary>
    public const int NameTakenWin32Error = 183;

    public static void CreateSymbolicLink(string newLinkPath, string target)
    {
        if (!RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            if (symlink(target, newLinkPath) != 0)
            {
                throw new LinkCallException("symlink", Marshal.GetLastWin32Error());
            }

            return;
        }

#if NET
        File.CreateSymbolicLink(newLinkPath, target);
#else
        int error = CreateSymbolicLinkWithRetry(flags => CreateSymbolicLinkW(newLinkPath, target, flags) ? 0 : Marshal.GetLastWin32Error());
        if (error != 0)
        {
            throw new IOException(Win32Message(error));
        }
#endif
    }

    /// <summary>SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE: Developer Mode's links without elevation (Windows 10 1703 on).</summary>
    internal const int AllowUnprivilegedCreate = 0x2;

    /// <summary>Calls <paramref name="create"/> (flags to a Win32 error, 0 for made) as <see cref="SymbolicLinkFlagsForRetry"/> says; the last error.</summary>
    internal static int CreateSymbolicLinkWithRetry(Func<int, int> create)
    {
        int flags = AllowUnprivilegedCreate;
        int error;
        while ((error = create(flags)) != 0 && SymbolicLinkFlagsForRetry(flags, error) is int retry)
        {
            flags = retry;
        }

        return error;
    }

    /// <summary>
    /// The flags to retry CreateSymbolicLinkW with after <paramref name="error"/>, or null. Windows before build 14972
    /// rejects the unprivileged flag (87, ERROR_INVALID_PARAMETER); without it an elevated process still gets its link.
    /// </summary>
    internal static int? SymbolicLinkFlagsForRetry(int flags, int error)
    {
        const int ErrorInvalidParameter = 87;
        return error == ErrorInvalidParameter && (flags & AllowUnprivilegedCreate) != 0 ? flags & ~AllowUnprivilegedCreate : null;
    }

    /// <summary>Throws what File.Copy over the file would on opening it (e.g. access denied); writes nothing.</summary>
    public static void ThrowIfNotWritable(string path, bool create)
    {
        using var probe = new FileStream(path, create ? FileMode.OpenOrCreate : FileMode.Open, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete);
    }

    /// <summary>Rewrites our error to name the destination, as the stock task's does, not our temporary file.</summary>
    public static Exception WithDestinationPath(Exception e, string destinationPath)
    {
        string folder = Path.GetDirectoryName(destinationPath) ?? string.Empty;
        string pattern = Regex.Escape(Path.Combine(folder, AtomicFile.TemporaryPrefix)) + @"[^/\\]*?\.[0-9a-f]{12}" + Regex.Escape(AtomicFile.TemporarySuffix);
        string message = Regex.Replace(e.Message, pattern, destinationPath.Replace("$", "$$"));
        if (message == e.Message)
        {
            return e;
        }

        try
        {
            return (Exception)Activator.CreateInstance(e.GetType(), message, e.InnerException)!;
        }
        catch (Exception) when (e is UnauthorizedAccessException)
        {
            return new UnauthorizedAccessException(message, e.InnerException);
        }
        catch (Exception)
        {
            return new IOException(message, e);
        }
    }

    /// <summary>
    /// A failed link call's Win32 error in the stock task's words: the message of the exception .NET makes of its HRESULT.
    /// Without the thread's COM error information (-1), which may still describe an earlier, unrelated failure.
    /// </summary>
    public static string Win32Message(int error)
        => Marshal.GetExceptionForHR(unchecked((int)0x80070000 | error), new IntPtr(-1))?.Message ?? new System.ComponentModel.Win32Exception(error).Message;

    [DllImport("libc", SetLastError = true)]
    private static extern int link(string existingPath, string newPath);

    [DllImport("libc", SetLastError = true)]
    private static extern int symlink(string target, string linkPath);

#if !NET
    [DllImport("libc", SetLastError = true)]
    private static extern unsafe int statx(int dirfd, string path, int flags, uint mask, byte* buffer);
#endif

    [DllImport("kernel32.dll", CharSet = CharSet.Unicode, SetLastError = true)]
    private static extern bool CreateHardLinkW(string newFileName, string existingFileName, IntPtr securityAttributes);

#if !NET
    [DllImport("kernel32.dll", CharSet = CharSet.Unicode, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.I1)]
    private static extern bool CreateSymbolicLinkW(string symlinkFileName, string targetFileName, int flags);
#endif
}

/// <summary>A failed libc link call (link, symlink, net472's rename): the call and errno, for the stock text.</summary>
internal sealed class LinkCallException : IOException
{
    public LinkCallException(string call, int errno)
        : base($"{call}() failed with errno {errno}.")
    {
        Call = call;
        Errno = errno;
    }

    /// <summary>The C library function, without parentheses.</summary>
    public string Call { get; }

    public int Errno { get; }
}
