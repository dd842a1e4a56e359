using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// Which projects a doctor run checks, and their folders from MSBuild's own evaluation (-getProperty after NuGet's
/// _GetRestoreSettings; <see cref="ProjectFolders"/>), so the repository need not have adopted the SDK.
/// </summary>
internal static class BuildFolders
{
    /// <summary>
    /// From what the user named (a folder, a solution or a project file), the project whose folders are checked; false
    /// with the problem, said as a sentence, when there is no such file or folder or no project.
    /// </summary>
    public static bool TryFindProject(string named, out string? project, out string? problem)
    {
        bool found = TryFindProjects(named, out IReadOnlyList<string> projects, out problem);
        project = found ? projects[0] : null;
        return found;
    }

    /// <summary>
    /// As <see cref="TryFindProject"/>, but every project `dotnet build` builds there: each project a solution lists
    /// (the one named, or the one solution in the folder named when the folder holds no project file).
    /// </summary>
    public static bool TryFindProjects(string named, out IReadOnlyList<string> projects, out string? problem)
    {
        projects = [];
        if (!TryFindFirst(named, out string? first, out problem))
        {
            return false;
        }

        string path = Path.GetFullPath(named);
        string? solution = Directory.Exists(path) ? SolutionBuiltIn(path) : Path.GetExtension(path).ToLowerInvariant() is ".sln" or ".slnx" ? path : null;
        projects = solution is null ? [first!] : SolutionProjects(solution).Where(File.Exists).Distinct().DefaultIfEmpty(first!).ToList();
        return true;
    }

    private static bool TryFindFirst(string named, out string? project, out string? problem)
    {
        string path = Path.GetFullPath(named);
        project = null;
        problem = null;
        FileAsFound file = FileAsFound.Of(path);
        if (file.Exists && !file.Regular && !Directory.Exists(path))
        {
            // A FIFO or a device would be read forever.
            problem = "not a regular file (a FIFO, a device...); name the repository's folder, a solution or a project file.";
            return false;
        }

        if (File.Exists(path))
        {
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

        return true;
    }

    /// <summary>The project files a .sln (Project(...) = "Name", "path", ...) or .slnx (&lt;Project Path="path" /&gt;) lists, as full paths, in its order.</summary>
    internal static IEnumerable<string> SolutionProjects(string solution)
    {
        string folder = Path.GetDirectoryName(solution)!;
        string text;
        try
        {
            // Not a FIFO or a device, which would be read forever; a file that cannot be read lists no project.
            text = FileAsFound.Of(solution).Regular ? File.ReadAllText(solution) : string.Empty;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            text = string.Empty;
        }

        System.Text.RegularExpressions.Regex pattern = solution.EndsWith(".slnx", StringComparison.OrdinalIgnoreCase)
            ? new(@"<Project\s[^>]*Path=""([^""]+)""")
            : new(@"^Project\(""[^""]*""\)\s*=\s*""[^""]*""\s*,\s*""([^""]+)""", System.Text.RegularExpressions.RegexOptions.Multiline);
        return pattern.Matches(text)
            .Select(match => match.Groups[1].Value.Replace('\\', Path.DirectorySeparatorChar).Replace('/', Path.DirectorySeparatorChar))
            .Where(relative => Path.GetExtension(relative) is ".csproj" or ".fsproj" or ".vbproj")
            .Select(relative => Path.GetFullPath(Path.Combine(folder, relative)));
    }

    /// <summary>
    /// The project's folders as MSBuild evaluates it (<see cref="Evaluate"/>); false with MSBuild's first error, said
    /// as a sentence, when MSBuild cannot evaluate it.
    /// </summary>
    public static bool TryEvaluate(string project, out ProjectFolders? folders, out string? problem)
    {
        folders = null;
        problem = null;
        MSBuildAnswer answer = Evaluate(project, "_GetRestoreSettings", new Dictionary<string, string>(), ProjectFolders.PropertyNames);
        if (answer.Values.Count == 0 && answer.Output.Contains("MSB4057", StringComparison.Ordinal))
        {
            // A project without NuGet's targets (no _GetRestoreSettings): its evaluation alone, as the target then reads it.
            answer = Evaluate(project, null, new Dictionary<string, string>(), ProjectFolders.PropertyNames);
        }

        if (answer.Values.Count == 0)
        {
            string firstError = answer.Output.Split('\n').Select(line => line.Trim()).FirstOrDefault(line => line.Contains("error", StringComparison.OrdinalIgnoreCase))
                ?? answer.Output.Trim().Split('\n').FirstOrDefault() ?? "no output";
            problem = $"MSBuild could not evaluate {project} ({firstError}); fix what it says (`dotnet build` there shows the same), or name another project.";
            return false;
        }

        // A project with several target frameworks builds each in an inner build of its own, with its own output
        // folders (bin/Debug/net10.0/, artifacts/obj/App/debug_net10.0/): MSBuild is asked for those of each.
        var innerBuilds = new List<Func<string, string?>>();
        if (answer.Values.GetValueOrDefault("TargetFramework") is null or "" && answer.Values.GetValueOrDefault("TargetFrameworks") is { Length: > 0 } frameworks)
        {
            foreach (string framework in frameworks.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Distinct())
            {
                IReadOnlyDictionary<string, string> inner = Evaluate(project, null, new Dictionary<string, string> { ["TargetFramework"] = framework }, ["OutDir", "IntermediateOutputPath"]).Values;
                innerBuilds.Add(name => inner.GetValueOrDefault(name));
            }
        }

        folders = ProjectFolders.From(name => answer.Values.GetValueOrDefault(name), innerBuilds);
        return true;
    }

    /// <summary>
    /// How the doctor asks MSBuild for properties (after <c>target</c>, if named): `dotnet msbuild` in the project's
    /// folder, so its global.json picks the SDK. The tool's tests swap in the MSBuild registered in their process.
    /// </summary>
    internal static ProjectEvaluation Evaluate { get; set; } = DotnetMSBuild;

    /// <summary>`dotnet msbuild PROJECT -nologo [-t:TARGET] [-p:...] -getProperty:...`; one that does not answer in 2 minutes failed.</summary>
    internal static MSBuildAnswer DotnetMSBuild(string project, string? target, IReadOnlyDictionary<string, string> globalProperties, IReadOnlyList<string> names)
    {
        string[] arguments =
        [
            "msbuild", project, "-nologo",
            .. target is null ? Array.Empty<string>() : ["-t:" + target],
            .. globalProperties.Select(property => $"-p:{property.Key}={property.Value}"),
            .. names.Select(name => "-getProperty:" + name), // two or more: MSBuild prints them as JSON
        ];
        ShellResult result;
        try
        {
            result = Shell.Run("dotnet", arguments, workingDirectory: Path.GetDirectoryName(project)!, timeout: TimeSpan.FromMinutes(2));
        }
        catch (TimeoutException)
        {
            result = new ShellResult(-1, "error: MSBuild did not answer within 2 minutes", TimeSpan.FromMinutes(2));
        }

        return new MSBuildAnswer(Properties(result), result.Output);
    }

    /// <summary>The properties of MSBuild's -getProperty answer (JSON, for more than one), none when it failed.</summary>
    private static Dictionary<string, string> Properties(ShellResult result)
    {
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

        return values;
    }

    /// <summary>The folder's only solution if it has no project file (what `dotnet build` builds), else null.</summary>
    private static string? SolutionBuiltIn(string folder)
    {
        string[] here = SafeFiles(folder).ToArray();
        string[] solutions = here.Where(f => Path.GetExtension(f) is ".sln" or ".slnx").ToArray();
        return solutions.Length == 1 && !here.Any(f => Path.GetExtension(f) is ".csproj" or ".fsproj" or ".vbproj") ? solutions[0] : null;
    }

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

    private static IEnumerable<string> SafeFiles(string folder) => Listed(() => Directory.GetFiles(folder));

    private static IEnumerable<string> SafeFolders(string folder) => Listed(() => Directory.GetDirectories(folder));

    /// <summary>A folder's entries, none where it cannot be read.</summary>
    private static string[] Listed(Func<string[]> list)
    {
        try
        {
            return list();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }
}

/// <summary>MSBuild's values of the properties named, after the target where one is named; none when it failed.</summary>
internal delegate MSBuildAnswer ProjectEvaluation(string project, string? target, IReadOnlyDictionary<string, string> globalProperties, IReadOnlyList<string> names);

/// <summary>What MSBuild answered: the properties asked for (none when it failed) and what it printed.</summary>
internal sealed record MSBuildAnswer(IReadOnlyDictionary<string, string> Values, string Output);
