using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Settings;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// Outputs that are links into a package folder now (docs/links.md), found by reading only: symbolic links by target,
/// hard links by device and inode among the copied packages' files (Linux only: the task's statx).
/// </summary>
/// <param name="Examples">A few of them, as paths.</param>
internal sealed record LinkedOutputs(int Count, IReadOnlyList<string> Examples)
{
    public static LinkedOutputs None { get; } = new(0, []);

    /// <summary>Files looked at, at most, in the outputs and in the packages: the check stays quick on a large tree.</summary>
    private const int MostFiles = 100_000;

    /// <param name="outputs">The build's output folders (bin, obj; a publish folder is below bin).</param>
    /// <param name="packageFolders">The package cache and fallback folders.</param>
    /// <param name="packages">The folders (ID/VERSION) of the packages restore says a build copies files from.</param>
    public static LinkedOutputs Find(IEnumerable<string> outputs, IReadOnlyList<string> packageFolders, IEnumerable<string> packages)
    {
        if (packageFolders.Count == 0)
        {
            return None;
        }

        var found = new List<string>();
        var hardLinked = new Dictionary<(ulong Device, ulong Inode), List<string>>();
        foreach (string file in outputs.Where(Directory.Exists).SelectMany(Files).Take(MostFiles))
        {
            FileInfo info = new(file);
            if (info.LinkTarget is not null)
            {
                string? target = Resolved(info);
                if (target is not null && packageFolders.Any(folder => CopySources.IsInside(target, folder, MSBuildHost.PathComparison)))
                {
                    found.Add(file);
                }
            }
            else if (UnixFiles.Probe(file, followLinks: false, out EntryIdentity entry) == EntryKind.RegularFile && entry.Links > 1)
            {
                (hardLinked.TryGetValue((entry.Device, entry.Inode), out List<string>? names) ? names : hardLinked[(entry.Device, entry.Inode)] = []).Add(file);
            }
        }

        if (hardLinked.Count > 0)
        {
            foreach (string file in packages.Where(Directory.Exists).SelectMany(Files).Take(MostFiles))
            {
                if (UnixFiles.Probe(file, followLinks: false, out EntryIdentity entry) == EntryKind.RegularFile
                    && hardLinked.Remove((entry.Device, entry.Inode), out List<string>? names))
                {
                    found.AddRange(names);
                }
            }
        }

        found.Sort(StringComparer.Ordinal);
        return found.Count == 0 ? None : new LinkedOutputs(found.Count, found.Take(3).ToList());
    }

    private static IEnumerable<string> Files(string folder)
    {
        try
        {
            return Directory.EnumerateFiles(folder, "*", new EnumerationOptions { RecurseSubdirectories = true, IgnoreInaccessible = true, AttributesToSkip = 0 });
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }

    private static string? Resolved(FileInfo link)
    {
        try
        {
            return link.ResolveLinkTarget(returnFinalTarget: true)?.FullName;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null; // a link that cannot be followed points nowhere a write could reach
        }
    }
}
