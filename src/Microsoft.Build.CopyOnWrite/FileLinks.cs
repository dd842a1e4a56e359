using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite;

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
            throw new IOException(UnixMessage(Marshal.GetLastWin32Error()));
        }
    }

    public static void CreateSymbolicLink(string newLinkPath, string target)
    {
#if NET
        File.CreateSymbolicLink(newLinkPath, target);
#else
        const int AllowUnprivilegedCreate = 0x2;
        if (!CreateSymbolicLinkW(newLinkPath, target, AllowUnprivilegedCreate))
        {
            throw new IOException(Win32Message(Marshal.GetLastWin32Error()));
        }
#endif
    }

    /// <summary>Whether the current user may write the file in place (what File.Copy over it would need).</summary>
    public static bool IsWritable(string path)
    {
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            return (File.GetAttributes(path) & FileAttributes.ReadOnly) == 0;
        }

        const int WriteOk = 2;
        return access(path, WriteOk) == 0;
    }

    private static string Win32Message(int error) => new System.ComponentModel.Win32Exception(error).Message;

    private static string UnixMessage(int errno)
    {
#if NET
        return Marshal.GetPInvokeErrorMessage(errno);
#else
        return "errno " + errno;
#endif
    }

    [DllImport("libc", SetLastError = true)]
    private static extern int link(string existingPath, string newPath);

    [DllImport("libc", SetLastError = true)]
    private static extern int access(string path, int mode);

    [DllImport("kernel32.dll", CharSet = CharSet.Unicode, SetLastError = true)]
    private static extern bool CreateHardLinkW(string newFileName, string existingFileName, IntPtr securityAttributes);

#if !NET
    [DllImport("kernel32.dll", CharSet = CharSet.Unicode, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.I1)]
    private static extern bool CreateSymbolicLinkW(string symlinkFileName, string targetFileName, int flags);
#endif
}
