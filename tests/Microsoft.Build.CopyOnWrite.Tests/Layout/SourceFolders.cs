using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using System.Xml.Linq;

namespace Microsoft.Build.CopyOnWrite.Tests.Layout;

/// <summary>A project's source read as folders of code: what each folder declares and what names it uses.</summary>
internal static class SourceFolders
{
    // Left to right, so a quote inside a comment or a comment marker inside a string is never taken for the other.
    private static readonly Regex CommentsAndStrings = new(
        @"/\*[\s\S]*?\*/|//[^\n]*|\$+""{3,}[\s\S]*?""{3,}|""{3,}[\s\S]*?""{3,}|(?:\$@|@\$)""(?:[^""]|"""")*""|@""(?:[^""]|"""")*""|\$""(?:\\.|\{[^{}]*\}|[^""\\\n])*""|'(?:\\.|[^'\\\n])'|""(?:\\.|[^""\\\n])*""");

    private static readonly Regex InterpolationHole = new(@"\{([^{}]*)\}");

    // File-scoped namespaces: a top-level declaration starts at the beginning of its line.
    private static readonly Regex TopLevelDeclaration = new(
        @"^(?:(?:public|internal|static|sealed|abstract|partial|readonly|unsafe|file|ref)\s+)*(?:record\s+(?:struct|class)|class|struct|interface|enum|record)\s+(\w+)",
        RegexOptions.Multiline);

    // The project's own namespaces, so that Settings.CopyOnWriteSettings counts as a use of CopyOnWriteSettings.
    private static readonly Regex NamespaceQualifier = new(@"\b(?:Microsoft\.Build\.)?(?:CopyOnWrite\.)?(?:Savings|Settings|Cloning|Volumes|Doctor)\.");

    // A capitalised name not reached through a member access (File.Copy is not the Copy task).
    private static readonly Regex TypeName = new(@"(?<![\w.])[A-Z]\w*\b");

    /// <summary>
    /// Each folder (relative, with '/'; the project folder itself is ".") that holds .cs files, with the code of each:
    /// comments and string text removed.
    /// </summary>
    public static Dictionary<string, string[]> Code(string root, Func<string, bool> skip) =>
        WithCode(root, skip).ToDictionary(folder => Path.GetRelativePath(root, folder).Replace('\\', '/'), folder => ReadCode(Directory.GetFiles(folder, "*.cs")));

    /// <summary>The folders of <paramref name="root"/>, itself included, that hold .cs files, but those <paramref name="skip"/> names.</summary>
    public static IEnumerable<string> WithCode(string root, Func<string, bool> skip) =>
        Directory.GetDirectories(root, "*", SearchOption.AllDirectories)
            .Prepend(root)
            .Where(folder => !skip(folder) && Directory.GetFiles(folder, "*.cs").Length > 0);

    /// <summary>
    /// The files a project compiles in from other folders (Compile Include="../..."), by the folder they live in,
    /// named as in their own project (Volumes, Cloning) or under src/ when no project holds them (Shared).
    /// </summary>
    public static Dictionary<string, string[]> CompiledIn(string projectFile)
    {
        string projectFolder = Path.GetDirectoryName(projectFile)!;
        string source = Path.GetDirectoryName(projectFolder)!;
        var files = new List<string>();
        foreach (XElement compile in XDocument.Load(projectFile).Descendants("Compile").Where(c => c.Attribute("Include") is not null))
        {
            string[] excluded = Expand(projectFolder, (string?)compile.Attribute("Exclude")).ToArray();
            files.AddRange(Expand(projectFolder, (string)compile.Attribute("Include")!).Where(file => !excluded.Contains(file)));
        }

        return files
            .GroupBy(file => FolderInItsProject(source, Path.GetDirectoryName(file)!))
            .ToDictionary(group => group.Key, group => ReadCode(group));
    }

    /// <summary>
    /// The code of the projects under src/ that a project references (the tool references the task assembly), by
    /// folder, named as in their own project (Volumes, Cloning), build output left out.
    /// </summary>
    public static Dictionary<string, string[]> Referenced(string projectFile)
    {
        string projectFolder = Path.GetDirectoryName(projectFile)!;
        return XDocument.Load(projectFile).Descendants("ProjectReference")
            .Where(reference => (string?)reference.Attribute("ReferenceOutputAssembly") != "false")
            .Select(reference => Path.GetDirectoryName(Path.GetFullPath(Path.Combine(projectFolder, (string)reference.Attribute("Include")!)))!)
            .SelectMany(root => Code(root, folder => Path.GetRelativePath(root, folder).Replace('\\', '/').Split('/')[0] is "bin" or "obj"))
            .ToDictionary(entry => entry.Key, entry => entry.Value);
    }

    /// <summary>Every top-level type name declared in exactly one folder, with that folder.</summary>
    public static Dictionary<string, string> TopLevelTypes(params Dictionary<string, string[]>[] codeByFolder) =>
        codeByFolder
            .SelectMany(folders => folders)
            .SelectMany(entry => entry.Value.SelectMany(code => TopLevelDeclaration.Matches(code).Select(m => (Name: m.Groups[1].Value, entry.Key))))
            .Distinct()
            .GroupBy(declaration => declaration.Name)
            .Where(group => group.Count() == 1)
            .ToDictionary(group => group.Key, group => group.Single().Key);

    public static IEnumerable<string> TypeNamesUsed(string code) =>
        TypeName.Matches(NamespaceQualifier.Replace(code, " ")).Select(m => m.Value).Distinct();

    private static string[] ReadCode(IEnumerable<string> files) => files.Select(file => WithoutCommentsAndStringText(File.ReadAllText(file))).ToArray();

    private static IEnumerable<string> Expand(string projectFolder, string? items) =>
        (items ?? string.Empty).Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(item => Path.GetFullPath(Path.Combine(projectFolder, item)))
            .SelectMany(path => path.Contains('*') ? Directory.GetFiles(Path.GetDirectoryName(path)!, Path.GetFileName(path)) : [path]);

    private static string FolderInItsProject(string source, string folder)
    {
        string[] parts = Path.GetRelativePath(source, folder).Replace('\\', '/').Split('/');
        bool inAProject = Directory.GetFiles(Path.Combine(source, parts[0]), "*.csproj").Length > 0;
        return inAProject ? (parts.Length > 1 ? string.Join('/', parts[1..]) : ".") : string.Join('/', parts);
    }

    private static string WithoutCommentsAndStringText(string code) =>
        CommentsAndStrings.Replace(code, m => m.Value.StartsWith('$')
            ? " " + string.Join(" ", InterpolationHole.Matches(m.Value).Select(hole => hole.Groups[1].Value)) + " "
            : " ");
}

/// <summary>
/// What a folder's README allows it to use: the backquoted names in its "May use:" sentence. `Folder/` allows every
/// type of that folder, `Folder/Type` one type of it; a bare `Type` allows that type wherever it is.
/// </summary>
internal sealed class ReadmeAllowance
{
    private readonly HashSet<string> _folders = new(StringComparer.Ordinal);
    private readonly HashSet<string> _types = new(StringComparer.Ordinal);

    public static ReadmeAllowance Read(string readme)
    {
        string line = File.ReadLines(readme).FirstOrDefault(l => l.StartsWith("May use:", StringComparison.Ordinal))
            ?? throw new InvalidOperationException($"{readme} has no line starting \"May use:\"");
        string sentence = line["May use:".Length..].Split(". ")[0];
        var allowance = new ReadmeAllowance();
        foreach (string name in Regex.Matches(sentence, "`([^`]+)`").Select(m => m.Groups[1].Value))
        {
            if (name.EndsWith('/'))
            {
                allowance._folders.Add(name.TrimEnd('/'));
            }
            else
            {
                allowance._types.Add(name);
            }
        }

        return allowance;
    }

    public bool Permits(string folder, string type) => _folders.Contains(folder) || _types.Contains($"{folder}/{type}") || _types.Contains(type);
}

/// <summary>Folders as the nodes of a directed graph, one edge for each folder that uses another.</summary>
internal static class FolderGraph
{
    /// <summary>
    /// The shortest cycle of the graph, as the folders along it with the first one again at the end (e.g. Task, Savings,
    /// Task); of the shortest ones, the first by folder name. Null when the uses go one way only.
    /// </summary>
    public static IReadOnlyList<string>? ShortestCycle(IEnumerable<(string From, string To)> edges)
    {
        var next = new SortedDictionary<string, SortedSet<string>>(StringComparer.Ordinal);
        foreach ((string from, string to) in edges.Where(edge => edge.From != edge.To))
        {
            if (!next.TryGetValue(from, out SortedSet<string>? targets))
            {
                next[from] = targets = new SortedSet<string>(StringComparer.Ordinal);
            }

            targets.Add(to);
        }

        List<string>? shortest = null;
        foreach (string start in next.Keys)
        {
            // Breadth first from start: the first path that comes back to start is the shortest cycle through it.
            var cameFrom = new Dictionary<string, string>(StringComparer.Ordinal);
            var queue = new Queue<string>([start]);
            while (queue.Count > 0)
            {
                string folder = queue.Dequeue();
                if (!next.TryGetValue(folder, out SortedSet<string>? targets))
                {
                    continue;
                }

                if (targets.Contains(start))
                {
                    var cycle = new List<string> { start };
                    for (string at = folder; at != start; at = cameFrom[at])
                    {
                        cycle.Insert(1, at);
                    }

                    cycle.Add(start);
                    if (shortest is null || cycle.Count < shortest.Count)
                    {
                        shortest = cycle;
                    }

                    break;
                }

                foreach (string target in targets.Where(target => target != start && cameFrom.TryAdd(target, folder)))
                {
                    queue.Enqueue(target);
                }
            }
        }

        return shortest;
    }
}
