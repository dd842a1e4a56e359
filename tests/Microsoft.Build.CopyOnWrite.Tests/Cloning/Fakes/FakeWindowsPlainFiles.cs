using System;
using System.ComponentModel;
using System.IO;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;

/// <summary>
/// The fallback ladder's plain operations on a <see cref="FakeWindowsFileSystem"/>, as .NET makes them on Windows:
/// File.Copy is CopyFileExW, File.Move over a file is a replacing rename, File.Delete is DeleteFileW; failures are
/// thrown as .NET throws Win32 errors. So the ladder's rules run over the same fake volume as the engine's.
/// </summary>
internal sealed class FakeWindowsPlainFiles : IPlainFiles
{
    private const WindowsShare All = WindowsShare.Read | WindowsShare.Write | WindowsShare.Delete;
    private readonly FakeWindowsFileSystem _files;

    public FakeWindowsPlainFiles(FakeWindowsFileSystem files) => _files = files;

    /// <summary>How many operations the ladder asked for: none on the success path (the call budget's test checks it).</summary>
    public int Calls { get; private set; }

    public void CopyFile(string sourcePath, string destinationPath, bool overwrite)
        => Check(_files.CopyFile(sourcePath, destinationPath, overwrite, CancellationToken.None), destinationPath);

    public void Replace(string temporaryPath, string destinationPath)
    {
        Check(_files.Open(temporaryPath, WindowsAccess.Delete, All, WindowsCreation.OpenExisting, out WindowsFile? file), temporaryPath);
        using (file)
        {
            Check(_files.Rename(file!, destinationPath, posixSemantics: false), destinationPath);
        }
    }

    public void DeleteQuietly(string path) => _files.Delete(path);

    public bool Exists(string path) => _files.Exists(path);

    public long Length(string path) => _files[path].Data.Length;

    public bool CanCreate(string path)
    {
        if (_files.Open(path, WindowsAccess.Write, WindowsShare.None, WindowsCreation.CreateNew, out WindowsFile? file) != 0)
        {
            return false;
        }

        file!.Dispose();
        _files.Delete(path);
        return true;
    }

    public void ThrowIfUnreadable(string sourcePath)
    {
        Check(_files.Open(sourcePath, WindowsAccess.Read, All, WindowsCreation.OpenExisting, out WindowsFile? file), sourcePath);
        file!.Dispose();
    }

    public void ThrowIfNotRegularFile(string sourcePath) => Calls++;

    public void MakeOwnerWritable(string path)
    {
        uint attributes = _files[path].Attributes;
        if ((attributes & WindowsCloneDecisions.FileAttributeReadOnly) != 0)
        {
            Check(_files.SetAttributes(path, attributes & ~WindowsCloneDecisions.FileAttributeReadOnly), path);
        }
    }

    public bool IsRegularFileWithOneName(string path)
    {
        if (_files.Open(path, WindowsAccess.ReadAttributes, All, WindowsCreation.OpenExisting, out WindowsFile? file, WindowsOpenOptions.OpenReparsePoint) != 0)
        {
            return false;
        }

        using (file)
        {
            return _files.GetFileFacts(file!, out WindowsFileFacts facts) == 0 && !facts.IsReparsePoint && !facts.IsDirectory && facts.Links == 1;
        }
    }

    public string TemporaryPathBeside(string destinationPath)
    {
        Calls++;
        return WindowsPaths.TemporaryPathBeside(destinationPath);
    }

    public VolumePair VolumesOf(string sourcePath, string destinationPath)
    {
        Calls++;
        return VolumePair.BetweenRoots(sourcePath.Substring(0, WindowsPaths.RootLength(sourcePath)), destinationPath.Substring(0, WindowsPaths.RootLength(destinationPath)));
    }

    private static void Check(int error, string path)
    {
        if (error != 0)
        {
            throw new IOException($"{new Win32Exception(error).Message} : '{path}'", unchecked((int)0x80070000) | error);
        }
    }
}
