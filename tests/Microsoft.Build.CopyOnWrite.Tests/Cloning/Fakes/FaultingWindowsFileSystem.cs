using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;

/// <summary>
/// Passes every Win32 call of the Windows engine on, except the one at <see cref="FailAt"/> (counting from 0), which
/// meets an <see cref="UnforeseenFault"/> instead of being made: the engine's error handling, and the fallback ladder
/// around it, at every step. Without <see cref="FailAt"/> it counts the calls a file takes.
/// </summary>
internal sealed class FaultingWindowsFileSystem : IWindowsFileSystem
{
    private readonly IWindowsFileSystem _inner;
    private readonly int? _failAt;
    private readonly UnforeseenFault? _fault;

    public FaultingWindowsFileSystem(IWindowsFileSystem inner, int? failAt = null, UnforeseenFault? fault = null)
    {
        _inner = inner;
        _failAt = failAt;
        _fault = fault;
    }

    public int Calls { get; private set; }

    /// <summary>The call that met the fault, e.g. "DuplicateExtents"; null until it did.</summary>
    public string? Failed { get; private set; }

    public int Open(string path, WindowsAccess access, WindowsShare share, WindowsCreation creation, out WindowsFile? file, WindowsOpenOptions options = WindowsOpenOptions.None)
    {
        file = null;
        return Due(nameof(Open)) ? _fault!.Raise() : _inner.Open(path, access, share, creation, out file, options);
    }

    public int GetFileFacts(WindowsFile file, out WindowsFileFacts facts)
    {
        facts = default;
        return Due(nameof(GetFileFacts)) ? _fault!.Raise() : _inner.GetFileFacts(file, out facts);
    }

    public int GetVolumeFlags(WindowsFile file, out uint flags, out string fileSystemName)
    {
        (flags, fileSystemName) = (0, string.Empty);
        return Due(nameof(GetVolumeFlags)) ? _fault!.Raise() : _inner.GetVolumeFlags(file, out flags, out fileSystemName);
    }

    public int IsOnNetworkShare(WindowsFile file, out bool remote)
    {
        remote = false;
        return Due(nameof(IsOnNetworkShare)) ? _fault!.Raise() : _inner.IsOnNetworkShare(file, out remote);
    }

    public int GetIntegrity(WindowsFile file, out WindowsIntegrity integrity)
    {
        integrity = default;
        return Due(nameof(GetIntegrity)) ? _fault!.Raise() : _inner.GetIntegrity(file, out integrity);
    }

    public int SetIntegrity(WindowsFile file, ushort checksumAlgorithm, uint flags)
        => Due(nameof(SetIntegrity)) ? _fault!.Raise() : _inner.SetIntegrity(file, checksumAlgorithm, flags);

    public int SetSparse(WindowsFile file, bool sparse)
        => Due(nameof(SetSparse)) ? _fault!.Raise() : _inner.SetSparse(file, sparse);

    public int SetEndOfFile(WindowsFile file, long size)
        => Due(nameof(SetEndOfFile)) ? _fault!.Raise() : _inner.SetEndOfFile(file, size);

    public int DuplicateExtents(WindowsFile source, WindowsFile destination, CloneChunk chunk)
        => Due(nameof(DuplicateExtents)) ? _fault!.Raise() : _inner.DuplicateExtents(source, destination, chunk);

    public int Flush(WindowsFile file)
        => Due(nameof(Flush)) ? _fault!.Raise() : _inner.Flush(file);

    public int SetBasicInfo(WindowsFile file, long creationTime, long lastAccessTime, long lastWriteTime, uint attributes)
        => Due(nameof(SetBasicInfo)) ? _fault!.Raise() : _inner.SetBasicInfo(file, creationTime, lastAccessTime, lastWriteTime, attributes);

    public int CountSharedClusters(WindowsFile file, out long sharedClusters)
    {
        sharedClusters = 0;
        return Due(nameof(CountSharedClusters)) ? _fault!.Raise() : _inner.CountSharedClusters(file, out sharedClusters);
    }

    public int CopyFile(string sourcePath, string destinationPath, bool replaceExisting, CancellationToken cancellationToken)
        => Due(nameof(CopyFile)) ? _fault!.Raise() : _inner.CopyFile(sourcePath, destinationPath, replaceExisting, cancellationToken);

    public int Rename(WindowsFile file, string destinationPath, bool posixSemantics)
        => Due(nameof(Rename)) ? _fault!.Raise() : _inner.Rename(file, destinationPath, posixSemantics);

    public int SetAttributes(string path, uint attributes)
        => Due(nameof(SetAttributes)) ? _fault!.Raise() : _inner.SetAttributes(path, attributes);

    public int Delete(string path)
        => Due(nameof(Delete)) ? _fault!.Raise() : _inner.Delete(path);

    private bool Due(string call)
    {
        bool due = Calls++ == _failAt;
        if (due)
        {
            Failed = call;
        }

        return due;
    }
}
