using System.IO;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;

/// <summary>
/// The fallback ladder's plain operations on a <see cref="FakeMacFileSystem"/>, as .NET makes them on macOS: File.Copy
/// reads and writes the bytes and copies the metadata (copyfile), File.Move over a file is rename(2), File.Delete is
/// unlink. Link counts are not known there, as in the real <see cref="PlainFiles"/> on macOS, so nothing is written in place.
/// </summary>
internal sealed class FakeMacPlainFiles : IPlainFiles
{
    private readonly FakeMacFileSystem _files;

    public FakeMacPlainFiles(FakeMacFileSystem files) => _files = files;

    public void CopyFile(string sourcePath, string destinationPath, bool overwrite)
    {
        if (overwrite)
        {
            _files.Unlink(destinationPath);
        }

        using MacFile source = _files.OpenForReading(sourcePath);
        using MacFile destination = _files.CreateNew(destinationPath);
        byte[] buffer = new byte[1 << 16];
        for (int read; (read = _files.Read(source, buffer)) > 0;)
        {
            _files.Write(destination, buffer, read);
        }

        Check(_files.CopyMetadata(source, destination), destinationPath);
    }

    public void Replace(string temporaryPath, string destinationPath) => Check(_files.Rename(temporaryPath, destinationPath), destinationPath);

    public void DeleteQuietly(string path) => _files.Unlink(path);

    public bool Exists(string path) => _files.Exists(path);

    public long Length(string path) => _files[path].Data.Length;

    public bool CanCreate(string path)
    {
        try
        {
            _files.CreateNew(path).Dispose();
        }
        catch (IOException)
        {
            return false;
        }

        _files.Unlink(path);
        return true;
    }

    public void ThrowIfUnreadable(string sourcePath) => _files.OpenForReading(sourcePath).Dispose();

    public void ThrowIfNotRegularFile(string sourcePath)
    {
    }

    public void MakeOwnerWritable(string path) => _files[path].Mode |= 0x80;

    public bool IsRegularFileWithOneName(string path) => false;

    public string TemporaryPathBeside(string destinationPath) => AtomicFile.TemporaryPathBeside(destinationPath);

    public VolumePair VolumesOf(string sourcePath, string destinationPath)
        => _files.DeviceOf(sourcePath, out ulong source) == 0 && _files.DeviceOf(Path.GetDirectoryName(destinationPath) ?? destinationPath, out ulong destination) == 0
            ? new VolumePair(source, destination, 0)
            : throw new IOException($"Could not stat '{sourcePath}' or the folder of '{destinationPath}'.");

    private static void Check(int errno, string path)
    {
        if (errno != 0)
        {
            throw new IOException($"Unknown error: {errno} : '{path}'", errno);
        }
    }
}
