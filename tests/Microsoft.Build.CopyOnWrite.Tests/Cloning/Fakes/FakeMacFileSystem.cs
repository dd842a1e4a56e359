using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;

/// <summary>
/// macOS volumes in memory, keeping the documented rules of clonefile(2) and copyfile(3): a clone needs the same
/// device (EXDEV) and APFS (ENOTSUP), its destination must not exist (EEXIST), CLONE_ACL is unknown to older macOS
/// (EINVAL), a file not downloaded yet cannot be cloned (EDEADLK); a clone brings data, mode, times, extended
/// attributes and, with CLONE_ACL, the ACL. fcopyfile(COPYFILE_METADATA) brings mode, flags, times, extended
/// attributes and the ACL. Failures can be injected per call, and every call is written to <see cref="Calls"/>.
/// </summary>
internal sealed class FakeMacFileSystem : IMacFileSystem
{
    private readonly Dictionary<string, FakeMacNode> _files = new(StringComparer.Ordinal);
    private readonly List<(string Root, ulong Device, string Type)> _volumes = new();
    private readonly Dictionary<string, Queue<int>> _failures = new(StringComparer.Ordinal);

    public List<string> Calls { get; } = new();

    public Action<string>? OnCall { get; set; }

    /// <summary>macOS before CLONE_ACL was known: clonefile with it answers EINVAL.</summary>
    public bool KnowsCloneAcl { get; set; } = true;

    public void AddVolume(string root, ulong device, string type) => _volumes.Add((root, device, type));

    public FakeMacNode AddFile(string path, byte[] data, uint mode = 0x81A4)
    {
        var node = new FakeMacNode { Data = (byte[])data.Clone(), Mode = mode, ModifySeconds = 1_700_000_000 };
        _files[path] = node;
        return node;
    }

    public bool Exists(string path) => _files.ContainsKey(path);

    public FakeMacNode this[string path] => _files[path];

    public IEnumerable<string> FilesIn(string folder) => _files.Keys.Where(path => Path.GetDirectoryName(path) == folder);

    public int CallsTo(string call) => Calls.Count(line => line.StartsWith(call + " ", StringComparison.Ordinal));

    public void Fail(string call, int errno, int times = 1)
    {
        if (!_failures.TryGetValue(call, out Queue<int>? queue))
        {
            _failures[call] = queue = new Queue<int>();
        }

        for (int i = 0; i < times; i++)
        {
            queue.Enqueue(errno);
        }
    }

    public MacFile OpenForReading(string path)
    {
        Log(nameof(OpenForReading), path);
        return _files.TryGetValue(path, out FakeMacNode? node) ? new FakeMacFile(node, path) : throw new FileNotFoundException($"Could not find file '{path}'.", path);
    }

    public MacFile CreateNew(string path)
    {
        Log(nameof(CreateNew), path);
        if (_files.ContainsKey(path))
        {
            throw new IOException($"The file '{path}' already exists.", 17);
        }

        var node = new FakeMacNode { Mode = 0x8180 };
        _files[path] = node;
        return new FakeMacFile(node, path);
    }

    public int Stat(MacFile file, out MacFileStatus status)
    {
        var open = (FakeMacFile)file;
        status = new MacFileStatus { Device = VolumeOf(open.Path).Device, Mode = open.Node.Mode, Size = open.Node.Data.Length };
        return Injected(nameof(Stat), open.Path);
    }

    public int DeviceOf(string folder, out ulong device)
    {
        device = VolumeOf(folder + "/").Device;
        return Injected(nameof(DeviceOf), folder);
    }

    public string? FileSystemTypeName(string folder) => VolumeOf(folder + "/").Type;

    public int CloneFrom(MacFile source, string destinationPath, uint flags)
    {
        var from = (FakeMacFile)source;
        int errno = Injected(nameof(CloneFrom), destinationPath, $"0x{flags:X}");
        if (errno != 0)
        {
            return errno;
        }

        if ((flags & MacCloneEngine.CloneAcl) != 0 && !KnowsCloneAcl)
        {
            return 22; // EINVAL
        }

        var volume = VolumeOf(destinationPath);
        if (volume.Device != VolumeOf(from.Path).Device)
        {
            return 18; // EXDEV
        }

        if (volume.Type != "apfs")
        {
            return 45; // ENOTSUP
        }

        if (from.Node.Dataless)
        {
            return 11; // EDEADLK: not downloaded yet
        }

        if (_files.ContainsKey(destinationPath))
        {
            return 17; // EEXIST
        }

        _files[destinationPath] = new FakeMacNode
        {
            Data = (byte[])from.Node.Data.Clone(),
            Mode = from.Node.Mode,
            ModifySeconds = from.Node.ModifySeconds,
            ExtendedAttributes = new Dictionary<string, byte[]>(from.Node.ExtendedAttributes),
            Acl = (flags & MacCloneEngine.CloneAcl) != 0 ? from.Node.Acl : null,
            SharesBlocks = true,
        };
        return 0;
    }

    public int Read(MacFile file, byte[] buffer)
    {
        var open = (FakeMacFile)file;
        Log(nameof(Read), open.Path);
        int count = (int)Math.Min(buffer.Length, open.Node.Data.Length - open.Position);
        Array.Copy(open.Node.Data, open.Position, buffer, 0, count);
        open.Position += count;
        return count;
    }

    public void Write(MacFile file, byte[] buffer, int count)
    {
        var open = (FakeMacFile)file;
        Log(nameof(Write), open.Path);
        open.Node.Data = open.Node.Data.Concat(buffer.Take(count)).ToArray();
        open.Node.ModifySeconds = 1_800_000_000; // now
    }

    public int CopyMetadata(MacFile source, MacFile destination)
    {
        var from = (FakeMacFile)source;
        var to = (FakeMacFile)destination;
        int errno = Injected(nameof(CopyMetadata), to.Path);
        if (errno == 0)
        {
            to.Node.Mode = from.Node.Mode;
            to.Node.Flags = from.Node.Flags;
            to.Node.ModifySeconds = from.Node.ModifySeconds;
            to.Node.ExtendedAttributes = new Dictionary<string, byte[]>(from.Node.ExtendedAttributes);
            to.Node.Acl = from.Node.Acl;
        }

        return errno;
    }

    public int SetPermissions(string path, uint mode)
    {
        int errno = Injected(nameof(SetPermissions), path);
        if (errno == 0)
        {
            _files[path].Mode = (_files[path].Mode & 0xF000) | mode;
        }

        return errno;
    }

    public int SetPermissions(MacFile file, uint mode) => SetPermissions(((FakeMacFile)file).Path, mode);

    public int Rename(string fromPath, string toPath)
    {
        int errno = Injected(nameof(Rename), toPath);
        if (errno == 0)
        {
            _files[toPath] = _files[fromPath];
            _files.Remove(fromPath);
        }

        return errno;
    }

    public int Unlink(string path)
    {
        Log(nameof(Unlink), path);
        return _files.Remove(path) ? 0 : 2;
    }

    private (string Root, ulong Device, string Type) VolumeOf(string path)
        => _volumes.Where(volume => path.StartsWith(volume.Root, StringComparison.Ordinal)).OrderByDescending(volume => volume.Root.Length).First();

    private void Log(string call, string path)
    {
        Calls.Add($"{call} {path}");
        OnCall?.Invoke(call);
    }

    private int Injected(string call, string path, string? argument = null)
    {
        Calls.Add(argument is null ? $"{call} {path}" : $"{call} {path} {argument}");
        OnCall?.Invoke(call);
        return _failures.TryGetValue(call, out Queue<int>? queue) && queue.Count > 0 ? queue.Dequeue() : 0;
    }
}

internal sealed class FakeMacNode
{
    public byte[] Data { get; set; } = Array.Empty<byte>();

    public uint Mode { get; set; }

    public uint Flags { get; set; }

    public long ModifySeconds { get; set; }

    public Dictionary<string, byte[]> ExtendedAttributes { get; set; } = new();

    public string? Acl { get; set; }

    public bool Dataless { get; set; }

    public bool SharesBlocks { get; set; }
}

internal sealed class FakeMacFile : MacFile
{
    public FakeMacFile(FakeMacNode node, string path)
    {
        Node = node;
        Path = path;
    }

    public FakeMacNode Node { get; }

    public string Path { get; }

    public long Position { get; set; }

    public override void Dispose()
    {
    }
}
