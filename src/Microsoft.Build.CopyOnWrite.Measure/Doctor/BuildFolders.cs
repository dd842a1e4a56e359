using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Doctor;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// The folders a build of a repository copies between, found without building it: the repository (the nearest folder
/// with a Directory.Build.props at or above what the user named, as the CopyOnWriteDoctor target takes it), its outputs
/// (OutDir and IntermediateOutputPath of the project named, else the first one of the solution named, else the first
/// one in the folder named, as MSBuild evaluates them; else artifacts/, else that project's bin/ and obj/), NuGet's package
/// cache and fallback folders as NuGet itself resolves them there (NUGET_PACKAGES, NuGet.config, the default), the
/// .NET installation the `dotnet` on PATH runs from, and the temp folder.
/// </summary>
internal static class BuildFolders
{
    /// <summary>
    /// From what the user named (a folder, a solution or a project file), the repository and the project whose outputs
    /// are checked; false with the problem, said as a sentence, when there is no such file or folder or no project.
    /// </summary>
    public static bool TryFindProject(string named, out string repository, out string? project, out string? problem)
    {
        string path = Path.GetFullPath(named);
        repository = path;
        project = null;
        problem = null;
        string start;
        if (File.Exists(path))
        {
            start = Path.GetDirectoryName(path)!;
            string extension = Path.GetExtension(path).ToLowerInvariant();
            if (extension is ".sln" or ".slnx")
            {
                project = SolutionProjects(path).FirstOrDefault(File.Exists);
                if (project is null)
                {
                    problem = "no project found in this solution (it lists no .csproj, .fsproj or .vbproj that exists); name a solution with projects, or a project file.";
                    return false;
                }
            }
            else if (extension.EndsWith("proj", StringComparison.Ordinal))
            {
                project = path;
            }
            else
            {
                problem = "not a solution (.sln, .slnx) or a project file; name one of those, or the repository's folder.";
                return false;
            }
        }
        else if (Directory.Exists(path))
        {
            start = path;
            project = ProjectMSBuildWouldBuildIn(path);
            if (project is null)
            {
                problem = "no project found (no .csproj, .fsproj or .vbproj in this folder or three folders below it); name the repository's folder, a solution or a project file.";
                return false;
            }
        }
        else
        {
            problem = "no such file or folder; name the repository's folder, a solution or a project file (or run it in the repository).";
            return false;
        }

        repository = RepositoryRoot(start);
        return true;
    }

    /// <summary>The nearest folder at or above <paramref name="start"/> with a Directory.Build.props (MSBuild's DirectoryBuildPropsPath), else <paramref name="start"/>.</summary>
    internal static string RepositoryRoot(string start)
    {
        for (DirectoryInfo? folder = new(start); folder is not null; folder = folder.Parent)
        {
            if (File.Exists(Path.Combine(folder.FullName, "Directory.Build.props")))
            {
                return folder.FullName;
            }
        }

        return start;
    }

    /// <summary>The project files a .sln (Project(...) = "Name", "path", ...) or .slnx (&lt;Project Path="path" /&gt;) lists, as full paths, in its order.</summary>
    internal static IEnumerable<string> SolutionProjects(string solution)
    {
        string folder = Path.GetDirectoryName(solution)!;
        string text = File.ReadAllText(solution);
        System.Text.RegularExpressions.Regex pattern = solution.EndsWith(".slnx", StringComparison.OrdinalIgnoreCase)
            ? new(@"<Project\s[^>]*Path=""([^""]+)""")
            : new(@"^Project\(""[^""]*""\)\s*=\s*""[^""]*""\s*,\s*""([^""]+)""", System.Text.RegularExpressions.RegexOptions.Multiline);
        return pattern.Matches(text)
            .Select(match => match.Groups[1].Value.Replace('\\', Path.DirectorySeparatorChar).Replace('/', Path.DirectorySeparatorChar))
            .Where(relative => Path.GetExtension(relative) is ".csproj" or ".fsproj" or ".vbproj")
            .Select(relative => Path.GetFullPath(Path.Combine(folder, relative)));
    }

    /// <summary>What the build knows beyond folders, as MSBuild evaluates the project: ProjectAssetsFile, CopyOnWriteAcceptCopiesFrom; and NUGET_FALLBACK_PACKAGES.</summary>
    public static BuildFacts FactsOf(string project)
    {
        IReadOnlyDictionary<string, string> properties = Evaluate(project);
        return new BuildFacts(
            properties.TryGetValue("ProjectAssetsFile", out string? assets) && !string.IsNullOrEmpty(assets) ? [InFolder(Path.GetDirectoryName(project)!, assets)] : [],
            BuildFacts.FullPaths(properties.GetValueOrDefault("CopyOnWriteAcceptCopiesFrom") ?? Environment.GetEnvironmentVariable("CopyOnWriteAcceptCopiesFrom")),
            BuildFacts.FullPaths(Environment.GetEnvironmentVariable("NUGET_FALLBACK_PACKAGES")));
    }

    public static IReadOnlyList<CheckedFolder> Of(string repository, string project, IEnumerable<string> others)
    {
        repository = Path.GetFullPath(repository);
        var folders = new List<CheckedFolder> { new(FolderRole.Repository, repository) };
        folders.AddRange(Outputs(project));
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

    private static IEnumerable<CheckedFolder> Outputs(string project)
    {
        if (OutputsAsMSBuildSaysThem(project) is (string output, string intermediate))
        {
            return [new CheckedFolder(FolderRole.BuildOutput, output), new CheckedFolder(FolderRole.IntermediateOutput, intermediate)];
        }

        string artifacts = Path.Combine(RepositoryRoot(Path.GetDirectoryName(project)!), "artifacts");
        if (Directory.Exists(artifacts))
        {
            return [new CheckedFolder(FolderRole.BuildOutput, artifacts)];
        }

        string projectFolder = Path.GetDirectoryName(project)!;
        return [new CheckedFolder(FolderRole.BuildOutput, Path.Combine(projectFolder, "bin")), new CheckedFolder(FolderRole.IntermediateOutput, Path.Combine(projectFolder, "obj"))];
    }

    /// <summary>OutDir and IntermediateOutputPath of the project as MSBuild evaluates them (no build: -getProperty), or null.</summary>
    private static (string Output, string Intermediate)? OutputsAsMSBuildSaysThem(string project)
    {
        IReadOnlyDictionary<string, string> properties = Evaluate(project);
        string folder = Path.GetDirectoryName(project)!;
        return properties.TryGetValue("OutDir", out string? output) && properties.TryGetValue("IntermediateOutputPath", out string? intermediate)
            && !string.IsNullOrEmpty(output) && !string.IsNullOrEmpty(intermediate)
            ? (InFolder(folder, output), InFolder(folder, intermediate))
            : null;
    }

    private static readonly Dictionary<string, IReadOnlyDictionary<string, string>> Evaluated = new(StringComparer.Ordinal);

    /// <summary>The properties the doctor reads, as MSBuild evaluates the project (no build: -getProperty), once per project; empty when MSBuild could not.</summary>
    private static IReadOnlyDictionary<string, string> Evaluate(string project)
    {
        if (Evaluated.TryGetValue(project, out IReadOnlyDictionary<string, string>? known))
        {
            return known;
        }

        string[] names = ["OutDir", "IntermediateOutputPath", "ProjectAssetsFile", "CopyOnWriteAcceptCopiesFrom"];
        ShellResult result = Shell.Run("dotnet", ["msbuild", project, "-nologo", .. names.Select(n => "-getProperty:" + n)], timeout: TimeSpan.FromMinutes(2));
        var values = new Dictionary<string, string>(StringComparer.Ordinal);
        int json = result.Output.IndexOf('{');
        if (result.Succeeded && json >= 0)
        {
            try
            {
                using var document = System.Text.Json.JsonDocument.Parse(result.Output[json..]);
                foreach (System.Text.Json.JsonProperty property in document.RootElement.GetProperty("Properties").EnumerateObject())
                {
                    values[property.Name] = property.Value.GetString() ?? string.Empty;
                }
            }
            catch (Exception e) when (e is System.Text.Json.JsonException or KeyNotFoundException or InvalidOperationException)
            {
                values.Clear();
            }
        }

        Evaluated[project] = values;
        return values;
    }

    /// <summary>A path MSBuild gave relative to the project (with \ as it writes them on every OS) as a full path here.</summary>
    private static string InFolder(string folder, string path)
        => Path.GetFullPath(Path.Combine(folder, OperatingSystem.IsWindows() ? path : path.Replace('\\', '/'))).TrimEnd(Path.DirectorySeparatorChar);

    /// <summary>
    /// The project whose outputs the doctor checks for a folder, by the rule both doors follow (README, "Ask the doctor"):
    /// what `dotnet build` would build there, so the project file in the folder, else the first project of the one
    /// solution in it, as the CopyOnWriteDoctor target run there reports it; with neither, the first project file below.
    /// </summary>
    private static string? ProjectMSBuildWouldBuildIn(string folder)
    {
        string[] here = SafeFiles(folder).ToArray();
        string[] projects = here.Where(f => Path.GetExtension(f) is ".csproj" or ".fsproj" or ".vbproj").ToArray();
        string[] solutions = here.Where(f => Path.GetExtension(f) is ".sln" or ".slnx").ToArray();
        return projects.Length == 1 ? projects[0]
            : projects.Length == 0 && solutions.Length == 1 ? SolutionProjects(solutions[0]).FirstOrDefault(File.Exists) ?? FirstProject(folder)
            : FirstProject(folder);
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
