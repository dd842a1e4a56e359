using System;
using System.IO;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>The <see cref="FallbackLadder"/>'s plain file calls, the stock task's own; a seam for fakes.</summary>
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

    /// <summary>Throws <see cref="NotARegularFileException"/> for a FIFO or device, where the OS can tell.</summary>
    void ThrowIfNotRegularFile(string sourcePath);

    /// <summary>The stock task's rule: a copy of a read-only source is writable by its owner.</summary>
    void MakeOwnerWritable(string path);

    /// <summary>A regular file with one name: writing into it changes no other name's content and no link's target.</summary>
    bool IsRegularFileWithOneName(string path);

    /// <summary>A hidden new name beside <paramref name="destinationPath"/>, in its folder (<see cref="AtomicFile.TemporaryPathBeside"/>).</summary>
    string TemporaryPathBeside(string destinationPath);

    /// <summary>The volumes this copy goes between, keyed as the engine's refusal cache keys them.</summary>
    VolumePair VolumesOf(string sourcePath, string destinationPath);
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

    public VolumePair VolumesOf(string sourcePath, string destinationPath)
    {
        string destinationFolder = Path.GetDirectoryName(destinationPath) ?? destinationPath;
#if NET
        if (OperatingSystem.IsLinux())
        {
            // As the Linux engine keys its refusals: the source's st_dev, the statfs of where the new file goes.
            if (!LinuxNative.TryStat(sourcePath, followLinks: true, out LinuxNative.FileStatus source))
            {
                throw new IOException($"Could not stat '{sourcePath}'.");
            }

            int folder = LinuxNative.Open(destinationFolder, LinuxNative.OpenReadOnly | LinuxNative.OpenCloseOnExec);
            if (folder < 0)
            {
                throw new IOException($"Could not open '{destinationFolder}'.");
            }

            using var handle = new SafeFileHandle((IntPtr)folder, ownsHandle: true);
            LinuxNative.FileSystem(folder, LinuxNative.StatfsLayoutFor(RuntimeInformation.ProcessArchitecture), out long type, out ulong id);
            return new VolumePair(source.Device, id, type);
        }

        if (OperatingSystem.IsMacOS())
        {
            // As the macOS engine keys them: the source's device and the destination folder's.
            var native = new MacNative();
            return native.DeviceOf(sourcePath, out ulong source) == 0 && native.DeviceOf(destinationFolder, out ulong destination) == 0
                ? new VolumePair(source, destination, 0)
                : throw new IOException($"Could not stat '{sourcePath}' or '{destinationFolder}'.");
        }
#endif
        // Windows: the drive or share. A volume mounted in a folder counts with its drive's: faults on one can stop the
        // engine being tried on the other, which costs clones there, never a file.
        return VolumePair.BetweenRoots(Path.GetPathRoot(sourcePath) ?? sourcePath, Path.GetPathRoot(destinationFolder) ?? destinationFolder);
    }
}
