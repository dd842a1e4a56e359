using System;
using System.IO;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// One Copy's files copied, not cloned, for one reason (and kind of source place): how many, how big, the first one, and
/// the deepest folders holding all their sources and all their destinations.
/// </summary>
internal sealed class NotClonedFiles
{
    public NotClonedFiles(FallbackReason reason, string? detail, SourceOrigin origin, string firstSource, string firstDestination)
    {
        Reason = reason;
        Detail = detail;
        Origin = origin;
        FirstSource = firstSource;
        FirstDestination = firstDestination;
        SourceRoot = FolderOf(firstSource);
        DestinationRoot = FolderOf(firstDestination);
    }

    public FallbackReason Reason { get; }

    /// <summary>The first file's detail (by reason: the file system, an error, a processor); files with other details count here too.</summary>
    public string? Detail { get; }

    /// <summary>Where the sources live (for files from another volume; <see cref="SourceOrigin.Movable"/> otherwise).</summary>
    public SourceOrigin Origin { get; }

    public string FirstSource { get; }

    public string FirstDestination { get; }

    public int Files { get; private set; }

    public long Bytes { get; private set; }

    /// <summary>The deepest folder that contains every source counted here.</summary>
    public string SourceRoot { get; private set; }

    /// <summary>The deepest folder that contains every destination counted here.</summary>
    public string DestinationRoot { get; private set; }

    /// <summary>Not thread-safe: the caller holds the summary's lock.</summary>
    public void Add(string sourcePath, string destinationPath, long bytes)
    {
        Files++;
        Bytes += bytes;
        SourceRoot = CommonFolder(SourceRoot, FolderOf(sourcePath));
        DestinationRoot = CommonFolder(DestinationRoot, FolderOf(destinationPath));
    }

    /// <summary>The reasons that are a missed clone; an empty file or a device has nothing to share.</summary>
    public static bool IsMissedClone(FallbackReason reason) => reason is not (FallbackReason.None or FallbackReason.EmptyFile or FallbackReason.NotARegularFile);

    private static string FolderOf(string path) => Path.GetDirectoryName(path) ?? path;

    /// <summary>The longest common ancestor folder of two full folder paths, compared component by component.</summary>
    public static string CommonFolder(string a, string b)
    {
        if (string.Equals(a, b, MSBuildHost.PathComparison))
        {
            return a;
        }

        char[] separators = { Path.DirectorySeparatorChar, Path.AltDirectorySeparatorChar };
        string[] left = a.Split(separators);
        string[] right = b.Split(separators);
        int common = 0;
        while (common < left.Length && common < right.Length && string.Equals(left[common], right[common], MSBuildHost.PathComparison))
        {
            common++;
        }

        if (common == 0)
        {
            return string.Empty; // different drives: no common folder
        }

        string joined = string.Join(Path.DirectorySeparatorChar.ToString(), left, 0, common);
        if (joined.Length == 0)
        {
            return Path.DirectorySeparatorChar.ToString(); // "/" on Unix
        }

        return joined.EndsWith(":", StringComparison.Ordinal) ? joined + Path.DirectorySeparatorChar : joined;
    }
}
