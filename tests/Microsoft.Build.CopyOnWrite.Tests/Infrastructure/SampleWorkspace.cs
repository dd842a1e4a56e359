using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// A copy of samples/ in a folder of the test's choosing (ext4, XFS, btrfs), wired to the SDK packed from
/// this working tree, and built with the real `dotnet build` as a user would (or in the test process, where the
/// question is our targets' and task's).
/// </summary>
public sealed partial class SampleWorkspace
{
    public const string SolutionRelativePath = "Snowball/Snowball.sln";

    private SampleWorkspace(string root) => Root = root;

    public string Root { get; }

    public string SolutionFolder => Path.Combine(Root, Path.GetDirectoryName(SolutionRelativePath)!);

    public static SampleWorkspace CreateIn(string parentFolder)
    {
        string root = Path.Combine(parentFolder, "samples");
        CopyTree(RepositoryLayout.Samples, root);
        SdkPackage.WriteNuGetConfig(root);
        return new SampleWorkspace(root);
    }

    /// <summary>Builds the sample solution; extra arguments such as "-p:DisableCopyOnWrite=true" are passed on.</summary>
    public BuildLog Build(params string[] extraArguments)
    {
        string[] arguments = ["build", Path.GetFileName(SolutionRelativePath), "-v:n", "-nologo", "-nr:false", .. extraArguments];
        return new BuildLog(SdkPackage.Dotnet(SolutionFolder, arguments).Output);
    }

    /// <summary>As <see cref="Build"/>, in this test process (<see cref="InProcessBuild"/>): for questions about our targets and task.</summary>
    public BuildLog BuildInProcess(params string[] extraArguments)
        => new(InProcessBuild.DotnetBuild(Path.Combine(SolutionFolder, Path.GetFileName(SolutionRelativePath)), ["-v:n", .. extraArguments]).Output);

    /// <summary>Every file under the sample's bin/ and artifacts/ folders: what a build produced by copying.</summary>
    public TreeSnapshot Outputs() => TreeSnapshot.Of(SolutionFolder, path => path.Contains("/bin/", StringComparison.Ordinal) || path.StartsWith("artifacts/", StringComparison.Ordinal));

    /// <summary>Deletes what the copies produced (bin/, artifacts/) and keeps obj/, so a rebuild only copies.</summary>
    public void DeleteCopiedOutputs()
    {
        foreach (string bin in Directory.GetDirectories(SolutionFolder, "bin", SearchOption.AllDirectories))
        {
            Directory.Delete(bin, recursive: true);
        }

        string artifacts = Path.Combine(SolutionFolder, "artifacts");
        if (Directory.Exists(artifacts))
        {
            Directory.Delete(artifacts, recursive: true);
        }
    }

    private static void CopyTree(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (string file in Directory.EnumerateFiles(from, "*", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(from, file);
            if (relative.Split(Path.DirectorySeparatorChar).Any(part => part is "bin" or "obj" or "artifacts"))
            {
                continue;
            }

            string target = Path.Combine(to, relative);
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }
    }
}

/// <summary>What a `dotnet build -v:n` printed, with our summary lines picked out.</summary>
public sealed partial class BuildLog
{
    public BuildLog(string output) => Output = output;

    public string Output { get; }

    public IReadOnlyList<string> SummaryLines => Output.Split('\n').Select(line => line.Trim()).Where(line => line.StartsWith("CopyOnWrite:", StringComparison.Ordinal)).ToList();

    /// <summary>(source, destination) full paths of every "Copying file from" message.</summary>
    public IReadOnlyList<(string Source, string Destination)> CopiedPairs => CopyingLines
        .Select(line => CopyingMessage().Match(line))
        .Where(match => match.Success)
        .Select(match => (match.Groups[1].Value, match.Groups[2].Value))
        .ToList();

    [GeneratedRegex("^Copying file from \"(.+)\" to \"(.+)\"\\.$")]
    private static partial Regex CopyingMessage();

    /// <summary>
    /// Where MSBuild loaded each project's Copy task from, in its own words (-v:d and above): our task assembly's
    /// path, or "Microsoft.Build.Tasks.Core, Version=..." for the stock task.
    /// </summary>
    public IReadOnlyList<string> CopyTaskAssemblies => Output.Split('\n')
        .Select(line => CopyTaskAssembly().Match(line.Trim()))
        .Where(match => match.Success)
        .Select(match => match.Groups[1].Value)
        .ToList();

    [GeneratedRegex("^Using \"Copy\" task from assembly \"(.+)\"\\.$")]
    private static partial Regex CopyTaskAssembly();

    public IReadOnlyList<string> CopyingLines => Output.Split('\n').Select(line => line.Trim()).Where(line => line.StartsWith("Copying file from", StringComparison.Ordinal)).ToList();

    /// <summary>Sum of "cloned N files" over all summary lines.</summary>
    public int ClonedFiles => SummaryLines.Sum(line => Count(line, ClonedCount()));

    public int CopiedFiles => SummaryLines.Sum(line => Count(line, CopiedCount()));

    private static int Count(string line, Regex pattern)
    {
        Match match = pattern.Match(line);
        return match.Success ? int.Parse(match.Groups[1].Value) : 0;
    }

    [GeneratedRegex(@"cloned (\d+) files?")]
    private static partial Regex ClonedCount();

    [GeneratedRegex(@"copied (\d+) files?")]
    private static partial Regex CopiedCount();

    public override string ToString() => Output;
}

/// <summary>Relative path → content hash, size, last-write time to the nanosecond, mode and inode, read with find(1).</summary>
public sealed class TreeSnapshot
{
    private TreeSnapshot(IReadOnlyDictionary<string, FileEntry> files) => Files = files;

    public IReadOnlyDictionary<string, FileEntry> Files { get; }

    public static TreeSnapshot Of(string root, Func<string, bool> include)
    {
        ProcessResult find = ProcessRunner.Run("find", root, "-type", "f", "-printf", "%P|%T@|%m|%s|%i\\n");
        Assert.IsTrue(find.Succeeded, find.Output);
        var files = new SortedDictionary<string, FileEntry>(StringComparer.Ordinal);
        foreach (string line in find.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            string[] f = line.Split('|');
            if (!include(f[0]))
            {
                continue;
            }

            string hash = Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(Path.Combine(root, f[0]))));
            files[f[0]] = new FileEntry(hash, long.Parse(f[3]), f[1], f[2], f[4]);
        }

        return new TreeSnapshot(files);
    }

    /// <summary>Lines naming every difference in files, bytes, times and modes (inodes are not compared).</summary>
    /// <param name="timeNotCompared">Files whose last-write time is not the Copy task's doing.</param>
    public IReadOnlyList<string> DifferencesFrom(TreeSnapshot expected, Func<string, bool>? timeNotCompared = null)
    {
        var differences = new List<string>();
        foreach (string missing in expected.Files.Keys.Except(Files.Keys))
        {
            differences.Add($"missing: {missing}");
        }

        foreach (string extra in Files.Keys.Except(expected.Files.Keys))
        {
            differences.Add($"extra: {extra}");
        }

        foreach ((string path, FileEntry actual) in Files)
        {
            if (expected.Files.TryGetValue(path, out FileEntry? wanted)
                && wanted with { Inode = actual.Inode, ModifiedNanoseconds = timeNotCompared?.Invoke(path) == true ? actual.ModifiedNanoseconds : wanted.ModifiedNanoseconds } != actual)
            {
                differences.Add($"{path}: expected {wanted}, got {actual}");
            }
        }

        return differences;
    }
}

public sealed record FileEntry(string Sha256, long Size, string ModifiedNanoseconds, string Mode, string Inode);
