using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Doctor;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// The folders a build of a repository copies between, found without building it: the repository, its outputs
/// (artifacts/, else bin/ and obj/ of its first project, as the .NET SDK lays them out by default), NuGet's package
/// cache and fallback folders as NuGet itself resolves them there (NUGET_PACKAGES, NuGet.config, the default), the
/// .NET installation the `dotnet` on PATH runs from, and the temp folder.
/// </summary>
internal static class BuildFolders
{
    public static IReadOnlyList<CheckedFolder> Of(string repository, IEnumerable<string> others)
    {
        repository = Path.GetFullPath(repository);
        var folders = new List<CheckedFolder> { new(FolderRole.Repository, repository) };
        folders.AddRange(Outputs(repository));
        if (PackageCache(repository) is string cache)
        {
            folders.Add(new CheckedFolder(FolderRole.PackageCache, cache));
        }

        folders.AddRange(FallbackFolders(repository).Select(f => new CheckedFolder(FolderRole.PackageFallbackFolder, f)));
        if (DotnetInstallation() is string dotnet)
        {
            folders.Add(new CheckedFolder(FolderRole.DotnetInstallation, dotnet));
        }

        folders.Add(new CheckedFolder(FolderRole.TempFolder, Path.GetTempPath()));
        folders.AddRange(others.Select(o => new CheckedFolder(FolderRole.NamedFolder, Path.GetFullPath(o))));
        return folders;
    }

    private static IEnumerable<CheckedFolder> Outputs(string repository)
    {
        string artifacts = Path.Combine(repository, "artifacts");
        if (Directory.Exists(artifacts))
        {
            yield return new CheckedFolder(FolderRole.BuildOutput, artifacts);
            yield break;
        }

        string? project = FirstProject(repository);
        string projectFolder = project is null ? repository : Path.GetDirectoryName(project)!;
        yield return new CheckedFolder(FolderRole.BuildOutput, Path.Combine(projectFolder, "bin"));
        yield return new CheckedFolder(FolderRole.IntermediateOutput, Path.Combine(projectFolder, "obj"));
    }

    /// <summary>The first project file, breadth first, three folders deep at most (a repository's src/App/App.csproj).</summary>
    private static string? FirstProject(string repository)
    {
        var level = new List<string> { repository };
        for (int depth = 0; depth < 4 && level.Count > 0; depth++)
        {
            foreach (string folder in level)
            {
                string? project = SafeFiles(folder).Where(f => f.EndsWith("proj", StringComparison.OrdinalIgnoreCase) && Path.GetExtension(f) is ".csproj" or ".fsproj" or ".vbproj").OrderBy(f => f, StringComparer.Ordinal).FirstOrDefault();
                if (project is not null)
                {
                    return project;
                }
            }

            level = level.SelectMany(SafeFolders).Where(f => Path.GetFileName(f) is not ("bin" or "obj" or "node_modules") && !Path.GetFileName(f).StartsWith('.')).OrderBy(f => f, StringComparer.Ordinal).ToList();
        }

        return null;
    }

    /// <summary>`dotnet nuget locals global-packages --list` in the repository: NuGet's own answer (NUGET_PACKAGES, NuGet.config, the default).</summary>
    private static string? PackageCache(string repository)
    {
        ShellResult result = Shell.Run("dotnet", ["nuget", "locals", "global-packages", "--list"], workingDirectory: repository, timeout: TimeSpan.FromMinutes(1));
        string? line = result.Output.Split('\n').Select(l => l.Trim()).FirstOrDefault(l => l.StartsWith("global-packages:", StringComparison.Ordinal));
        return result.Succeeded && line is not null ? line["global-packages:".Length..].Trim() : null;
    }

    /// <summary>The fallbackPackageFolders of the NuGet.config files that apply in the repository (`dotnet nuget config get all`).</summary>
    internal static IEnumerable<string> FallbackFolders(string repository)
    {
        ShellResult result = Shell.Run("dotnet", ["nuget", "config", "get", "all", "--working-directory", repository], timeout: TimeSpan.FromMinutes(1));
        return result.Succeeded ? ParseFallbackFolders(result.Output) : [];
    }

    /// <summary>From "fallbackPackageFolders:" then indented `add key="..." value="..."` lines, the values.</summary>
    internal static IEnumerable<string> ParseFallbackFolders(string configOutput)
    {
        bool inSection = false;
        foreach (string line in configOutput.Split('\n'))
        {
            if (!line.StartsWith('\t') && !line.StartsWith(' '))
            {
                inSection = line.Trim().Equals("fallbackPackageFolders:", StringComparison.OrdinalIgnoreCase);
                continue;
            }

            int value = line.IndexOf("value=\"", StringComparison.Ordinal);
            if (inSection && value >= 0)
            {
                int start = value + "value=\"".Length;
                int end = line.IndexOf('"', start);
                if (end > start)
                {
                    yield return line[start..end];
                }
            }
        }
    }

    /// <summary>The folder of the `dotnet` that builds: the one on PATH with its links resolved, else DOTNET_ROOT.</summary>
    private static string? DotnetInstallation()
    {
        string executable = OperatingSystem.IsWindows() ? "dotnet.exe" : "dotnet";
        foreach (string folder in (Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
        {
            var candidate = new FileInfo(Path.Combine(folder, executable));
            if (candidate.Exists)
            {
                FileSystemInfo real = candidate.ResolveLinkTarget(returnFinalTarget: true) ?? candidate;
                return Path.GetDirectoryName(real.FullName);
            }
        }

        return Environment.GetEnvironmentVariable("DOTNET_ROOT") is string root && Directory.Exists(root) ? root : null;
    }

    private static IEnumerable<string> SafeFiles(string folder)
    {
        try
        {
            return Directory.GetFiles(folder);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }

    private static IEnumerable<string> SafeFolders(string folder)
    {
        try
        {
            return Directory.GetDirectories(folder);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }
}
