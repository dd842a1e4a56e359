using System;
using System.Globalization;
using System.IO;
using System.Security.Cryptography;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;

/// <summary>
/// Everything that would show a file was touched, read with coreutils `stat` without following a final
/// symlink: type, inode, link count, mode, size, last-write and change times to the nanosecond, content
/// hash, link target. The change time (ctime) moves on any write, chmod, rename over or relink.
/// </summary>
public sealed record FileSnapshot(string Type, long Inode, int Links, string Mode, long Size, string Modified, string Changed, string? ContentHash, string? LinkTarget)
{
    public static FileSnapshot Of(string path)
    {
        ProcessResult stat = ProcessRunner.Run("stat", "--format=%F|%i|%h|%a|%s|%.9Y|%.9Z", path);
        Assert.IsTrue(stat.Succeeded, $"stat {path}: {stat.Output}");
        string[] f = stat.Output.Trim().Split('|');
        bool isLink = f[0] == "symbolic link";
        return new FileSnapshot(
            f[0],
            long.Parse(f[1], CultureInfo.InvariantCulture),
            int.Parse(f[2], CultureInfo.InvariantCulture),
            f[3],
            long.Parse(f[4], CultureInfo.InvariantCulture),
            f[5],
            f[6],
            f[0] == "regular file" ? HashOf(path) : null,
            isLink ? new FileInfo(path).LinkTarget : null);
    }

    public static string HashOf(string path)
    {
        using FileStream stream = File.OpenRead(path);
        return Convert.ToHexString(SHA256.HashData(stream));
    }

    public static string HashOf(byte[] content) => Convert.ToHexString(SHA256.HashData(content));

    /// <summary>Fails unless <paramref name="path"/> is exactly as it was, down to its inode and change time.</summary>
    public void AssertUnchanged(string path, string what)
    {
        FileSnapshot now = Of(path);
        Assert.AreEqual(this, now, $"{what} ({path}) was changed.\nbefore: {this}\nafter:  {now}");
    }
}
