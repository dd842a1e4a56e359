#if NET
using System;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// The system calls of the macOS engine, each answering with its errno (0: success; open, read and write throw as
/// File.Copy's FileStream would), so the engine's rules are tested on any OS; <see cref="MacNative"/> is the real one.
/// </summary>
internal interface IMacFileSystem
{
    /// <summary>open(O_RDONLY): the source, read by descriptor from here on.</summary>
    MacFile OpenForReading(string path);

    /// <summary>open(O_WRONLY | O_CREAT | O_EXCL): a new file that must not exist.</summary>
    MacFile CreateNew(string path);

    /// <summary>fstat.</summary>
    int Stat(MacFile file, out MacFileStatus status);

    /// <summary>stat of a folder: the device its new files will be on.</summary>
    int DeviceOf(string folder, out ulong device);

    /// <summary>statfs f_fstypename ("apfs", "hfs", "smbfs"...), for the log; null if the volume will not say.</summary>
    string? FileSystemTypeName(string folder);

    /// <summary>fclonefileat(source, AT_FDCWD, destination, flags): the destination must not exist.</summary>
    int CloneFrom(MacFile source, string destinationPath, uint flags);

    /// <summary>read; 0 at the end.</summary>
    int Read(MacFile file, byte[] buffer);

    /// <summary>write, all of it.</summary>
    void Write(MacFile file, byte[] buffer, int count);

    /// <summary>fcopyfile(COPYFILE_METADATA): mode, flags, times, extended attributes and ACL, as File.Copy's fallback keeps them.</summary>
    int CopyMetadata(MacFile source, MacFile destination);

    /// <summary>chmod.</summary>
    int SetPermissions(string path, uint mode);

    /// <summary>fchmod.</summary>
    int SetPermissions(MacFile file, uint mode);

    /// <summary>rename(2): replaces the destination's directory entry in one step.</summary>
    int Rename(string fromPath, string toPath);

    /// <summary>unlink.</summary>
    int Unlink(string path);
}

/// <summary>An open file of an <see cref="IMacFileSystem"/>; disposing closes it.</summary>
internal abstract class MacFile : IDisposable
{
    public abstract void Dispose();
}
#endif
