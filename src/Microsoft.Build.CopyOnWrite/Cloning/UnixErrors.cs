#if NET
using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>errno as .NET's own file APIs report it, for the Unix engines (Linux, macOS) and <c>Files/</c>.</summary>
internal static class UnixErrors
{
    /// <summary>The exception .NET's own file APIs would throw for this errno, so messages read the same as the stock task's.</summary>
    public static Exception ToException(int errno, string path)
        => ToException(errno, path, ErrnoTable.ThisProcess);

    internal static Exception ToException(int errno, string path, ErrnoTable table)
    {
        string text = Marshal.GetPInvokeErrorMessage(errno);
        if (errno == table.NoSuchEntry)
        {
            return new FileNotFoundException($"Could not find file '{path}'.", path);
        }

        if (errno == table.NotPermitted || errno == table.AccessDenied)
        {
            return new UnauthorizedAccessException($"Access to the path '{path}' is denied.", new IOException(text, errno));
        }

        if (errno == table.NameTooLong)
        {
            return new PathTooLongException($"The path '{path}' is too long, or a component of the specified path is too long."); // no retry helps
        }

        return new IOException($"{text} : '{path}'", errno);
    }
}

/// <summary>
/// The errno numbers <see cref="UnixErrors"/> tells apart. They differ by OS: ENAMETOOLONG is 36 on Linux and 63
/// on macOS and the BSDs, where 36 is EINPROGRESS (xnu bsd/sys/errno.h).
/// </summary>
internal sealed class ErrnoTable
{
    public static readonly ErrnoTable Linux = new(noSuchEntry: 2, notPermitted: 1, accessDenied: 13, nameTooLong: 36);

    /// <summary>macOS, and FreeBSD, which keeps the same 4.4BSD numbers.</summary>
    public static readonly ErrnoTable Bsd = new(noSuchEntry: 2, notPermitted: 1, accessDenied: 13, nameTooLong: 63);

    public static readonly ErrnoTable ThisProcess = For(
        RuntimeInformation.IsOSPlatform(OSPlatform.OSX) ? OSPlatform.OSX
        : RuntimeInformation.IsOSPlatform(OSPlatform.FreeBSD) ? OSPlatform.FreeBSD
        : OSPlatform.Linux);

    private ErrnoTable(int noSuchEntry, int notPermitted, int accessDenied, int nameTooLong)
    {
        NoSuchEntry = noSuchEntry;
        NotPermitted = notPermitted;
        AccessDenied = accessDenied;
        NameTooLong = nameTooLong;
    }

    public int NoSuchEntry { get; }

    public int NotPermitted { get; }

    public int AccessDenied { get; }

    public int NameTooLong { get; }

    public static ErrnoTable For(OSPlatform os) => os == OSPlatform.OSX || os == OSPlatform.FreeBSD ? Bsd : Linux;
}
#endif
