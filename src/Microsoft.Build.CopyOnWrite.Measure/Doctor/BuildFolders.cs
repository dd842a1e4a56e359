using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// Which project a doctor run means (the project named, else what `dotnet build` would build in the folder named), and
/// that project's folders from MSBuild's own evaluation of it (-getProperty, with NuGet's _GetRestoreSettings run
/// first), read by <see cref="ProjectFolders"/>, so the repository need not have adopted the SDK.
/// </summary>
internal static class BuildFolders
{
    /// <summary>
    /// From what the user named (a folder, a solution or a project file), the project whose folders are checked; false
    /// with the problem, said as a sentence, when there is no such file or folder or no project.
    /// </summary>
    public static bool TryFindProject(string named, out string? project, out string? problem)
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
    /// The project's folders as MSBuild evaluates it, run where `dotnet build` of it would run (its global.json picks the
    /// SDK); false with MSBuild's first error, said as a sentence, when MSBuild cannot evaluate it.
    /// </summary>
    public static bool TryEvaluate(string project, out ProjectFolders? folders, out string? problem)
    {
        folders = null;
        problem = null;
        string[] getProperties = ProjectFolders.PropertyNames.Select(name => "-getProperty:" + name).ToArray();
        string projectFolder = Path.GetDirectoryName(project)!;
        ShellResult result = Shell.Run("dotnet", ["msbuild", project, "-nologo", "-t:_GetRestoreSettings", .. getProperties], workingDirectory: projectFolder, timeout: TimeSpan.FromMinutes(2));
        if (!result.Succeeded && result.Output.Contains("MSB4057", StringComparison.Ordinal))
        {
            // A project without NuGet's targets (no _GetRestoreSettings): its evaluation alone, as the target then reads it.
            result = Shell.Run("dotnet", ["msbuild", project, "-nologo", .. getProperties], workingDirectory: projectFolder, timeout: TimeSpan.FromMinutes(2));
        }

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

        if (values.Count == 0)
        {
            string firstError = result.Output.Split('\n').Select(line => line.Trim()).FirstOrDefault(line => line.Contains("error", StringComparison.OrdinalIgnoreCase))
                ?? result.Output.Trim().Split('\n').FirstOrDefault() ?? "no output";
            problem = $"MSBuild could not evaluate {project} ({firstError}); fix what it says (`dotnet build` there shows the same), or name another project.";
            return false;
        }

        folders = ProjectFolders.From(name => values.GetValueOrDefault(name));
        return true;
    }

    /// <summary>
    /// The project whose outputs the doctor checks for a folder (README, "Ask the doctor"): what `dotnet build` would
    /// build there, so the project file in the folder, else the first project of the one solution in it; with neither,
    /// the first project file below.
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
