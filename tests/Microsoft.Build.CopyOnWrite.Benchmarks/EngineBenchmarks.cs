using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using BenchmarkDotNet.Attributes;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Benchmarks;

/// <summary>
/// One measurement: one source put at <see cref="Copies"/> distinct destinations in the same folder, by our
/// clone engine, by File.Copy, or by a plain managed byte copy. The destinations are deleted (and the file
/// system flushed) before each measurement, outside it.
/// </summary>
public class EngineBenchmarks
{
    public const int Copies = 50;
    private const int ByteCopyBufferBytes = 1 << 20;

    private readonly byte[] _buffer = new byte[ByteCopyBufferBytes];
    private readonly string[] _destinations = new string[Copies];
    private ICloneEngine _engine = null!;
    private string _folder = string.Empty;
    private string _source = string.Empty;

    [ParamsSource(nameof(FileSystems))]
    public string FileSystem { get; set; } = string.Empty;

    [ParamsSource(nameof(Sizes))]
    public long Size { get; set; }

    public static IEnumerable<string> FileSystems => Settings.Available("xfs", "btrfs", "ext4");

    public static IEnumerable<long> Sizes => Settings.Sizes;

    [GlobalSetup]
    public void GlobalSetup()
    {
        Machine.SampleLoad();
        _engine = CloneEngines.Current; // the one the Copy task uses, with its per-process refusal cache
        _folder = Path.Combine(Settings.MountPoint(FileSystem), $"engine-{Size}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(_folder);
        _source = Path.Combine(_folder, "source.bin");
        WriteRandomFile(_source, Size, seed: (int)(Size % int.MaxValue));
        for (int i = 0; i < Copies; i++)
        {
            _destinations[i] = Path.Combine(_folder, $"destination-{i:00}.bin");
        }

        Native.SyncFileSystem(_folder);
    }

    [IterationSetup]
    public void IterationSetup()
    {
        foreach (string destination in _destinations)
        {
            File.Delete(destination);
        }

        Native.SyncFileSystem(_folder);
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        Directory.Delete(_folder, recursive: true);
        Native.SyncFileSystem(Settings.MountPoint(FileSystem));
        Native.Trim(Settings.MountPoint(FileSystem));
    }

    [Benchmark(Baseline = true, Description = "engine")]
    public void Engine()
    {
        foreach (string destination in _destinations)
        {
            _engine.CloneOrCopy(_source, destination, CancellationToken.None);
        }
    }

    [Benchmark(Description = "File.Copy")]
    public void FileCopy()
    {
        foreach (string destination in _destinations)
        {
            File.Copy(_source, destination, overwrite: true);
        }
    }

    [Benchmark(Description = "byte copy")]
    public void ByteCopy()
    {
        foreach (string destination in _destinations)
        {
            CopyBytes(_source, destination, _buffer);
        }
    }

    /// <summary>The plain managed copy: read and write through a 1 MiB buffer, FileStream's own buffer off.</summary>
    public static void CopyBytes(string source, string destination, byte[] buffer)
    {
        using var input = new FileStream(source, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0);
        using var output = new FileStream(destination, FileMode.CreateNew, FileAccess.Write, FileShare.None, bufferSize: 0);
        int read;
        while ((read = input.Read(buffer, 0, buffer.Length)) > 0)
        {
            output.Write(buffer, 0, read);
        }
    }

    public static void WriteRandomFile(string path, long size, int seed)
    {
        var random = new Random(seed);
        byte[] chunk = new byte[(int)Math.Min(Math.Max(size, 1), 1 << 20)];
        using var output = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.None, bufferSize: 0);
        for (long left = size; left > 0; left -= chunk.Length)
        {
            random.NextBytes(chunk);
            output.Write(chunk, 0, (int)Math.Min(left, chunk.Length));
        }
    }
}
