using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>
/// A copy of the user's tree on a measurement volume, restored once; "clean" deletes every file and folder added since
/// that restore, as `git clean -fdx` would after a fresh clone and restore.
/// </summary>
internal sealed class Workspace
{
    private static readonly HashSet<string> SkippedFolders = new(StringComparer.OrdinalIgnoreCase) { ".git", ".vs", "bin", "obj", "TestResults", "BenchmarkDotNet.Artifacts" };

    private HashSet<string> _pristine = new(StringComparer.Ordinal);

    public Workspace(string root) => Root = root;

    public string Root { get; }

    public static Workspace CopyFrom(string source, string root)
    {
        Paths.CopyTree(source, root, SkippedFolders.Contains);
        return new Workspace(root);
    }

    /// <summary>Remembers the current tree (after restore) as the clean state.</summary>
    public void MarkPristine() => _pristine = Entries().ToHashSet(StringComparer.Ordinal);

    /// <summary>Deletes everything that is not part of the clean state.</summary>
    public void Clean()
    {
        // Deepest first, so folders are empty by the time they are looked at.
        foreach (string entry in Entries().Where(e => !_pristine.Contains(e)).OrderByDescending(e => e.Length))
        {
            string path = Path.Combine(Root, entry);
            if (Directory.Exists(path) && new FileInfo(path).LinkTarget is null)
            {
                Directory.Delete(path, recursive: true);
            }
            else if (File.Exists(path) || new FileInfo(path).LinkTarget is not null)
            {
                File.Delete(path);
            }
        }
    }

    /// <summary>Every file now in the tree, with its size and last write time, to tell later what a build wrote.</summary>
    public Dictionary<string, (long Length, DateTime LastWriteUtc)> Snapshot()
        => Entries()
            .Select(e => new FileInfo(Path.Combine(Root, e)))
            .Where(f => f.Exists && f.LinkTarget is null)
            .ToDictionary(f => f.FullName, f => (f.Length, f.LastWriteTimeUtc), StringComparer.Ordinal);

    /// <summary>
    /// Sum of the sizes of the files a build created or rewrote since <paramref name="before"/> (their apparent size:
    /// what a byte copy would write). For a clean build that is every output; for an incremental one only what changed.
    /// </summary>
    public long BytesWrittenSince(Dictionary<string, (long Length, DateTime LastWriteUtc)> before)
        => Snapshot()
            .Where(now => !before.TryGetValue(now.Key, out (long Length, DateTime LastWriteUtc) then) || then != now.Value)
            .Sum(now => now.Value.Length);

    private IEnumerable<string> Entries()
    {
        var pending = new Stack<string>();
        pending.Push(Root);
        while (pending.Count > 0)
        {
            string folder = pending.Pop();
            foreach (string entry in Directory.EnumerateFileSystemEntries(folder))
            {
                yield return Path.GetRelativePath(Root, entry);
                if (Directory.Exists(entry) && new FileInfo(entry).LinkTarget is null)
                {
                    pending.Push(entry);
                }
            }
        }
    }
}
