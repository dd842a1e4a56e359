using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Settings;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// What the doctor knows of the build beyond its folders: the restore results to read, where a source comes from by
/// the task's own <see cref="CopySources"/>, and the links the project asks for.
/// </summary>
/// <param name="AssetsFiles">The ProjectAssetsFile MSBuild named; the repository is searched for more.</param>
/// <param name="LinksAsked">The link properties the project sets to true: its Copy calls ask for links.</param>
/// <param name="Settings">As the build parses them; <paramref name="SettingProblems"/> stop a build (COW003).</param>
/// <param name="Committed">What a fresh clone meets when it restores our packages; null: not looked at.</param>
internal sealed record BuildFacts(IReadOnlyList<string> AssetsFiles, CopySources Sources, IReadOnlyList<string> LinksAsked, CopyOnWriteSettings Settings, IReadOnlyList<string> SettingProblems, CommittedPackages? Committed = null)
{
    public static BuildFacts None { get; } = new([], CopySources.For([], _ => null, MSBuildHost.PathComparison), [], CopyOnWriteSettings.Default, []);

    /// <summary>The MSBuild properties that make the common targets' Copy calls ask for hard or symbolic links.</summary>
    public static IReadOnlyList<string> LinkProperties { get; } =
    [
        "CreateHardLinksForCopyLocalIfPossible", "CreateHardLinksForCopyFilesToOutputDirectoryIfPossible", "CreateHardLinksForAdditionalFilesIfPossible", "CreateHardLinksForCopyAdditionalFilesIfPossible", "CreateHardLinksForPublishFilesIfPossible",
        "CreateSymbolicLinksForCopyLocalIfPossible", "CreateSymbolicLinksForCopyFilesToOutputDirectoryIfPossible", "CreateSymbolicLinksForAdditionalFilesIfPossible", "CreateSymbolicLinksForCopyAdditionalFilesIfPossible", "CreateSymbolicLinksForPublishFilesIfPossible",
    ];

    public bool InsteadOfLinks => Settings.InsteadOfLinks;
}

/// <summary>What restore wrote: whether a build copies package files, and from which package folders.</summary>
/// <param name="Known">Whether a restore result was read; false: not restored, or not readable here.</param>
/// <param name="AssetsFiles">The project.assets.json files read.</param>
/// <param name="CopiedPackages">Packages with files a build copies into an application's output, as id/version.</param>
/// <param name="CopiedFrom">The package folders they come from: for each, the first that has it.</param>
/// <param name="PackageDirectories">Those packages' folders (ID/VERSION in the package folder that has each).</param>
internal sealed record RestoredPackages(bool Known, IReadOnlyList<string> AssetsFiles, IReadOnlyList<string> CopiedPackages, IReadOnlyList<string> CopiedFrom, string? Problem, IReadOnlyList<string>? PackageDirectories = null)
{
    private static readonly string[] CopiedAssetKinds = ["runtime", "native", "resource", "runtimeTargets"];

    /// <summary>Reads <paramref name="named"/> and the project.assets.json files under <paramref name="repository"/> (obj/ and artifacts/obj/, a few levels deep).</summary>
    public static RestoredPackages Read(string repository, IEnumerable<string> named)
    {
        var files = named.Where(File.Exists).Select(Path.GetFullPath).Concat(FindUnder(repository)).Distinct(StringComparer.Ordinal).ToList();
        if (files.Count == 0)
        {
            return new RestoredPackages(false, [], [], [], null);
        }

        var packages = new SortedSet<string>(StringComparer.Ordinal);
        var folders = new List<string>();
        var directories = new List<string>();
        var problems = new List<string>();
        foreach (string file in files)
        {
            try
            {
                ReadOne(file, packages, folders, directories);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or System.Text.Json.JsonException or InvalidOperationException or KeyNotFoundException)
            {
                problems.Add($"{file}: {e.Message}");
            }
        }

        return problems.Count == files.Count
            ? new RestoredPackages(false, files, [], [], "could not read " + string.Join("; ", problems))
            : new RestoredPackages(true, files, packages.ToList(), folders, problems.Count == 0 ? null : "could not read " + string.Join("; ", problems), directories);
    }

    private static void ReadOne(string file, SortedSet<string> packages, List<string> folders, List<string> directories)
    {
        using var document = System.Text.Json.JsonDocument.Parse(File.ReadAllBytes(file));
        System.Text.Json.JsonElement root = document.RootElement;
        string[] packageFolders = root.TryGetProperty("packageFolders", out System.Text.Json.JsonElement pf)
            ? pf.EnumerateObject().Select(p => p.Name).ToArray()
            : [];
        var libraryPaths = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        if (root.TryGetProperty("libraries", out System.Text.Json.JsonElement libraries))
        {
            foreach (System.Text.Json.JsonProperty library in libraries.EnumerateObject())
            {
                if (library.Value.TryGetProperty("type", out System.Text.Json.JsonElement type) && type.GetString() == "package"
                    && library.Value.TryGetProperty("path", out System.Text.Json.JsonElement path) && path.GetString() is string relative)
                {
                    libraryPaths[library.Name] = relative;
                }
            }
        }

        if (!root.TryGetProperty("targets", out System.Text.Json.JsonElement targets))
        {
            return;
        }

        foreach (System.Text.Json.JsonProperty target in targets.EnumerateObject())
        {
            foreach (System.Text.Json.JsonProperty library in target.Value.EnumerateObject())
            {
                if (!libraryPaths.TryGetValue(library.Name, out string? relative) || !HasCopiedFiles(library.Value))
                {
                    continue;
                }

                packages.Add(library.Name);

                // The build takes a package from the first package folder that has it (the cache first, then the fallbacks).
                string? folder = packageFolders.FirstOrDefault(f => Directory.Exists(Path.Combine(f, relative)));
                if (folder is not null && !folders.Contains(folder))
                {
                    folders.Add(folder);
                }

                if (folder is not null && !directories.Contains(Path.Combine(folder, relative)))
                {
                    directories.Add(Path.Combine(folder, relative));
                }
            }
        }
    }

    private static bool HasCopiedFiles(System.Text.Json.JsonElement library)
        => CopiedAssetKinds.Any(kind => library.TryGetProperty(kind, out System.Text.Json.JsonElement assets)
            && assets.ValueKind == System.Text.Json.JsonValueKind.Object
            && assets.EnumerateObject().Any(asset => !asset.Name.EndsWith("_._", StringComparison.Ordinal)));

    /// <summary>Folders looked into at most, so that a huge tree costs the check a bounded time.</summary>
    private const int MostFoldersSearched = 20_000;

    /// <summary>
    /// project.assets.json in obj/ folders under the repository (artifacts/obj/... too), six levels deep and
    /// <see cref="MostFoldersSearched"/> folders at most, breadth first, skipping .git, node_modules and bin.
    /// </summary>
    private static IEnumerable<string> FindUnder(string repository)
    {
        var found = new List<string>();
        var level = new List<string> { repository };
        int searched = 0;
        for (int depth = 0; depth < 7 && level.Count > 0 && found.Count < 200 && searched < MostFoldersSearched; depth++)
        {
            var next = new List<string>();
            foreach (string folder in level.Take(MostFoldersSearched - searched))
            {
                searched++;
                string assets = Path.Combine(folder, "project.assets.json");
                if (File.Exists(assets))
                {
                    found.Add(Path.GetFullPath(assets));
                }

                try
                {
                    next.AddRange(Directory.GetDirectories(folder).Where(f => Path.GetFileName(f) is not (".git" or "node_modules" or "bin")));
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                    // A folder that cannot be listed holds nothing this check can read.
                }
            }

            level = next;
        }

        return found;
    }
}
