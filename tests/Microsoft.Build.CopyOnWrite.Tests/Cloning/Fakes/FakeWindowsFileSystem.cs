using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;

/// <summary>
/// Windows volumes in memory, keeping the documented rules the engine must live with, so that its step order,
/// chunking, error handling and caching run on Linux:
/// <list type="bullet">
/// <item>CreateFile sharing: a new handle's access must be shared by every open handle, and its share mode must
/// allow their access (else ERROR_SHARING_VIOLATION).</item>
/// <item>FSCTL_DUPLICATE_EXTENTS_TO_FILE: same volume (17), a volume with FILE_SUPPORTS_BLOCK_REFCOUNTING (1),
/// cluster-aligned offset and length (87), a range inside both files' last cluster, so EOF is set first (87), a
/// sparse source only into a sparse destination (87), equal integrity settings (87), at most 8,175 references to a
/// cluster (347). It shares what is on the disk: data a writer left in the cache has no clusters yet (delayed
/// allocation), so that part of a clone reads back as zeros and shares nothing, which the refcount query shows.
/// FlushFileBuffers puts the data on the disk.</item>
/// <item>FSCTL_GET_RETRIEVAL_POINTERS_AND_REFCOUNT counts the clusters a file shares with another.</item>
/// <item>SetEndOfFile of a file that is not sparse allocates, and fails with ERROR_DISK_FULL past the free space.</item>
/// <item>A replacing rename needs DELETE access; over a file others hold open, the classic rename is refused (5),
/// the POSIX one goes through when every handle shares delete (else 32), where the volume has POSIX renames (else 87).</item>
/// <item>CopyFileExW copies data, attributes, last-write time and alternate data streams, fails if the destination
/// exists (80) unless asked to replace it, then writes into it under its holders (they must share writing, else 32;
/// read-only: 5), and on a volume marked as Windows 11 24H2 clones by itself.</item>
/// </list>
/// Every call is written to <see cref="Calls"/> so tests can check the order of steps; failures can be injected per call.
/// </summary>
internal sealed class FakeWindowsFileSystem : IWindowsFileSystem
{
    public const int MaxReferencesPerCluster = 8175;

    private readonly Dictionary<string, FakeNode> _files = new(StringComparer.OrdinalIgnoreCase);
    private readonly HashSet<string> _folders = new(StringComparer.OrdinalIgnoreCase);
    private readonly List<FakeVolume> _volumes = new();
    private readonly Dictionary<string, Queue<int>> _failures = new(StringComparer.Ordinal);
    private readonly object _lock = new();

    // Calls and injected failures, apart from _lock: a test may hold a call back (OnCall) while other threads go on.
    private readonly object _callsLock = new();

    public List<string> Calls { get; } = new();

    /// <summary>Called with each call's name as it is made (e.g. to cancel in the middle of a copy).</summary>
    public Action<string>? OnCall { get; set; }

    public int CallsTo(string call) => Calls.Count(line => line.StartsWith(call + " ", StringComparison.Ordinal));

    /// <summary>Position of the first call that starts with <paramref name="prefix"/>; -1 when none.</summary>
    public int IndexOfCall(string prefix) => Calls.FindIndex(line => line.StartsWith(prefix, StringComparison.Ordinal));

    public FakeVolume AddVolume(string root, string fileSystemName, ulong serial, bool blockCloning, uint clusterBytes = 4096)
    {
        var volume = new FakeVolume(root, fileSystemName, serial, blockCloning ? WindowsCloneDecisions.FileSupportsBlockRefcounting | 0x3u : 0x3u, clusterBytes);
        _volumes.Add(volume);
        _folders.Add(root.TrimEnd('\\'));
        return volume;
    }

    public void AddFolder(string path) => _folders.Add(path.TrimEnd('\\'));

    /// <summary>A file whose data reached the disk long ago.</summary>
    public FakeNode AddFile(string path, byte[] data, long lastWriteTime, uint attributes = 0x20)
    {
        var node = new FakeNode(data, data, attributes, lastWriteTime);
        _files[path] = node;
        return node;
    }

    /// <summary>A file a writer has just written: its data sits in the cache, the disk still holds zeros.</summary>
    public FakeNode AddJustWrittenFile(string path, byte[] data, long lastWriteTime)
    {
        var node = new FakeNode(data, new byte[data.Length], 0x20, lastWriteTime) { Allocated = false };
        _files[path] = node;
        return node;
    }

    public bool Exists(string path) => _files.ContainsKey(path);

    public FakeNode this[string path] => _files[path];

    public IEnumerable<string> FilesIn(string folder) => _files.Keys.Where(path => string.Equals(FolderOf(path), folder.TrimEnd('\\'), StringComparison.OrdinalIgnoreCase));

    /// <summary>Opens a handle as another process would (e.g. a writer still at it, or a reader).</summary>
    public WindowsFile OpenAsAnotherProcess(string path, WindowsAccess access, WindowsShare share)
    {
        int error = Open(path, access, share, WindowsCreation.OpenExisting, out WindowsFile? file);
        return error == 0 ? file! : throw new InvalidOperationException($"The test could not open {path}: error {error}");
    }

    /// <summary>The next <paramref name="times"/> calls of <paramref name="call"/> (a member name of the interface) fail with <paramref name="error"/>.</summary>
    public void Fail(string call, int error, int times = 1)
    {
        if (!_failures.TryGetValue(call, out Queue<int>? queue))
        {
            _failures[call] = queue = new Queue<int>();
        }

        for (int i = 0; i < times; i++)
        {
            queue.Enqueue(error);
        }
    }

    public int Open(string path, WindowsAccess access, WindowsShare share, WindowsCreation creation, out WindowsFile? file, WindowsOpenOptions options = WindowsOpenOptions.None)
    {
        lock (_lock)
        {
            file = null;
            int error = Injected(nameof(Open), path, options == WindowsOpenOptions.None ? null : options.ToString());
            if (error != 0)
            {
                return error;
            }

            if (!_folders.Contains(FolderOf(path)))
            {
                return WindowsErrors.PathNotFound;
            }

            bool exists = _files.TryGetValue(path, out FakeNode? node);
            if (creation == WindowsCreation.CreateNew)
            {
                if (exists)
                {
                    return WindowsErrors.FileExists;
                }

                node = new FakeNode(Array.Empty<byte>(), Array.Empty<byte>(), 0x20, 0) { Integrity = VolumeOf(path).NewFilesHaveIntegrity };
                _files[path] = node;
            }
            else if (!exists)
            {
                return WindowsErrors.FileNotFound;
            }

            // Writing a read-only file is refused; so is DELETE access to one under Wine 8 (unconfirmed for Windows,
            // whose renames of read-only files work): the stricter rule keeps the engine right on both.
            if ((access & (WindowsAccess.Write | WindowsAccess.Delete)) != 0 && (node!.Attributes & WindowsCloneDecisions.FileAttributeReadOnly) != 0)
            {
                return WindowsErrors.AccessDenied;
            }

            foreach (FakeHandle other in node!.OpenHandles)
            {
                if (!Shares(other.Share, access) || !Shares(share, other.Access))
                {
                    return WindowsErrors.SharingViolation;
                }
            }

            var handle = new FakeHandle(this, node, path, access, share);
            node.OpenHandles.Add(handle);
            file = handle;
            return 0;
        }
    }

    public int GetFileFacts(WindowsFile file, out WindowsFileFacts facts)
    {
        FakeHandle handle = Use(file);
        facts = default;
        int error = Injected(nameof(GetFileFacts), handle.Path);
        if (error != 0)
        {
            return error;
        }

        facts = new WindowsFileFacts(handle.Node.Data.Length, VolumeOf(handle.Path).Serial, handle.Node.AllAttributes, handle.Node.LastWriteTime, handle.Node.Links);
        return 0;
    }

    public int GetVolumeFlags(WindowsFile file, out uint flags, out string fileSystemName)
    {
        FakeHandle handle = Use(file);
        FakeVolume volume = VolumeOf(handle.Path);
        volume.FlagQueries++;
        (flags, fileSystemName) = (volume.Flags, volume.FileSystemName);
        return Injected(nameof(GetVolumeFlags), handle.Path);
    }

    public int IsOnNetworkShare(WindowsFile file, out bool remote)
    {
        FakeHandle handle = Use(file);
        remote = VolumeOf(handle.Path).IsNetworkShare;
        return 0;
    }

    public int GetIntegrity(WindowsFile file, out WindowsIntegrity integrity)
    {
        FakeHandle handle = Use(file);
        FakeVolume volume = VolumeOf(handle.Path);
        volume.IntegrityQueries++;
        integrity = default;
        int error = Injected(nameof(GetIntegrity), handle.Path);
        if (error != 0)
        {
            return error;
        }

        if (!volume.IsReFS)
        {
            return 1; // ERROR_INVALID_FUNCTION: NTFS has no integrity streams
        }

        integrity = new WindowsIntegrity(handle.Node.Integrity ? (ushort)2 : (ushort)0, 0, volume.ClusterBytes);
        return 0;
    }

    public int SetIntegrity(WindowsFile file, ushort checksumAlgorithm, uint flags)
    {
        FakeHandle handle = Use(file);
        int error = Injected(nameof(SetIntegrity), handle.Path);
        if (error != 0)
        {
            return error;
        }

        if (!VolumeOf(handle.Path).AllowsSettingIntegrity)
        {
            return WindowsErrors.AccessDenied; // as Dev Drive has answered
        }

        handle.Node.Integrity = checksumAlgorithm != 0;
        return 0;
    }

    public int SetSparse(WindowsFile file, bool sparse)
    {
        FakeHandle handle = Use(file);
        int error = Injected(nameof(SetSparse), handle.Path, sparse.ToString());
        if (error != 0)
        {
            return error;
        }

        handle.Node.Sparse = sparse;
        return 0;
    }

    public int SetEndOfFile(WindowsFile file, long size)
    {
        FakeHandle handle = Use(file);
        int error = Injected(nameof(SetEndOfFile), handle.Path, size.ToString());
        if (error != 0)
        {
            return error;
        }

        FakeVolume volume = VolumeOf(handle.Path);
        long growth = size - handle.Node.Data.Length;
        if (!handle.Node.Sparse && growth > volume.FreeBytes)
        {
            return WindowsErrors.DiskFull;
        }

        if (!handle.Node.Sparse)
        {
            volume.FreeBytes -= Math.Max(0, growth);
        }

        handle.Node.Resize(size, volume.ClusterBytes);
        return 0;
    }

    /// <summary>The most clone calls from one source that were under way at the same moment (several threads).</summary>
    public int MostClonesOfOneSourceAtOnce { get; private set; }

    public int DuplicateExtents(WindowsFile source, WindowsFile destination, CloneChunk chunk)
    {
        FakeHandle from = Use(source);
        lock (_callsLock)
        {
            MostClonesOfOneSourceAtOnce = Math.Max(MostClonesOfOneSourceAtOnce, ++from.Node.ClonesUnderWay);
        }

        try
        {
            return DuplicateExtentsNow(from, Use(destination), chunk);
        }
        finally
        {
            lock (_callsLock)
            {
                from.Node.ClonesUnderWay--;
            }
        }
    }

    private int DuplicateExtentsNow(FakeHandle from, FakeHandle to, CloneChunk chunk)
    {
        int error = Injected(nameof(DuplicateExtents), to.Path, $"{chunk.Offset}+{chunk.Length}");
        if (error != 0)
        {
            return error;
        }

        FakeVolume volume = VolumeOf(to.Path);
        long cluster = volume.ClusterBytes;
        if (VolumeOf(from.Path) != volume)
        {
            return 17; // ERROR_NOT_SAME_DEVICE
        }

        if (!WindowsCloneDecisions.SupportsBlockCloning(volume.Flags))
        {
            return 1; // ERROR_INVALID_FUNCTION
        }

        if ((from.Access & WindowsAccess.Read) == 0 || (to.Access & WindowsAccess.Write) == 0)
        {
            return WindowsErrors.AccessDenied;
        }

        if (chunk.Offset % cluster != 0 || chunk.Length % cluster != 0
            || chunk.Offset + chunk.Length > RoundUp(to.Node.Data.Length, cluster)
            || chunk.Offset + chunk.Length > RoundUp(from.Node.Data.Length, cluster)
            || (from.Node.Sparse && !to.Node.Sparse)
            || from.Node.Integrity != to.Node.Integrity)
        {
            return 87; // ERROR_INVALID_PARAMETER
        }

        if (from.Node.References >= MaxReferencesPerCluster)
        {
            return WindowsCloneDecisions.TooManyReferences;
        }

        long end = Math.Min(chunk.Offset + chunk.Length, to.Node.Data.Length);
        for (long i = chunk.Offset; i < end; i++)
        {
            to.Node.Data[i] = from.Node.Allocated ? from.Node.OnDisk[i] : (byte)0;
            to.Node.OnDisk[i] = to.Node.Data[i];
        }

        if (from.Node.Allocated)
        {
            // Cloning over clusters the file already shares (a second attempt into the same file) shares no more of them.
            long clusters = RoundUp(end - chunk.Offset, cluster) / cluster;
            to.Node.SharedClusters = Math.Min(to.Node.SharedClusters + clusters, RoundUp(to.Node.Data.Length, cluster) / cluster);
            from.Node.References++;
            from.Node.SharedClusters = Math.Max(from.Node.SharedClusters, clusters);
        }

        return 0;
    }

    public int Flush(WindowsFile file)
    {
        FakeHandle handle = Use(file);
        int error = Injected(nameof(Flush), handle.Path);
        if (error != 0)
        {
            return error;
        }

        if ((handle.Access & WindowsAccess.Write) == 0)
        {
            return WindowsErrors.AccessDenied;
        }

        handle.Node.OnDisk = (byte[])handle.Node.Data.Clone();
        handle.Node.Allocated = true;
        Flushes++;
        return 0;
    }

    /// <summary>Device-wide cache flushes so far (FlushFileBuffers syncs the whole device, not only the file).</summary>
    public int Flushes { get; private set; }

    /// <summary>The lazy writer has written this file's cached data: it is on the disk now.</summary>
    public void LazyWrite(string path)
    {
        FakeNode node = _files[path];
        node.OnDisk = (byte[])node.Data.Clone();
        node.Allocated = true;
    }

    public int SetBasicInfo(WindowsFile file, long creationTime, long lastAccessTime, long lastWriteTime, uint attributes)
    {
        FakeHandle handle = Use(file);
        int error = Injected(nameof(SetBasicInfo), handle.Path, $"{lastWriteTime} 0x{attributes:X}");
        if (error != 0)
        {
            return error;
        }

        if (lastWriteTime != 0)
        {
            handle.Node.LastWriteTime = lastWriteTime;
        }

        if (attributes != 0)
        {
            handle.Node.Attributes = attributes == 0x80 ? 0 : attributes;
        }

        return 0;
    }

    public int CountSharedClusters(WindowsFile file, out long sharedClusters)
    {
        FakeHandle handle = Use(file);
        sharedClusters = handle.Node.SharedClusters;
        int error = Injected(nameof(CountSharedClusters), handle.Path);
        if (error != 0)
        {
            sharedClusters = 0;
        }

        return error;
    }

    public int CopyFile(string sourcePath, string destinationPath, bool replaceExisting, CancellationToken cancellationToken)
    {
        lock (_lock)
        {
            int error = Injected(nameof(CopyFile), destinationPath, replaceExisting ? "replace" : null);
            if (error != 0)
            {
                return error;
            }

            if (cancellationToken.IsCancellationRequested)
            {
                return WindowsErrors.RequestAborted;
            }

            // CopyFileExW opens the source for reading, sharing reading only, as File.Copy does.
            error = Open(sourcePath, WindowsAccess.Read, WindowsShare.Read, WindowsCreation.OpenExisting, out WindowsFile? source);
            if (error != 0)
            {
                return error;
            }

            using (source)
            {
                if (!_folders.Contains(FolderOf(destinationPath)))
                {
                    return WindowsErrors.PathNotFound;
                }

                FakeNode from = _files[sourcePath];
                FakeVolume volume = VolumeOf(destinationPath);
                bool clones = volume.CopyFileClones && VolumeOf(sourcePath) == volume && WindowsCloneDecisions.SupportsBlockCloning(volume.Flags) && from.Data.Length > 0;
                if (_files.TryGetValue(destinationPath, out FakeNode? existing))
                {
                    if (!replaceExisting)
                    {
                        return WindowsErrors.FileExists;
                    }

                    // Written into, under its holders, as under Wine 8 (which lets a holder that shares writing keep
                    // its handle); unconfirmed on Windows, where the stock task's File.Copy meets the same rule.
                    if ((existing.Attributes & WindowsCloneDecisions.FileAttributeReadOnly) != 0)
                    {
                        return WindowsErrors.AccessDenied;
                    }

                    if (existing.OpenHandles.Any(other => (other.Share & WindowsShare.Write) == 0))
                    {
                        return WindowsErrors.SharingViolation;
                    }

                    existing.Replace(from.Data, from.Attributes, from.LastWriteTime, clones ? ClustersOf(from, volume) : 0);
                    return 0;
                }

                var copy = new FakeNode((byte[])from.Data.Clone(), (byte[])from.Data.Clone(), from.Attributes, from.LastWriteTime)
                {
                    Streams = new Dictionary<string, byte[]>(from.Streams),
                };
                if (clones)
                {
                    copy.SharedClusters = from.SharedClusters = ClustersOf(from, volume);
                }

                _files[destinationPath] = copy;
                return 0;
            }
        }
    }

    public int Rename(WindowsFile file, string destinationPath, bool posixSemantics)
    {
        lock (_lock)
        {
            FakeHandle handle = Use(file);
            int error = Injected(nameof(Rename), destinationPath, posixSemantics ? "posix" : "classic");
            if (error != 0)
            {
                return error;
            }

            if (posixSemantics && !VolumeOf(destinationPath).HasPosixRename)
            {
                return 87;
            }

            if ((handle.Access & WindowsAccess.Delete) == 0)
            {
                return WindowsErrors.AccessDenied;
            }

            if (_files.TryGetValue(destinationPath, out FakeNode? replaced) && replaced != handle.Node)
            {
                if ((replaced.Attributes & WindowsCloneDecisions.FileAttributeReadOnly) != 0)
                {
                    return WindowsErrors.AccessDenied;
                }

                if (replaced.OpenHandles.Count > 0 && !posixSemantics)
                {
                    return WindowsErrors.AccessDenied;
                }

                if (replaced.OpenHandles.Any(other => (other.Share & WindowsShare.Delete) == 0))
                {
                    return WindowsErrors.SharingViolation;
                }
            }

            _files.Remove(handle.Path);
            _files[destinationPath] = handle.Node;
            handle.Path = destinationPath;
            return 0;
        }
    }

    public int SetAttributes(string path, uint attributes)
    {
        lock (_lock)
        {
            int error = Injected(nameof(SetAttributes), path, $"0x{attributes:X}");
            if (error != 0)
            {
                return error;
            }

            if (!_files.TryGetValue(path, out FakeNode? node))
            {
                return WindowsErrors.FileNotFound;
            }

            node.Attributes = attributes == 0x80 ? 0 : attributes;
            return 0;
        }
    }

    public int Delete(string path)
    {
        lock (_lock)
        {
            Calls.Add($"{nameof(Delete)} {path}");
            if (!_files.TryGetValue(path, out FakeNode? node))
            {
                return WindowsErrors.FileNotFound;
            }

            if ((node.Attributes & WindowsCloneDecisions.FileAttributeReadOnly) != 0)
            {
                return WindowsErrors.AccessDenied; // DeleteFile refuses a read-only file
            }

            if (node.OpenHandles.Any(other => (other.Share & WindowsShare.Delete) == 0))
            {
                return WindowsErrors.SharingViolation;
            }

            _files.Remove(path);
            return 0;
        }
    }

    internal void Close(FakeHandle handle)
    {
        lock (_lock)
        {
            handle.Node.OpenHandles.Remove(handle);
        }
    }

    private static bool Shares(WindowsShare share, WindowsAccess access)
        => ((access & WindowsAccess.Read) == 0 || (share & WindowsShare.Read) != 0)
        && ((access & WindowsAccess.Write) == 0 || (share & WindowsShare.Write) != 0)
        && ((access & WindowsAccess.Delete) == 0 || (share & WindowsShare.Delete) != 0);

    private static long RoundUp(long value, long unit) => (value + unit - 1) / unit * unit;

    private static long ClustersOf(FakeNode node, FakeVolume volume) => RoundUp(node.Data.Length, volume.ClusterBytes) / volume.ClusterBytes;

    private static string FolderOf(string path) => path.Substring(0, Math.Max(0, path.LastIndexOf('\\')));

    private FakeHandle Use(WindowsFile file)
    {
        var handle = (FakeHandle)file;
        if (handle.Closed)
        {
            throw new InvalidOperationException($"The engine used a closed handle of {handle.Path}.");
        }

        return handle;
    }

    private FakeVolume VolumeOf(string path)
        => _volumes.Where(volume => path.StartsWith(volume.Root, StringComparison.OrdinalIgnoreCase)).OrderByDescending(volume => volume.Root.Length).FirstOrDefault()
            ?? throw new InvalidOperationException($"No fake volume holds {path}.");

    private int Injected(string call, string path, string? argument = null)
    {
        lock (_callsLock)
        {
            Calls.Add(argument is null ? $"{call} {path}" : $"{call} {path} {argument}");
        }

        OnCall?.Invoke(call);
        lock (_callsLock)
        {
            return _failures.TryGetValue(call, out Queue<int>? queue) && queue.Count > 0 ? queue.Dequeue() : 0;
        }
    }
}

/// <summary>One volume of the fake, with the facts tests set.</summary>
internal sealed class FakeVolume
{
    public FakeVolume(string root, string fileSystemName, ulong serial, uint flags, uint clusterBytes)
    {
        Root = root;
        FileSystemName = fileSystemName;
        Serial = serial;
        Flags = flags;
        ClusterBytes = clusterBytes;
    }

    public string Root { get; }

    public string FileSystemName { get; }

    public ulong Serial { get; }

    public uint Flags { get; }

    public uint ClusterBytes { get; }

    public bool IsReFS => FileSystemName == "ReFS";

    public bool IsNetworkShare { get; set; }

    public bool HasPosixRename { get; set; } = true;

    public bool AllowsSettingIntegrity { get; set; } = true;

    public bool NewFilesHaveIntegrity { get; set; }

    /// <summary>Windows 11 24H2: CopyFile block-clones by itself on this volume.</summary>
    public bool CopyFileClones { get; set; }

    public long FreeBytes { get; set; } = long.MaxValue;

    public int FlagQueries { get; set; }

    public int IntegrityQueries { get; set; }
}

/// <summary>A file of the fake: what reads return (<see cref="Data"/>) and what the disk holds (<see cref="OnDisk"/>).</summary>
internal sealed class FakeNode
{
    public FakeNode(byte[] data, byte[] onDisk, uint attributes, long lastWriteTime)
    {
        Data = (byte[])data.Clone();
        OnDisk = (byte[])onDisk.Clone();
        Attributes = attributes;
        LastWriteTime = lastWriteTime;
    }

    public byte[] Data { get; private set; }

    public byte[] OnDisk { get; set; }

    public uint Attributes { get; set; }

    public long LastWriteTime { get; set; }

    public bool Sparse { get; set; }

    public bool Integrity { get; set; }

    /// <summary>Whether the data has clusters on the disk (false for a just-written file until it is flushed or lazily written).</summary>
    public bool Allocated { get; set; } = true;

    /// <summary>Clusters shared with another file, as the refcount query counts them.</summary>
    public long SharedClusters { get; set; }

    public bool SharesClusters => SharedClusters > 0;

    public uint Links { get; set; } = 1;

    /// <summary>Clone calls reading this file right now.</summary>
    public int ClonesUnderWay { get; set; }

    public int References { get; set; }

    public Dictionary<string, byte[]> Streams { get; set; } = new();

    public List<FakeHandle> OpenHandles { get; } = new();

    public uint AllAttributes => Attributes
        | (Sparse ? WindowsCloneDecisions.FileAttributeSparseFile : 0)
        | (Integrity ? WindowsCloneDecisions.FileAttributeIntegrityStream : 0);

    public void Resize(long size, long clusterBytes)
    {
        byte[] data = Data;
        byte[] onDisk = OnDisk;
        Array.Resize(ref data, (int)size);
        Array.Resize(ref onDisk, (int)size);
        (Data, OnDisk) = (data, onDisk);
        SharedClusters = Math.Min(SharedClusters, (size + clusterBytes - 1) / clusterBytes);
    }

    /// <summary>New content for the same file (what its holders see next).</summary>
    public void Replace(byte[] data, uint attributes, long lastWriteTime, long sharedClusters)
    {
        Data = (byte[])data.Clone();
        OnDisk = (byte[])data.Clone();
        (Attributes, LastWriteTime, SharedClusters, Allocated) = (attributes, lastWriteTime, sharedClusters, true);
    }
}

internal sealed class FakeHandle : WindowsFile
{
    private readonly FakeWindowsFileSystem _owner;

    public FakeHandle(FakeWindowsFileSystem owner, FakeNode node, string path, WindowsAccess access, WindowsShare share)
    {
        _owner = owner;
        Node = node;
        Path = path;
        Access = access;
        Share = share;
    }

    public FakeNode Node { get; }

    public string Path { get; set; }

    public WindowsAccess Access { get; }

    public WindowsShare Share { get; }

    public bool Closed { get; private set; }

    public override void Dispose()
    {
        if (!Closed)
        {
            Closed = true;
            _owner.Close(this);
        }
    }
}
