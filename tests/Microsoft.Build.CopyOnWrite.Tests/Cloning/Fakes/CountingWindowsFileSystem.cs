using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;

/// <summary>
/// Counts the Win32 calls the Windows engine makes through <see cref="IWindowsFileSystem"/>, by the kind of cost they
/// carry, and passes each one on unchanged. The call budget in docs/windows-engine.md is asserted with it
/// (<see cref="WindowsCallBudgetTests"/>). Handles are wrapped so that closing one counts too.
/// </summary>
internal sealed class CountingWindowsFileSystem : IWindowsFileSystem
{
    private readonly IWindowsFileSystem _inner;

    public CountingWindowsFileSystem(IWindowsFileSystem inner) => _inner = inner;

    public WindowsCallCounts Counts { get; private set; } = new();

    public void Reset() => Counts = new WindowsCallCounts();

    public int Open(string path, WindowsAccess access, WindowsShare share, WindowsCreation creation, out WindowsFile? file, WindowsOpenOptions options = WindowsOpenOptions.None)
    {
        Counts.Opens++;
        int error = _inner.Open(path, access, share, creation, out WindowsFile? opened, options);
        file = opened is null ? null : new CountedFile(this, opened);
        return error;
    }

    // GetFileInformationByHandle, then GetFileInformationByHandleEx(FileIdInfo): two calls.
    public int GetFileFacts(WindowsFile file, out WindowsFileFacts facts)
    {
        Counts.Queries += 2;
        return _inner.GetFileFacts(Inner(file), out facts);
    }

    public int GetVolumeFlags(WindowsFile file, out uint flags, out string fileSystemName)
    {
        Counts.Queries++;
        return _inner.GetVolumeFlags(Inner(file), out flags, out fileSystemName);
    }

    public int IsOnNetworkShare(WindowsFile file, out bool remote)
    {
        Counts.Queries++;
        return _inner.IsOnNetworkShare(Inner(file), out remote);
    }

    public int GetIntegrity(WindowsFile file, out WindowsIntegrity integrity)
    {
        Counts.Queries++;
        return _inner.GetIntegrity(Inner(file), out integrity);
    }

    public int SetIntegrity(WindowsFile file, ushort checksumAlgorithm, uint flags)
    {
        Counts.Changes++;
        return _inner.SetIntegrity(Inner(file), checksumAlgorithm, flags);
    }

    public int SetSparse(WindowsFile file, bool sparse)
    {
        Counts.Changes++;
        return _inner.SetSparse(Inner(file), sparse);
    }

    public int SetEndOfFile(WindowsFile file, long size)
    {
        Counts.Changes++;
        return _inner.SetEndOfFile(Inner(file), size);
    }

    public int DuplicateExtents(WindowsFile source, WindowsFile destination, CloneChunk chunk)
    {
        Counts.Clones++;
        return _inner.DuplicateExtents(Inner(source), Inner(destination), chunk);
    }

    public int Flush(WindowsFile file)
    {
        Counts.DeviceFlushes++;
        return _inner.Flush(Inner(file));
    }

    public int SetBasicInfo(WindowsFile file, long creationTime, long lastAccessTime, long lastWriteTime, uint attributes)
    {
        Counts.Changes++;
        return _inner.SetBasicInfo(Inner(file), creationTime, lastAccessTime, lastWriteTime, attributes);
    }

    // One call per 64 extents: the fake's files, like a build's, have fewer.
    public int CountSharedClusters(WindowsFile file, out long sharedClusters)
    {
        Counts.Queries++;
        return _inner.CountSharedClusters(Inner(file), out sharedClusters);
    }

    public int CopyFile(string sourcePath, string destinationPath, bool replaceExisting, CancellationToken cancellationToken)
    {
        Counts.ByteCopies++;
        return _inner.CopyFile(sourcePath, destinationPath, replaceExisting, cancellationToken);
    }

    public int Rename(WindowsFile file, string destinationPath, bool posixSemantics)
    {
        Counts.Changes++;
        return _inner.Rename(Inner(file), destinationPath, posixSemantics);
    }

    public int SetAttributes(string path, uint attributes)
    {
        Counts.Changes++;
        return _inner.SetAttributes(path, attributes);
    }

    public int Delete(string path)
    {
        Counts.Changes++;
        return _inner.Delete(path);
    }

    private static WindowsFile Inner(WindowsFile file) => ((CountedFile)file).Inner;

    private sealed class CountedFile : WindowsFile
    {
        private readonly CountingWindowsFileSystem _owner;
        private bool _closed;

        public CountedFile(CountingWindowsFileSystem owner, WindowsFile inner)
        {
            _owner = owner;
            Inner = inner;
        }

        public WindowsFile Inner { get; }

        public override void Dispose()
        {
            if (!_closed)
            {
                _closed = true;
                _owner.Counts.Closes++;
                Inner.Dispose();
            }
        }
    }
}

/// <summary>Win32 calls by the kind of cost they carry (the columns of the call budget).</summary>
internal sealed record WindowsCallCounts
{
    /// <summary>CreateFileW.</summary>
    public int Opens { get; set; }

    /// <summary>CloseHandle.</summary>
    public int Closes { get; set; }

    /// <summary>Metadata questions: file facts, volume flags, cluster size, the refcount query.</summary>
    public int Queries { get; set; }

    /// <summary>Metadata changes: size, sparse, integrity, times and attributes, rename, delete.</summary>
    public int Changes { get; set; }

    /// <summary>FSCTL_DUPLICATE_EXTENTS_TO_FILE.</summary>
    public int Clones { get; set; }

    /// <summary>FlushFileBuffers: the file's cached data, and the whole device's write cache.</summary>
    public int DeviceFlushes { get; set; }

    /// <summary>CopyFileExW: reads every byte of the source and writes it (unless Windows clones by itself).</summary>
    public int ByteCopies { get; set; }

    public int Total => Opens + Closes + Queries + Changes + Clones + DeviceFlushes + ByteCopies;
}
