using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// The plain file operations under the engine that <see cref="FallbackLadder"/> falls back on: .NET's own, the ones
/// the stock task makes, so that where they fail the stock task fails too. A seam, so the ladder's rules also run
/// over the Windows and macOS fakes.
/// </summary>
internal interface IPlainFiles
{
    /// <summary>File.Copy: content, permission bits and times, as the stock task's copy gets them.</summary>
    void CopyFile(string sourcePath, string destinationPath, bool overwrite);

    /// <summary>Renames <paramref name="temporaryPath"/> over <paramref name="destinationPath"/> in one step.</summary>
    void Replace(string temporaryPath, string destinationPath);

    void DeleteQuietly(string path);

    bool Exists(string path);

    long Length(string path);

    /// <summary>Whether a new file can be created at <paramref name="path"/> (it is created and deleted again).</summary>
    bool CanCreate(string path);

    /// <summary>Throws what opening the source for reading throws, if it does.</summary>
    void ThrowIfUnreadable(string sourcePath);

    /// <summary>
    /// Throws <see cref="NotARegularFileException"/> for a source that reading may never end (a FIFO, a device), as the
    /// engine refuses it, without blocking; where the OS has no such check, nothing.
    /// </summary>
    void ThrowIfNotRegularFile(string sourcePath);

    /// <summary>The stock task's rule: a copy of a read-only source is writable by its owner.</summary>
    void MakeOwnerWritable(string path);

    /// <summary>A regular file with one name: writing into it changes no other name's content and no link's target.</summary>
    bool IsRegularFileWithOneName(string path);

    /// <summary>A hidden new name beside <paramref name="destinationPath"/>, in its folder (<see cref="AtomicFile.TemporaryPathBeside"/>).</summary>
    string TemporaryPathBeside(string destinationPath);

    /// <summary>An identity of the volume that holds the folder of <paramref name="path"/>, equal for two files on one volume.</summary>
    string VolumeOf(string path);
}

/// <summary>The real <see cref="IPlainFiles"/>: .NET's file APIs, and for link counts and volumes one stat per OS.</summary>
internal sealed class PlainFiles : IPlainFiles
{
    public void CopyFile(string sourcePath, string destinationPath, bool overwrite) => File.Copy(sourcePath, destinationPath, overwrite);

    public void Replace(string temporaryPath, string destinationPath) => AtomicFile.Replace(temporaryPath, destinationPath);

    public void DeleteQuietly(string path) => AtomicFile.DeleteQuietly(path);

    public bool Exists(string path) => File.Exists(path) || FileLinks.IsSymbolicLink(new FileInfo(path));

    public long Length(string path) => new FileInfo(path).Length;

    public bool CanCreate(string path)
    {
        try
        {
            new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.None).Dispose();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return false;
        }

        AtomicFile.DeleteQuietly(path);
        return true;
    }

    public void ThrowIfUnreadable(string sourcePath)
        => new FileStream(sourcePath, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, bufferSize: 1).Dispose();

    public void ThrowIfNotRegularFile(string sourcePath)
    {
#if NET
        if (OperatingSystem.IsLinux())
        {
            try
            {
                UnixFiles.OpenSourceForReading(sourcePath, out _).Dispose();
            }
            catch (Exception e) when (e is not NotARegularFileException)
            {
                // Not this check's business: the copy meets the same error and reports it the stock task's way.
            }
        }
#endif
    }

    public void MakeOwnerWritable(string path)
    {
        var file = new FileInfo(path);
        if ((file.Attributes & FileAttributes.ReadOnly) != 0)
        {
            file.Attributes &= ~FileAttributes.ReadOnly;
        }
    }

    public bool IsRegularFileWithOneName(string path)
    {
#if NET
        if (OperatingSystem.IsLinux())
        {
            return LinuxNative.TryStat(path, followLinks: false, out LinuxNative.FileStatus status) && status.IsRegularFile && status.Links == 1;
        }
#endif
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            var native = new WindowsNative();
            if (native.Open(path, WindowsAccess.ReadAttributes, WindowsShare.Read | WindowsShare.Write | WindowsShare.Delete, WindowsCreation.OpenExisting, out WindowsFile? file, WindowsOpenOptions.OpenReparsePoint) != 0
                || file is null)
            {
                return false;
            }

            using (file)
            {
                return native.GetFileFacts(file, out WindowsFileFacts facts) == 0 && !facts.IsReparsePoint && !facts.IsDirectory && facts.Links == 1;
            }
        }

        // macOS: no link count here; never written in place (the atomic rung's error stands).
        return false;
    }

    public string TemporaryPathBeside(string destinationPath) => AtomicFile.TemporaryPathBeside(destinationPath);

    public string VolumeOf(string path)
    {
        string folder = Path.GetDirectoryName(path) ?? path;
#if NET
        if (OperatingSystem.IsLinux())
        {
            return LinuxNative.TryStat(folder, followLinks: true, out LinuxNative.FileStatus status)
                ? status.Device.ToString(System.Globalization.CultureInfo.InvariantCulture)
                : folder;
        }

        if (OperatingSystem.IsMacOS())
        {
            return new MacNative().DeviceOf(folder, out ulong device) == 0 ? device.ToString(System.Globalization.CultureInfo.InvariantCulture) : folder;
        }
#endif
        // Windows: the drive or share. A volume mounted in a folder counts with its drive's: faults on one can stop the
        // engine being tried on the other, which costs clones there, never a file.
        return Path.GetPathRoot(folder) ?? folder;
    }
}
