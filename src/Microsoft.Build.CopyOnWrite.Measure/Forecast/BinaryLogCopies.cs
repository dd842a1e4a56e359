using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Microsoft.Build.Logging.StructuredLogger;
using StructuredBuild = Microsoft.Build.Logging.StructuredLogger.Build;
using StructuredTask = Microsoft.Build.Logging.StructuredLogger.Task;

namespace Microsoft.Build.CopyOnWrite.Measure.Forecast;

/// <summary>How a Copy task put a file at its destination, as its own message says.</summary>
internal enum CopyKind
{
    /// <summary>"Copying file from A to B.": the bytes were written (or, on a clone-capable volume, cloned).</summary>
    Copied,

    /// <summary>"Creating hard link to copy A to B.": no bytes moved, so cloning has nothing to save.</summary>
    HardLinked,

    /// <summary>"Creating symbolic link to copy A to B.": likewise.</summary>
    SymbolicLinked,
}

/// <summary>One file one Copy task put at its destination.</summary>
internal sealed record FileCopy(string Source, string Destination, CopyKind Kind);

/// <summary>One run of a Copy task (MSBuild's or ours) in the build.</summary>
/// <param name="Ours">Whether the task came from Microsoft.Build.CopyOnWrite, not MSBuild's own assembly.</param>
/// <param name="SkippedUnchanged">Files the task left alone because SkipUnchangedFiles found them up to date.</param>
internal sealed record CopyTaskRun(string Project, DateTime Start, DateTime End, bool Ours, IReadOnlyList<FileCopy> Files, int SkippedUnchanged)
{
    public TimeSpan Duration => End - Start;
}

/// <summary>What a binary log says about a build's copies: every Copy task's files and times, and the build's own span.</summary>
internal sealed record BuildCopies(string BinaryLog, DateTime Start, DateTime End, bool Succeeded, IReadOnlyList<CopyTaskRun> CopyTasks)
{
    public TimeSpan Wall => End - Start;
}

/// <summary>
/// The Copy tasks of a build from its binary log (MSBuild.StructuredLogger), by their messages: SourceFiles and
/// DestinationFiles also list the files skipped as up to date, and only messages tell written files from linked ones.
/// </summary>
internal static partial class BinaryLogCopies
{
    public static BuildCopies Read(string path)
    {
        string full = Path.GetFullPath(path);
        FileAsFound file = FileAsFound.Of(full);
        if (!file.Exists)
        {
            throw new MeasureException($"predict {path}: no such file; give the binary log of a build (dotnet build -bl writes msbuild.binlog).");
        }

        if (!file.Regular || file.Size == 0)
        {
            // A FIFO or a device would be read forever, a folder not at all.
            throw new MeasureException($"predict {path}: {(file.Regular ? "an empty file" : "not a regular file (a folder, a FIFO, a device...)")}, not a binary log; give the .binlog that dotnet build -bl writes.");
        }

        StructuredBuild build;
        try
        {
            build = BinaryLog.ReadBuild(full);
        }
        catch (Exception e) when (e is not (OutOfMemoryException or FileNotFoundException or FileLoadException or TypeLoadException or MissingMemberException))
        {
            // Those left out are a broken installation of this tool, not a bad log: they surface as they are.
            // The reader says what it choked on (an unknown compression, a bad record), which means little to a user.
            throw new MeasureException($"predict {path}: not a binary log MSBuild.StructuredLogger can read ({e.GetType().Name}); give the .binlog that dotnet build -bl writes.");
        }

        if (build.EndTime == default || build.StartTime == default)
        {
            throw new MeasureException($"predict {path}: the binary log ends before its build did (cut short, or still being written); build again with -bl and let it finish.");
        }

        var runs = new List<CopyTaskRun>();
        build.VisitAllChildren<StructuredTask>(task =>
        {
            if (string.Equals(task.Name, "Copy", StringComparison.Ordinal))
            {
                runs.Add(ReadCopyTask(task));
            }
        });

        if (runs.Count == 0)
        {
            throw new MeasureException($"predict {path}: this build ran no Copy task, so there is nothing to forecast; give the log of a build that produces outputs (a clean dotnet build -bl).");
        }

        return new BuildCopies(full, build.StartTime, build.EndTime, build.Succeeded, runs.OrderBy(r => r.Start).ToList());
    }

    private static CopyTaskRun ReadCopyTask(StructuredTask task)
    {
        Project? project = task.GetNearestParent<Project>();
        string projectFile = project?.ProjectFile ?? string.Empty;
        string projectFolder = Path.GetDirectoryName(projectFile) is { Length: > 0 } folder ? folder : Environment.CurrentDirectory;

        // A task copies a destination once; a later message for the same destination (a link that failed, then a
        // copy) says what finally happened there.
        var byDestination = new Dictionary<string, FileCopy>(StringComparer.Ordinal);
        var order = new List<string>();
        int skipped = 0;
        foreach (Message message in task.Children.OfType<Message>())
        {
            string text = message.Text ?? string.Empty;
            if (text.StartsWith("Did not copy from file ", StringComparison.Ordinal))
            {
                skipped++;
                continue;
            }

            Match match = Written().Match(text);
            if (!match.Success)
            {
                continue;
            }

            CopyKind kind = match.Groups["verb"].Value switch
            {
                "Creating hard link to copy" => CopyKind.HardLinked,
                "Creating symbolic link to copy" => CopyKind.SymbolicLinked,
                _ => CopyKind.Copied,
            };

            // MSBuild logs the paths as the project gave them, which may be relative to the project's folder.
            string source = Path.GetFullPath(match.Groups["from"].Value, projectFolder);
            string destination = Path.GetFullPath(match.Groups["to"].Value, projectFolder);
            if (!byDestination.ContainsKey(destination))
            {
                order.Add(destination);
            }

            byDestination[destination] = new FileCopy(source, destination, kind);
        }

        bool ours = task.FromAssembly?.Contains("Microsoft.Build.CopyOnWrite", StringComparison.OrdinalIgnoreCase) == true;
        string projectName = project?.Name ?? Path.GetFileName(projectFile);
        return new CopyTaskRun(projectName, task.StartTime, task.EndTime, ours, order.Select(d => byDestination[d]).ToList(), skipped);
    }

    // The stock task's messages, which ours logs word for word: "Copying file from "A" to "B"." and the two link forms.
    [GeneratedRegex("^(?<verb>Copying file from|Creating hard link to copy|Creating symbolic link to copy) \"(?<from>[^\"]+)\" to \"(?<to>[^\"]+)\"\\.?$")]
    private static partial Regex Written();
}
