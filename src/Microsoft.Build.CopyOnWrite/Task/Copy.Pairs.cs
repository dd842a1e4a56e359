using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite;

// Which source goes to which destination, in what order and on which threads: what the stock task decides before it
// touches a file (input order per destination, folders depth first).
public sealed partial class Copy
{
    /// <summary>Pairs every source with its destination; with DestinationFolder, makes the destination items.</summary>
    private bool TryPlanPairs(out List<CopyPair> pairs)
    {
        pairs = new List<CopyPair>();
        ITaskItem[] sources = SourceFiles ?? Array.Empty<ITaskItem>();
        if (DestinationFiles is not null)
        {
            for (int i = 0; i < sources.Length; i++)
            {
                pairs.Add(new CopyPair(sources[i], DestinationFiles[i]));
            }

            return true;
        }

        var destinations = new List<ITaskItem>();
        string folder = DestinationFolder!.ItemSpec;
        string? folderPath = null;
        try
        {
            folderPath = ResolvePath(DestinationFolder);
        }
        catch (Exception e) when (IsBadPath(e))
        {
            // Each pair reports it (MSB3021) when it resolves its own destination, as the stock task does.
        }

        _destinationFolderPath = folderPath;

        foreach (ITaskItem source in sources)
        {
            if (!TryAddFolderPair(source, null, source, folder, folderPath, Path.GetFileName(source.ItemSpec), pairs, destinations))
            {
                return false;
            }
        }

        foreach (ITaskItem sourceFolder in SourceFolders ?? Array.Empty<ITaskItem>())
        {
            // As the stock task: the folder's own name (of its full path: "lib/." is "lib", "lib/" is ""), nothing for a
            // folder that does not exist, and the folder item's metadata on every generated destination.
            string folderSpec = sourceFolder.ItemSpec;
            string sourceFolderPath;
            try
            {
                sourceFolderPath = ResolvePath(sourceFolder);
            }
            catch (Exception e) when (IsBadPath(e))
            {
                return LogErrorAndFail(CopyMessages.UnableToCopy, folderSpec, folder, e.Message);
            }

            if (!Directory.Exists(sourceFolderPath))
            {
                continue;
            }

            string folderName = Path.GetFileName(sourceFolderPath);
            foreach (string file in FilesDepthFirst(sourceFolderPath))
            {
                string relative = file.Substring(sourceFolderPath.Length).TrimStart(Path.DirectorySeparatorChar, Path.AltDirectorySeparatorChar);
                var source = new TaskItem(MSBuildEscaping.Escape(file));
                if (!TryAddFolderPair(source, file, sourceFolder, folder, folderPath, Path.Combine(folderName, relative), pairs, destinations))
                {
                    return false;
                }
            }
        }

        DestinationFiles = destinations.ToArray();
        return true;
    }

    /// <summary>Every file under <paramref name="folder"/> in the stock task's order: subfolders first (the last listed first), then its files.</summary>
    private static IEnumerable<string> FilesDepthFirst(string folder)
    {
        foreach (string subfolder in Directory.EnumerateDirectories(folder).Reverse())
        {
            foreach (string file in FilesDepthFirst(subfolder))
            {
                yield return file;
            }
        }

        foreach (string file in Directory.EnumerateFiles(folder))
        {
            yield return file;
        }
    }

    /// <param name="sourcePath">The source's full path when we made the source item ourselves; else null (resolved from the item).</param>
    /// <param name="folderPath">DestinationFolder's full path (null when it is not a valid path).</param>
    private bool TryAddFolderPair(ITaskItem source, string? sourcePath, ITaskItem metadataSource, string folder, string? folderPath, string relativeDestination, List<CopyPair> pairs, List<ITaskItem> destinations)
    {
        TaskItem destination;
        try
        {
            destination = new TaskItem(MSBuildEscaping.Escape(Path.Combine(folder, relativeDestination)));
        }
        catch (ArgumentException e)
        {
            return LogErrorAndFail(CopyMessages.UnableToCopy, source.ItemSpec, folder, e.Message);
        }

        metadataSource.CopyMetadataTo(destination);
        destinations.Add(destination);

        // The generated item's full path comes from DestinationFolder's, never from this process's current
        // directory (a TaskItem we make resolves against that, not against the project's directory).
        string? destinationPath = null;
        if (folderPath is not null)
        {
            try
            {
                destinationPath = Path.GetFullPath(Path.Combine(folderPath, relativeDestination));
            }
            catch (Exception e) when (IsBadPath(e))
            {
                // Reported by the pair itself.
            }
        }

        pairs.Add(new CopyPair(source, destination, sourcePath, destinationPath));
        return true;
    }

    /// <summary>Copies one destination's pairs in order (the stock task's for a destination named twice); groups run side by side.</summary>
    private void RunGroup(List<CopyPair> group)
    {
        string? previousSource = null;
        foreach (CopyPair pair in group)
        {
            if (_cancellation.IsCancellationRequested)
            {
                Interlocked.Increment(ref _failures);
                return;
            }

            // The same pair as the one before it for this destination: not attempted again, and reported as
            // copied even when that attempt failed (what the stock task does).
            if (previousSource is not null && string.Equals(previousSource, pair.Source.ItemSpec, MSBuildHost.PathComparison))
            {
                pair.Succeeded = Succeeded(pair);
                continue;
            }

            previousSource = pair.Source.ItemSpec;
            pair.Succeeded = CopyOne(pair);
            if (!pair.Succeeded)
            {
                Interlocked.Increment(ref _failures);
            }
        }
    }

    /// <summary>The pairs per destination spec, in the order each destination first appears.</summary>
    /// <remarks>A loop, not LINQ's GroupBy: that costs about 0.6 ms of first-use work in every MSBuild node (measured).</remarks>
    private static List<List<CopyPair>> GroupByDestination(List<CopyPair> pairs)
    {
        var groups = new List<List<CopyPair>>(pairs.Count);
        if (pairs.Count == 1)
        {
            groups.Add(pairs);
            return groups;
        }

        var groupOf = new Dictionary<string, List<CopyPair>>(pairs.Count, MSBuildHost.PathComparer);
        foreach (CopyPair pair in pairs)
        {
            if (!groupOf.TryGetValue(pair.Destination.ItemSpec, out List<CopyPair>? group))
            {
                group = new List<CopyPair>(1);
                groupOf.Add(pair.Destination.ItemSpec, group);
                groups.Add(group);
            }

            group.Add(pair);
        }

        return groups;
    }

    private int DegreeOfParallelism()
        => _environment("MSBUILDCOPYTASKPARALLELISM") == "1" ? 1 : Environment.ProcessorCount > 4 ? 6 : 4;

    /// <summary>
    /// An item's full path, from its FullPath metadata (against its project's folder): never the process's current folder,
    /// which under -mt is not the project's. A spec that is no valid path fails as Path.GetFullPath fails.
    /// </summary>
    private static string ResolvePath(ITaskItem item)
    {
        string fullPath;
        try
        {
            fullPath = item.GetMetadata("FullPath");
        }
        catch (Exception e) when (e is InvalidOperationException or ArgumentException or NotSupportedException or PathTooLongException)
        {
            ThrowLikeGetFullPath(item.ItemSpec);
            throw;
        }

        if (string.IsNullOrEmpty(fullPath))
        {
            ThrowLikeGetFullPath(item.ItemSpec);
            throw new ArgumentException($"The path is empty: '{item.ItemSpec}'.");
        }

        return fullPath;
    }

    /// <summary>Throws the exception Path.GetFullPath gives for a bad path (the text the stock task's MSB3021 shows).</summary>
    private static void ThrowLikeGetFullPath(string path)
    {
        if (path.Length == 0 || path.IndexOf('\0') >= 0 || !Path.IsPathRooted(path))
        {
            Path.GetFullPath(path.Length == 0 ? path : Path.Combine(Path.DirectorySeparatorChar.ToString(), path));
        }
    }

    /// <summary>Path errors that no retry can fix (MSB3021 at once).</summary>
    private static bool IsBadPath(Exception e) => e is ArgumentException or NotSupportedException or PathTooLongException;

    /// <param name="sourcePath">With <paramref name="destinationPath"/>, full paths known when planning (generated items); else resolved from the items.</param>
    private sealed class CopyPair(ITaskItem source, ITaskItem destination, string? sourcePath = null, string? destinationPath = null)
    {
        public ITaskItem Source { get; } = source;

        public ITaskItem Destination { get; } = destination;

        public string? SourcePath { get; } = sourcePath;

        public string? DestinationPath { get; } = destinationPath;

        public bool Succeeded { get; set; }
    }
}
