using System;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>The Windows engine's system calls, each answering its Win32 error, so its rules run on any OS.</summary>
internal interface IWindowsFileSystem
{
    /// <summary>CreateFileW (<paramref name="options"/>: its FILE_FLAG_* bits).</summary>
    int Open(string path, WindowsAccess access, WindowsShare share, WindowsCreation creation, out WindowsFile? file, WindowsOpenOptions options = WindowsOpenOptions.None);

    /// <summary>
    /// GetFileInformationByHandle, then GetFileInformationByHandleEx(FileIdInfo) for the volume's whole 64-bit serial
    /// (the first call gives only its low 32 bits, which two ReFS volumes can share).
    /// </summary>
    int GetFileFacts(WindowsFile file, out WindowsFileFacts facts);

    /// <summary>GetVolumeInformationByHandleW (SMB shares answer for the server's volume).</summary>
    int GetVolumeFlags(WindowsFile file, out uint flags, out string fileSystemName);

    /// <summary>GetFileInformationByHandleEx(FileRemoteProtocolInfo): succeeds only for a file on a network share.</summary>
    int IsOnNetworkShare(WindowsFile file, out bool remote);

    /// <summary>FSCTL_GET_INTEGRITY_INFORMATION: the file's checksum setting and the volume's cluster size.</summary>
    int GetIntegrity(WindowsFile file, out WindowsIntegrity integrity);

    /// <summary>FSCTL_SET_INTEGRITY_INFORMATION on an empty file.</summary>
    int SetIntegrity(WindowsFile file, ushort checksumAlgorithm, uint flags);

    /// <summary>FSCTL_SET_SPARSE with FILE_SET_SPARSE_BUFFER.SetSparse.</summary>
    int SetSparse(WindowsFile file, bool sparse);

    /// <summary>SetFileInformationByHandle(FileEndOfFileInfo).</summary>
    int SetEndOfFile(WindowsFile file, long size);

    /// <summary>FSCTL_DUPLICATE_EXTENTS_TO_FILE on the destination: <paramref name="chunk"/> of it shares the source's clusters.</summary>
    int DuplicateExtents(WindowsFile source, WindowsFile destination, CloneChunk chunk);

    /// <summary>FlushFileBuffers (the handle must be open for writing): writes the file's cached data and syncs the whole device's cache.</summary>
    int Flush(WindowsFile file);

    /// <summary>SetFileInformationByHandle(FileBasicInfo): a 0 time leaves that time as it is.</summary>
    int SetBasicInfo(WindowsFile file, long creationTime, long lastAccessTime, long lastWriteTime, uint attributes);

    /// <summary>FSCTL_GET_RETRIEVAL_POINTERS_AND_REFCOUNT, metadata only: allocated clusters also shared.</summary>
    int CountSharedClusters(WindowsFile file, out long sharedClusters);

    /// <summary>
    /// CopyFileExW, cancellable, as File.Copy calls it: data, streams, extended attributes, attributes, last-write
    /// time. Not CopyFile2: Wine 8, which runs the Windows parity suite, does not export it.
    /// </summary>
    /// <param name="replaceExisting">No COPY_FILE_FAIL_IF_EXISTS: only for a destination no rename can replace.</param>
    int CopyFile(string sourcePath, string destinationPath, bool replaceExisting, CancellationToken cancellationToken);

    /// <summary>
    /// Renames the file, open with DELETE access, over <paramref name="destinationPath"/>: FileRenameInfoEx with
    /// REPLACE_IF_EXISTS | POSIX_SEMANTICS when <paramref name="posixSemantics"/>, else FileRenameInfo.ReplaceIfExists.
    /// </summary>
    int Rename(WindowsFile file, string destinationPath, bool posixSemantics);

    /// <summary>SetFileAttributesW.</summary>
    int SetAttributes(string path, uint attributes);

    /// <summary>DeleteFileW (refused for a read-only file).</summary>
    int Delete(string path);
}

/// <summary>An open file of an <see cref="IWindowsFileSystem"/>; disposing closes it.</summary>
internal abstract class WindowsFile : IDisposable
{
    public abstract void Dispose();
}

/// <summary>The access rights the engine asks for (CreateFileW dwDesiredAccess).</summary>
[Flags]
internal enum WindowsAccess : uint
{
    ReadAttributes = 0x0080,          // FILE_READ_ATTRIBUTES
    WriteAttributes = 0x0100,         // FILE_WRITE_ATTRIBUTES
    Delete = 0x0001_0000,             // DELETE: needed to rename the file by its handle
    Write = 0x4000_0000,              // GENERIC_WRITE
    Read = 0x8000_0000,               // GENERIC_READ
}

/// <summary>CreateFileW dwShareMode.</summary>
[Flags]
internal enum WindowsShare : uint
{
    None = 0,
    Read = 1,
    Write = 2,
    Delete = 4,
}

/// <summary>CreateFileW dwFlagsAndAttributes flags beyond FILE_ATTRIBUTE_NORMAL.</summary>
[Flags]
internal enum WindowsOpenOptions : uint
{
    None = 0,
    OpenReparsePoint = 0x0020_0000,   // FILE_FLAG_OPEN_REPARSE_POINT: a link itself, not what it points to
    NoBuffering = 0x2000_0000,        // FILE_FLAG_NO_BUFFERING: a non-cached handle
}

/// <summary>CreateFileW dwCreationDisposition.</summary>
internal enum WindowsCreation : uint
{
    CreateNew = 1,
    OpenExisting = 3,
}

/// <summary>What GetFileInformationByHandle(Ex) says about one open file. Times are FILETIMEs (UTC).</summary>
/// <param name="VolumeSerial">FILE_ID_INFO.VolumeSerialNumber where the file system gives it, else the 32-bit serial.</param>
/// <param name="Links">The number of names (hard links) the file has.</param>
internal readonly record struct WindowsFileFacts(long Size, ulong VolumeSerial, uint Attributes, long LastWriteTime = 0, uint Links = 1)
{
    public bool IsSparse => (Attributes & WindowsCloneDecisions.FileAttributeSparseFile) != 0;

    public bool HasIntegrityStream => (Attributes & WindowsCloneDecisions.FileAttributeIntegrityStream) != 0;

    public bool IsDirectory => (Attributes & WindowsCloneDecisions.FileAttributeDirectory) != 0;

    public bool IsReparsePoint => (Attributes & WindowsCloneDecisions.FileAttributeReparsePoint) != 0;
}

/// <summary>FSCTL_GET_INTEGRITY_INFORMATION_BUFFER, as far as the engine reads it.</summary>
internal readonly record struct WindowsIntegrity(ushort ChecksumAlgorithm, uint Flags, uint ClusterBytes);

/// <summary>One block clone call: the same range of source and destination.</summary>
internal readonly record struct CloneChunk(long Offset, long Length);
