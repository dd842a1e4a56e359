using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>Which file times a snapshot shows: the ones the machine can tell apart truthfully.</summary>
internal sealed record TimesCompared(bool LastAccess, bool Creation)
{
    /// <summary>
    /// Under Wine: last-write only. Linux keeps no settable creation time (Wine makes one up), and Wine reads a
    /// file's first bytes in GetFileType, which moves its last-access time whenever .NET opens it.
    /// </summary>
    public static TimesCompared ForThisMachine => Win32.WineVersion is null ? new(true, true) : new(false, false);
}

/// <summary>
/// One side's file tree for a scenario. Arranged the same way for the stock task and ours; Snapshot
/// describes every entry afterwards, with the root written as {R} so the two sides compare.
/// </summary>
internal sealed class WindowsTree : IDisposable
{
    /// <summary>The last-write time every arranged file gets, with sub-second ticks so that precision matters.</summary>
    public static readonly DateTime FixedTime = new DateTime(2020, 1, 2, 3, 4, 5, DateTimeKind.Utc).AddTicks(1234567);

    public static readonly DateTime OtherTime = FixedTime.AddMinutes(-30);

    private readonly List<IDisposable> _held = new();
    private readonly TimesCompared _times;

    public WindowsTree(string root, TimesCompared times)
    {
        Root = root;
        _times = times;
        Directory.CreateDirectory(root);
    }

    public string Root { get; }

    /// <summary>A path under the root from a relative one written with forward slashes.</summary>
    public string At(string relative) => Path.Combine(Root, relative.Replace('/', Path.DirectorySeparatorChar));

    public string Normalize(string? text) => text is null ? string.Empty : text.Replace(Root, "{R}", StringComparison.OrdinalIgnoreCase);

    public WindowsTree File(string relative, string? content = null, FileAttributes attributes = FileAttributes.Normal, DateTime? time = null)
        => Write(relative, Encoding.UTF8.GetBytes(content ?? "content of " + relative), attributes, time);

    public WindowsTree Bytes(string relative, int length, int seed = 1)
    {
        var data = new byte[length];
        new Random(seed).NextBytes(data);
        return Write(relative, data, FileAttributes.Normal, null);
    }

    public WindowsTree Dir(string relative)
    {
        Directory.CreateDirectory(At(relative));
        return this;
    }

    public WindowsTree HardLink(string relative, string existing)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(At(relative))!);
        Win32.CreateHardLink(At(relative), At(existing));
        return this;
    }

    /// <summary>A sparse file of <paramref name="size"/> bytes with a few marked blocks, the rest never written.</summary>
    public WindowsTree Sparse(string relative, long size)
    {
        string path = At(relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        using (var stream = new FileStream(path, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None))
        {
            int error = Win32.SetSparse(stream.SafeFileHandle);
            Check.That(error == 0, $"FSCTL_SET_SPARSE on {path} failed: {Win32.Describe(error)}");
            stream.SetLength(size);
            foreach (long offset in new[] { 0L, (4L << 30) - 4096, size - 4096 }.Where(o => o >= 0 && o + 4096 <= size))
            {
                stream.Position = offset;
                stream.Write(Encoding.ASCII.GetBytes($"block at {offset}"));
            }
        }

        System.IO.File.SetLastWriteTimeUtc(path, FixedTime);
        return this;
    }

    /// <summary>Keeps <paramref name="relative"/> open, as another program would, until the tree is disposed or the handle released.</summary>
    public FileStream Hold(string relative, FileAccess access, FileShare share)
    {
        var stream = new FileStream(At(relative), FileMode.Open, access, share);
        lock (_held)
        {
            _held.Add(stream);
        }

        return stream;
    }

    private WindowsTree Write(string relative, byte[] data, FileAttributes attributes, DateTime? time)
    {
        string path = At(relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        System.IO.File.WriteAllBytes(path, data);
        System.IO.File.SetLastWriteTimeUtc(path, time ?? FixedTime);
        System.IO.File.SetLastAccessTimeUtc(path, time ?? FixedTime);
        System.IO.File.SetCreationTimeUtc(path, OtherTime);
        if (attributes != FileAttributes.Normal)
        {
            System.IO.File.SetAttributes(path, attributes);
        }

        return this;
    }

    /// <summary>
    /// Every entry under the root, one line each: kind, size, attributes, times, link count, content, and which
    /// other entries are the same file (hard links). Hidden entries included: a temporary file left behind shows.
    /// </summary>
    public List<string> Snapshot()
    {
        if (!Directory.Exists(Root))
        {
            return new List<string> { "{R} missing" };
        }

        var options = new EnumerationOptions { RecurseSubdirectories = true, AttributesToSkip = 0, IgnoreInaccessible = false };
        var entries = Directory.EnumerateFileSystemEntries(Root, "*", options).OrderBy(p => p, StringComparer.Ordinal).ToList();
        var identities = new Dictionary<string, (uint Links, ulong Identity, string Key)>(StringComparer.Ordinal);
        foreach (string path in entries.Where(System.IO.File.Exists))
        {
            (uint links, ulong identity, uint volume, long changeTime) = Win32.Identity(path);
            identities[path] = (links, identity, $"{volume}:{identity}:{changeTime}");
        }

        var lines = new List<string>();
        foreach (string path in entries)
        {
            string name = "{R}" + path.Substring(Root.Length).Replace('\\', '/');
            var info = new FileInfo(path);
            if (Directory.Exists(path))
            {
                lines.Add($"{name} | dir");
                continue;
            }

            var line = new StringBuilder($"{name} | file size {info.Length} attrs {Describe(info.Attributes)} write {DescribeTime(info.LastWriteTimeUtc)}");
            if (_times.LastAccess)
            {
                line.Append(" access ").Append(DescribeTime(info.LastAccessTimeUtc));
            }

            if (_times.Creation)
            {
                line.Append(" created ").Append(DescribeTime(info.CreationTimeUtc));
            }

            (uint links, ulong id, string key) = identities[path];
            line.Append(" links ").Append(links).Append(" content ").Append(DescribeContent(path, info.Length, $"{key}:{info.Length}:{info.LastWriteTimeUtc.Ticks}"));
            List<string> same = identities.Where(e => e.Value.Identity == id && e.Key != path).Select(e => "{R}" + e.Key.Substring(Root.Length).Replace('\\', '/')).ToList();
            if (same.Count > 0)
            {
                line.Append(" same-file-as ").Append(string.Join(",", same));
            }

            lines.Add(line.ToString());
        }

        return lines;
    }

    public static string Describe(FileAttributes attributes)
    {
        var letters = new StringBuilder();
        foreach ((FileAttributes flag, char letter) in new[] { (FileAttributes.ReadOnly, 'R'), (FileAttributes.Hidden, 'H'), (FileAttributes.System, 'S'), (FileAttributes.Archive, 'A'), (FileAttributes.Temporary, 'T'), (FileAttributes.SparseFile, 'P'), (FileAttributes.NotContentIndexed, 'I'), (FileAttributes.Normal, 'N') })
        {
            if ((attributes & flag) != 0)
            {
                letters.Append(letter);
            }
        }

        return letters.Length == 0 ? "-" : letters.ToString();
    }

    /// <summary>Arranged times exactly; a time the run itself set ("now") cannot match between two runs.</summary>
    private static string DescribeTime(DateTime time) => time > FixedTime.AddDays(10) ? "now" : time.Ticks.ToString(System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>Above this, content is compared by a fast 64-bit hash of every byte: SHA-256 of 4 GiB takes too long under Wine.</summary>
    private const long LargeFileBytes = 64L << 20;

    private static string WordHash(Stream stream)
    {
        var buffer = new byte[1 << 20];
        ulong hash = 14695981039346656037UL;
        int read;
        while ((read = stream.ReadAtLeast(buffer, buffer.Length, throwOnEndOfStream: false)) > 0)
        {
            Array.Clear(buffer, read, buffer.Length - read);
            foreach (ulong word in System.Runtime.InteropServices.MemoryMarshal.Cast<byte, ulong>(buffer.AsSpan(0, (read + 7) & ~7)))
            {
                hash = (System.Numerics.BitOperations.RotateLeft(hash ^ word, 29) * 0x9E3779B97F4A7C15UL) + 0x632BE59BD9B4E019UL;
            }
        }

        return hash.ToString("x16");
    }

    /// <summary>
    /// Hashes of large files by file identity, size, last-write and change time: a file none of those moved on has
    /// the same bytes (any write moves the change time), and hashing 4 GiB again costs seconds under Wine.
    /// </summary>
    private static readonly System.Collections.Concurrent.ConcurrentDictionary<string, string> LargeFileHashes = new();

    private static string DescribeContent(string path, long size, string identity)
        => size > LargeFileBytes ? LargeFileHashes.GetOrAdd(identity, _ => DescribeContent(path, size)) : DescribeContent(path, size);

    private static string DescribeContent(string path, long size)
    {
        try
        {
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            if (size <= 64)
            {
                var bytes = new byte[size];
                stream.ReadExactly(bytes);
                if (bytes.All(b => b >= 32 && b < 127))
                {
                    return "\"" + Encoding.ASCII.GetString(bytes) + "\"";
                }
            }

            return size <= LargeFileBytes ? Convert.ToHexString(SHA256.HashData(stream))[..12] : "words " + WordHash(stream);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return "unreadable: " + e.GetType().Name;
        }
    }

    /// <summary>Closes every handle the scenario held (as the other program would, eventually).</summary>
    public void ReleaseHeld()
    {
        lock (_held)
        {
            _held.ForEach(h => h.Dispose());
            _held.Clear();
        }
    }

    public void Dispose()
    {
        ReleaseHeld();
        Delete(Root);
    }

    /// <summary>Deletes a folder even when it holds read-only entries.</summary>
    public static void Delete(string folder)
    {
        if (!Directory.Exists(folder))
        {
            return;
        }

        foreach (string file in Directory.EnumerateFiles(folder, "*", new EnumerationOptions { RecurseSubdirectories = true, AttributesToSkip = 0 }))
        {
            System.IO.File.SetAttributes(file, FileAttributes.Normal);
        }

        Directory.Delete(folder, recursive: true);
    }
}
