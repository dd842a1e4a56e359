using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Security.Cryptography;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Writes a file by making it under a temporary name in the destination's own folder and renaming it over
/// the destination in one step. A rename replaces the directory entry: it never writes through a hard link
/// or symlink, and readers see either the old file or the complete new one.
/// </summary>
internal static class AtomicFile
{
    /// <summary>Leading dot: hidden on Unix, and globs like *.dll in users' targets do not pick it up.</summary>
    public const string TemporaryPrefix = ".";
    public const string TemporarySuffix = ".cow-tmp";

    // Keeps "." + name + "." + 12 hex + suffix within the 255-byte name limit of common file systems.
    private const int MaxNameCharsKept = 80;

    public static string TemporaryPathBeside(string destinationPath)
    {
        string folder = Path.GetDirectoryName(destinationPath) ?? string.Empty;
        string name = Path.GetFileName(destinationPath);
        if (name.Length > MaxNameCharsKept)
        {
            name = name.Substring(0, MaxNameCharsKept);
        }

        return Path.Combine(folder, TemporaryPrefix + name + "." + RandomHex(6) + TemporarySuffix);
    }

    public static bool IsTemporaryName(string fileName)
        => fileName.StartsWith(TemporaryPrefix, StringComparison.Ordinal) && fileName.EndsWith(TemporarySuffix, StringComparison.Ordinal);

    /// <summary>Renames <paramref name="temporaryPath"/> over <paramref name="destinationPath"/>, replacing whatever entry is there.</summary>
    public static void Replace(string temporaryPath, string destinationPath)
    {
#if NET
        File.Move(temporaryPath, destinationPath, overwrite: true);
#else
        // .NET Framework has no File.Move overwrite; it only runs on Windows.
        if (!MoveFileEx(temporaryPath, destinationPath, MoveFileReplaceExisting))
        {
            Marshal.ThrowExceptionForHR(Marshal.GetHRForLastWin32Error());
        }
#endif
    }

    public static void DeleteQuietly(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Best effort: the caller is already reporting the failure that got us here.
        }
    }

    private static string RandomHex(int bytes)
    {
        byte[] buffer = new byte[bytes];
#if NET
        RandomNumberGenerator.Fill(buffer);
#else
        using (var generator = RandomNumberGenerator.Create())
        {
            generator.GetBytes(buffer);
        }
#endif
        return BitConverter.ToString(buffer).Replace("-", string.Empty).ToLowerInvariant();
    }

#if !NET
    private const int MoveFileReplaceExisting = 0x1;

    [DllImport("kernel32.dll", CharSet = CharSet.Unicode, SetLastError = true)]
    private static extern bool MoveFileEx(string existingFileName, string newFileName, int flags);
#endif
}
