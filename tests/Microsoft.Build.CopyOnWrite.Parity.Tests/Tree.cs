using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Parity.Tests;

/// <summary>
/// One side's file tree for a scenario: a root on the temp volume and one on another volume (/dev/shm).
/// Arrange builds it (always the same way for both sides); Snapshot describes every entry afterwards.
/// Paths in scenarios are written with {R} and {SHM} for the two roots.
/// </summary>
public sealed class Tree
{
    /// <summary>The last-write time every arranged file gets, with sub-second ticks so that precision matters.</summary>
    public static readonly DateTime FixedTime = new DateTime(2020, 1, 2, 3, 4, 5, DateTimeKind.Utc).AddTicks(1234567);

    public static readonly DateTime OtherTime = FixedTime.AddMinutes(-30);

    private readonly List<string> _immutable = new();

    public Tree(string root, string? shmRoot)
    {
        Root = root;
        ShmRoot = shmRoot;
        Directory.CreateDirectory(root);
        if (shmRoot is not null)
        {
            Directory.CreateDirectory(shmRoot);
        }
    }

    public string Root { get; }

    public string? ShmRoot { get; }

    /// <summary>Replaces {R} and {SHM} in a scenario's path or spec.</summary>
    public string Expand(string text)
        => text.Replace("{R}", Root, StringComparison.Ordinal).Replace("{SHM}", ShmRoot ?? "/nonexistent-shm", StringComparison.Ordinal);

    /// <summary>Puts the roots back as {R} and {SHM}, so the two sides' texts compare.</summary>
    public string Normalize(string? text)
    {
        if (text is null)
        {
            return string.Empty;
        }

        if (ShmRoot is not null)
        {
            text = text.Replace(ShmRoot, "{SHM}", StringComparison.Ordinal);
        }

        return text.Replace(Root, "{R}", StringComparison.Ordinal);
    }

    private string Full(string relative) => relative.Contains('{') ? Expand(relative) : Path.Combine(Root, relative);

    public Tree File(string relative, string? content = null, int mode = 420 /* 0644 */, DateTime? time = null)
    {
        string path = Full(relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        System.IO.File.WriteAllText(path, content ?? "content of " + Path.GetFileName(relative));
        System.IO.File.SetUnixFileMode(path, (UnixFileMode)mode);
        System.IO.File.SetLastWriteTimeUtc(path, time ?? FixedTime);
        System.IO.File.SetLastAccessTimeUtc(path, time ?? FixedTime);
        return this;
    }

    public Tree Bytes(string relative, int length, int seed = 1, DateTime? time = null)
    {
        string path = Full(relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        var data = new byte[length];
        new Random(seed).NextBytes(data);
        System.IO.File.WriteAllBytes(path, data);
        System.IO.File.SetLastWriteTimeUtc(path, time ?? FixedTime);
        return this;
    }

    public Tree Dir(string relative)
    {
        Directory.CreateDirectory(Full(relative));
        return this;
    }

    public Tree Symlink(string relative, string target)
    {
        string path = Full(relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        System.IO.File.CreateSymbolicLink(path, Expand(target));
        return this;
    }

    public Tree HardLink(string relative, string existing)
    {
        string path = Full(relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        Run("ln", Full(existing), path);
        return this;
    }

    public Tree Mode(string relative, int mode)
    {
        System.IO.File.SetUnixFileMode(Full(relative), (UnixFileMode)mode);
        return this;
    }

    public Tree Time(string relative, DateTime time)
    {
        System.IO.File.SetLastWriteTimeUtc(Full(relative), time);
        return this;
    }

    /// <summary>chattr +i: not even root may change, delete or rename it (access denied, every time).</summary>
    public Tree Immutable(string relative)
    {
        string path = Full(relative);
        Run("chattr", "+i", path);
        _immutable.Add(path);
        return this;
    }

    /// <summary>Undoes chattr +i so the tree can be deleted.</summary>
    public void Release()
    {
        foreach (string path in _immutable)
        {
            Run("chattr", "-i", path);
        }
    }

    /// <summary>
    /// Every entry under both roots, one line each: kind, mode, size, last-write time, content hash, link count,
    /// symlink target, and which other entries share its inode (hard links).
    /// </summary>
    public List<string> Snapshot()
    {
        var entries = new List<(string Name, string Kind, string Mode, long Size, string Time, int Links, string Inode, string Target, string FullPath)>();
        foreach ((string? root, string label) in new[] { (Root, "{R}"), (ShmRoot, "{SHM}") })
        {
            if (root is null || !Directory.Exists(root))
            {
                continue;
            }

            string output = Run("find", root, "-mindepth", "1", "-printf", "%P\\0%y\\0%m\\0%s\\0%T@\\0%n\\0%D:%i\\0%l\\0");
            string[] fields = output.Split('\0');
            for (int i = 0; i + 8 <= fields.Length; i += 8)
            {
                string relative = fields[i];
                entries.Add((label + "/" + relative, fields[i + 1], fields[i + 2], long.Parse(fields[i + 3], CultureInfo.InvariantCulture),
                    fields[i + 4], int.Parse(fields[i + 5], CultureInfo.InvariantCulture), fields[i + 6], fields[i + 7], Path.Combine(root, relative)));
            }
        }

        var byInode = entries.Where(e => e.Kind == "f").GroupBy(e => e.Inode).ToDictionary(g => g.Key, g => g.Select(e => e.Name).OrderBy(n => n, StringComparer.Ordinal).ToList());
        var lines = new List<string>();
        foreach (var e in entries.OrderBy(e => e.Name, StringComparer.Ordinal))
        {
            var line = new StringBuilder();
            line.Append(e.Name).Append(" | ").Append(e.Kind switch { "f" => "file", "d" => "dir", "l" => "symlink", _ => e.Kind });
            if (e.Kind == "l")
            {
                line.Append(" -> ").Append(Normalize(e.Target));
            }
            else if (e.Kind == "f")
            {
                line.Append(" mode ").Append(e.Mode).Append(" size ").Append(e.Size).Append(" mtime ").Append(DescribeTime(e.Time))
                    .Append(" links ").Append(e.Links).Append(" content ").Append(DescribeContent(e.FullPath, e.Size));
                List<string> sameInode = byInode[e.Inode].Where(n => n != e.Name).ToList();
                if (sameInode.Count > 0)
                {
                    line.Append(" same-file-as ").Append(string.Join(",", sameInode));
                }
            }
            else if (e.Kind == "d")
            {
                line.Append(" mode ").Append(e.Mode);
            }

            lines.Add(line.ToString());
        }

        return lines;
    }

    private static string DescribeTime(string secondsText)
    {
        // find prints seconds.nanoseconds: compare at full precision, but a time set by the run itself ("now") can't match.
        decimal seconds = decimal.Parse(secondsText, CultureInfo.InvariantCulture);
        DateTime time = DateTime.UnixEpoch.AddTicks((long)(seconds * 10_000_000m));
        return time > FixedTime.AddDays(10) ? "now" : secondsText;
    }

    private static string DescribeContent(string path, long size)
    {
        try
        {
            byte[] bytes = System.IO.File.ReadAllBytes(path);
            if (size <= 64 && bytes.All(b => b >= 32 && b < 127))
            {
                return "\"" + Encoding.ASCII.GetString(bytes) + "\"";
            }

            return Convert.ToHexString(SHA256.HashData(bytes))[..12];
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return "unreadable: " + e.GetType().Name;
        }
    }

    public static string Run(string program, params string[] arguments)
    {
        var start = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using Process process = Process.Start(start)!;
        string output = process.StandardOutput.ReadToEnd();
        string error = process.StandardError.ReadToEnd();
        process.WaitForExit();
        if (process.ExitCode != 0 && program != "find")
        {
            throw new InvalidOperationException($"{program} {string.Join(' ', arguments)} failed: {error}");
        }

        return output;
    }

    /// <summary>Deletes a folder even when it holds immutable or read-only entries.</summary>
    public static void ForceDelete(string folder)
    {
        try
        {
            Run("chattr", "-R", "-i", folder);
        }
        catch (InvalidOperationException)
        {
            // Not every file system has attributes (tmpfs); nothing is immutable there.
        }

        Run("rm", "-rf", folder);
    }
}
