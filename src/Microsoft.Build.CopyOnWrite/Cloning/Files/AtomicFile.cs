using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>Writes a file beside the destination and renames it over: never through a link, never half-seen.</summary>
internal static partial class AtomicFile
{
    /// <summary>Leading dot: hidden on Unix, and globs like *.dll in users' targets do not pick it up.</summary>
    public const string TemporaryPrefix = ".";
    public const string TemporarySuffix = ".cow-tmp";

    // ext4, XFS, btrfs and APFS limit a name to 255 bytes of UTF-8; NTFS and ReFS to 255 UTF-16 units.
    private const int MaxNameBytes = 255;
    private const int RandomHexLength = 12;
    private const int MaxNameCharsKept = 80;

    /// <summary>".{name}.{12 hex}.cow-tmp" beside the destination (see <see cref="TemporaryNameFor"/>).</summary>
    public static string TemporaryPathBeside(string destinationPath)
        => Path.Combine(Path.GetDirectoryName(destinationPath) ?? string.Empty, TemporaryNameFor(Path.GetFileName(destinationPath)));

    /// <summary>".{name}.{12 hex}.cow-tmp", the name cut at a character boundary to stay within 255 bytes.</summary>
    public static string TemporaryNameFor(string name)
    {
        int budget = MaxNameBytes - (TemporaryPrefix.Length + 1 + RandomHexLength + TemporarySuffix.Length);
        int kept = 0;
        int keptBytes = 0;
        while (kept < name.Length && kept < MaxNameCharsKept)
        {
            int step = char.IsHighSurrogate(name[kept]) && kept + 1 < name.Length ? 2 : 1;
            int stepBytes = Encoding.UTF8.GetByteCount(name.ToCharArray(kept, step));
            if (keptBytes + stepBytes > budget)
            {
                break;
            }

            keptBytes += stepBytes;
            kept += step;
        }

        return TemporaryPrefix + name.Substring(0, kept) + "." + RandomHex() + TemporarySuffix;
    }

    /// <summary>Writes with <paramref name="write"/> beside the destination and renames; deleted on failure.</summary>
    public static T WriteBeside<T>(string destinationPath, Func<string, T> write)
    {
        string temporaryPath = TemporaryPathBeside(destinationPath);
        try
        {
            T result = write(temporaryPath);
            Replace(temporaryPath, destinationPath);
            return result;
        }
        catch
        {
            DeleteQuietly(temporaryPath);
            throw;
        }
    }

    public static bool IsTemporaryName(string fileName)
        => fileName.StartsWith(TemporaryPrefix, StringComparison.Ordinal) && fileName.EndsWith(TemporarySuffix, StringComparison.Ordinal);

    /// <summary>Renames <paramref name="temporaryPath"/> over <paramref name="destinationPath"/>, replacing whatever entry is there.</summary>
    public static void Replace(string temporaryPath, string destinationPath)
    {
#if NET
        if (!OperatingSystem.IsWindows())
        {
            // rename(2) itself: File.Move adds two stats per file to emulate Windows rules we do not need.
            if (rename(temporaryPath, destinationPath) != 0)
            {
                throw UnixErrors.ToException(Marshal.GetLastPInvokeError(), destinationPath);
            }

            return;
        }

        File.Move(temporaryPath, destinationPath, overwrite: true);
#else
        if (!RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            // The .NET Framework build off Windows: MSBuild's .NET Framework engine under Mono (FullFrameworkFlavourTests),
            // where kernel32 is not there to call. rename(2), as the .NET build calls it.
            if (rename(temporaryPath, destinationPath) != 0)
            {
                throw new LinkCallException("rename", Marshal.GetLastWin32Error());
            }

            return;
        }

        // .NET Framework has no File.Move overwrite.
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

    /// <summary>Uniqueness, not secrecy (O_EXCL and CREATE_NEW make a clash fail): a cheap seeded generator.</summary>
    private static string RandomHex()
    {
#if NET
        return Random.Shared.NextInt64(1L << 48).ToString("x12");
#else
        byte[] buffer = new byte[RandomHexLength / 2];
        using (var generator = RandomNumberGenerator.Create())
        {
            generator.GetBytes(buffer);
        }

        return BitConverter.ToString(buffer).Replace("-", string.Empty).ToLowerInvariant();
#endif
    }

#if NET
    // Source-generated marshalling, so the precompiled image holds it: a [DllImport] taking strings needs a stub that
    // the JIT compiles on every node's first rename (docs/precompiled-task.md).
    [LibraryImport("libc", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int rename(string oldPath, string newPath);
#else
    private const int MoveFileReplaceExisting = 0x1;

    [DllImport("libc", SetLastError = true)]
    private static extern int rename(string oldPath, string newPath);

    [DllImport("kernel32.dll", CharSet = CharSet.Unicode, SetLastError = true)]
    private static extern bool MoveFileEx(string existingFileName, string newFileName, int flags);
#endif
}
