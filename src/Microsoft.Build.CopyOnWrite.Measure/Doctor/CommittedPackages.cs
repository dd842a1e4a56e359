using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Xml.Linq;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>How git holds a package folder NuGet.config names, as a fresh clone of the repository (CI) gets it.</summary>
internal enum GitHolds
{
    /// <summary>Every package of ours in it is committed.</summary>
    Committed,

    /// <summary>Some are not committed, and the ignore file keeps `git add -A` from taking them.</summary>
    Ignored,

    /// <summary>Some are not committed yet, and nothing keeps `git add -A` from taking them.</summary>
    NotCommitted,

    /// <summary>The folder is outside the repository's work tree: only this machine has it.</summary>
    OutsideTheRepository,

    /// <summary>The repository is not in git (or git is not installed): nothing to tell.</summary>
    NoGit,
}

/// <summary>A local package source of the build's NuGet configuration that holds our packages.</summary>
/// <param name="Key">Its NuGet.config key (what packageSourceMapping names); null where no file read names it.</param>
/// <param name="OurPackages">Our .nupkg files in it.</param>
/// <param name="IgnoredBy">For <see cref="GitHolds.Ignored"/>: the rule, as `git check-ignore -v` gives it.</param>
internal sealed record PackageFolder(string? Key, string Path, IReadOnlyList<string> OurPackages, GitHolds Git, string? IgnoredBy);

/// <summary>
/// What a fresh clone meets when it restores our packages, which this machine's package cache hides: the package
/// folder not committed, or a packageSourceMapping that keeps NuGet from looking for them there.
/// </summary>
/// <param name="Repository">The repository's work tree, or the repository folder where it is not in git.</param>
/// <param name="UsesOurSdk">Whether the project imports our SDK (else a mapping without it is not our concern).</param>
/// <param name="Mapping">packageSourceMapping's patterns by source key; null where no configuration has one.</param>
internal sealed record CommittedPackages(string Repository, bool UsesOurSdk, IReadOnlyList<PackageFolder> Folders, IReadOnlyDictionary<string, IReadOnlyList<string>>? Mapping)
{
    /// <summary>The SDK and the tool; the package id NuGet matches case-insensitively.</summary>
    public static readonly string[] PackageIds = ["Microsoft.Build.CopyOnWrite", "Microsoft.Build.CopyOnWrite.Measure"];

    /// <summary>Nothing to say: no sources known.</summary>
    public static CommittedPackages None { get; } = new(string.Empty, false, [], null);

    /// <summary>What to fix before a push, worst first; each with the lines to type.</summary>
    public IEnumerable<Finding> Findings()
    {
        foreach (PackageFolder folder in Folders)
        {
            string relative = System.IO.Path.GetRelativePath(Repository, folder.Path);
            string packages = folder.OurPackages.Count == 1 ? "our package" : $"our {folder.OurPackages.Count} packages";
            string[] commit = [$"git -C {Quote(Repository)} add -f {Quote(relative)}", $"git -C {Quote(Repository)} commit -m \"Commit the CopyOnWrite packages NuGet.config names\""];
            switch (folder.Git)
            {
                case GitHolds.Ignored:
                    yield return new Finding(Severity.Error, $"The package source {folder.Path} holds {packages}, which git ignores ({folder.IgnoredBy}): `git add -A` leaves them out, so a fresh clone (CI) has no package there and its build fails with MSB4236. Commit them past the ignore file (-f; again for a new version's files):", commit);
                    break;
                case GitHolds.NotCommitted:
                    yield return new Finding(Severity.Error, $"The package source {folder.Path} holds {packages} not committed yet: a fresh clone (CI) has no package there and its build fails with MSB4236. Commit them:", commit);
                    break;
                case GitHolds.OutsideTheRepository:
                    yield return new Finding(Severity.Error, $"The package source {folder.Path} holds {packages} outside the repository {Repository}: only this machine has that folder, so a fresh clone (CI) cannot restore them. Copy them into eng/packages of the repository, name that folder in the NuGet.config beside global.json (relative to it), and commit both:", [$"<add key=\"{folder.Key ?? "copy-on-write"}\" value=\"eng/packages\" />"]);
                    break;
            }
        }

        if (Mapping is null || !UsesOurSdk)
        {
            yield break;
        }

        string? key = Folders.FirstOrDefault(f => f.Key is not null)?.Key;
        var misrouted = PackageIds.Select(id => (Id: id, To: SourcesFor(id)))
            .Where(route => route.To.Count == 0 || (key is not null && !route.To.Contains(key, StringComparer.OrdinalIgnoreCase)))
            .ToList();
        if (misrouted.Count > 0)
        {
            string routes = string.Join(" and ", misrouted.Select(route => $"{route.Id} to {(route.To.Count == 0 ? "no source" : string.Join(", ", route.To) + " only")}"));
            const string Pattern = "<package pattern=\"Microsoft.Build.CopyOnWrite*\" />";
            bool keyMapped = key is not null && Mapping.ContainsKey(key);
            yield return new Finding(Severity.Error, $"NuGet.config's packageSourceMapping sends {routes}, not to the source that holds them{(key is null ? string.Empty : $" ({key})")}: this machine resolves them from its package cache, but with an empty one (CI, a new machine) {Consequence(misrouted.Select(route => route.Id))}. Add {(keyMapped ? $"in <packageSource key=\"{key}\">" : "in <packageSourceMapping>")}:",
                [keyMapped ? Pattern : $"<packageSource key=\"{key ?? "THE-SOURCE-THAT-HOLDS-THEM"}\">{Pattern}</packageSource>"]);
        }
    }

    private static string Consequence(IEnumerable<string> ids)
        => string.Join(", and ", ids.Select(id => id == PackageIds[0] ? "the build fails with MSB4236" : "`dotnet tool restore` fails (\"not found in NuGet feeds\")"));

    /// <summary>
    /// The sources NuGet looks in for <paramref name="id"/>: those with its most specific matching pattern (the id
    /// itself beats any prefix, a longer prefix a shorter one); none where no pattern matches.
    /// </summary>
    private IReadOnlyList<string> SourcesFor(string id)
    {
        var matching = Mapping!.SelectMany(source => source.Value.Where(pattern => Matches(pattern, id))
            .Select(pattern => (Source: source.Key, Specificity: pattern.EndsWith('*') ? pattern.Length - 1 : int.MaxValue))).ToList();
        return matching.Count == 0 ? [] : matching.Where(m => m.Specificity == matching.Max(x => x.Specificity)).Select(m => m.Source).Distinct().ToList();
    }

    private static string Quote(string path) => path.Contains(' ', StringComparison.Ordinal) ? $"\"{path}\"" : path;

    /// <summary>NuGet's package patterns: the id itself, or a prefix ending in '*', case-insensitively.</summary>
    public static bool Matches(string pattern, string id)
        => pattern.EndsWith('*') ? id.StartsWith(pattern[..^1], StringComparison.OrdinalIgnoreCase) : string.Equals(pattern, id, StringComparison.OrdinalIgnoreCase);

    /// <summary>
    /// Reads what a fresh clone will meet: the local <paramref name="sources"/> that hold our packages, how git holds
    /// them, and packageSourceMapping from <paramref name="configFiles"/> (NuGet's own lists for the project).
    /// </summary>
    public static CommittedPackages Read(string repository, bool usesOurSdk, IEnumerable<string> sources, IEnumerable<string> configFiles)
    {
        IReadOnlyList<string> configs = configFiles.Where(File.Exists).ToList();
        Dictionary<string, string> keysByFolder = SourceKeys(configs);
        string? workTree = GitWorkTree(repository);
        var folders = new List<PackageFolder>();
        foreach (string source in sources.Where(s => !s.Contains("://", StringComparison.Ordinal) && Directory.Exists(s)))
        {
            string folder = System.IO.Path.GetFullPath(source).TrimEnd('/', '\\');
            string[] ours = Directory.GetFiles(folder, "*.nupkg").Where(file => PackageIds.Any(id => IsPackageOf(System.IO.Path.GetFileName(file), id))).Order(StringComparer.Ordinal).ToArray();
            if (ours.Length > 0)
            {
                (GitHolds git, string? rule) = workTree is null ? (GitHolds.NoGit, null) : HowGitHolds(workTree, folder, ours);
                folders.Add(new PackageFolder(keysByFolder.GetValueOrDefault(folder), folder, ours, git, rule));
            }
        }

        return new CommittedPackages(workTree ?? repository, usesOurSdk, folders, MappingIn(configs));
    }

    /// <summary>Microsoft.Build.CopyOnWrite.2.0.0.nupkg is the SDK's, Microsoft.Build.CopyOnWrite.Measure.2.0.0.nupkg the tool's.</summary>
    private static bool IsPackageOf(string fileName, string id)
        => fileName.StartsWith(id + ".", StringComparison.OrdinalIgnoreCase) && fileName.Length > id.Length + 1 && char.IsDigit(fileName[id.Length + 1]);

    private static string? GitWorkTree(string folder)
    {
        if (!Shell.IsOnPath("git"))
        {
            return null;
        }

        ShellResult top = Shell.Run("git", ["-C", folder, "rev-parse", "--show-toplevel"]);
        return top.Succeeded ? top.Output.Trim() : null;
    }

    private static (GitHolds, string?) HowGitHolds(string workTree, string folder, string[] packages)
    {
        string relativeFolder = System.IO.Path.GetRelativePath(workTree, folder);
        if (relativeFolder.StartsWith("..", StringComparison.Ordinal) || System.IO.Path.IsPathRooted(relativeFolder))
        {
            return (GitHolds.OutsideTheRepository, null);
        }

        string[] relative = packages.Select(p => System.IO.Path.GetRelativePath(workTree, p)).ToArray();
        HashSet<string> tracked = Shell.Run("git", ["-C", workTree, "ls-files", "--", .. relative]).Output
            .Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).ToHashSet(StringComparer.Ordinal);
        string[] notTracked = relative.Where(r => !tracked.Contains(r)).ToArray();
        if (notTracked.Length == 0)
        {
            return (GitHolds.Committed, null);
        }

        // "file:line:pattern<TAB>path" for each ignored path; exit 1 when none is.
        ShellResult ignored = Shell.Run("git", ["-C", workTree, "check-ignore", "-v", "--", .. notTracked]);
        string? rule = ignored.Succeeded ? ignored.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries)[0].Split('\t')[0] : null;
        return rule is null ? (GitHolds.NotCommitted, null) : (GitHolds.Ignored, rule);
    }

    /// <summary>Each local source's key, by its full path (a relative value is relative to the file that names it).</summary>
    private static Dictionary<string, string> SourceKeys(IEnumerable<string> configs)
    {
        var keys = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (string config in configs)
        {
            foreach (XElement add in Load(config)?.Root?.Element("packageSources")?.Elements("add") ?? [])
            {
                if ((string?)add.Attribute("key") is string key && (string?)add.Attribute("value") is string value && !value.Contains("://", StringComparison.Ordinal))
                {
                    string folder = System.IO.Path.GetFullPath(System.IO.Path.Combine(System.IO.Path.GetDirectoryName(config)!, value.Replace('\\', '/'))).TrimEnd('/', '\\');
                    keys.TryAdd(folder, key);
                }
            }
        }

        return keys;
    }

    private static IReadOnlyDictionary<string, IReadOnlyList<string>>? MappingIn(IEnumerable<string> configs)
    {
        Dictionary<string, IReadOnlyList<string>>? mapping = null;
        foreach (XElement section in configs.Select(Load).Select(document => document?.Root?.Element("packageSourceMapping")).OfType<XElement>())
        {
            mapping ??= new Dictionary<string, IReadOnlyList<string>>(StringComparer.OrdinalIgnoreCase);
            foreach (XElement source in section.Elements("packageSource"))
            {
                string key = (string?)source.Attribute("key") ?? string.Empty;
                IReadOnlyList<string> patterns = source.Elements("package").Select(p => (string?)p.Attribute("pattern")).OfType<string>().ToList();
                mapping[key] = mapping.TryGetValue(key, out IReadOnlyList<string>? earlier) ? [.. earlier, .. patterns] : patterns;
            }
        }

        return mapping;
    }

    private static XDocument? Load(string config)
    {
        try
        {
            return XDocument.Load(config);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or System.Xml.XmlException)
        {
            return null;
        }
    }
}
