using System;
using System.IO;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

public static class TestFiles
{
    /// <summary>Writes <paramref name="bytes"/> of reproducible pseudo-random data (seeded by the name) and returns the path.</summary>
    public static string Write(string folder, string name, int bytes, int seed = 0)
    {
        string path = Path.Combine(folder, name);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, Content(bytes, seed == 0 ? name.GetHashCode(StringComparison.Ordinal) : seed));
        return path;
    }

    public static byte[] Content(int bytes, int seed)
    {
        var data = new byte[bytes];
        new Random(seed).NextBytes(data);
        return data;
    }

    public static bool SameBytes(string a, string b) => File.ReadAllBytes(a).AsSpan().SequenceEqual(File.ReadAllBytes(b));

    /// <summary>Files left behind by an interrupted atomic write (there must never be any).</summary>
    public static string[] TemporaryLeftovers(string folder)
        => Directory.EnumerateFiles(folder, "*", SearchOption.AllDirectories)
            .Where(path => CopyOnWrite.Cloning.AtomicFile.IsTemporaryName(Path.GetFileName(path)))
            .ToArray();
}
