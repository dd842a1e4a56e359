using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Layout;

/// <summary>
/// The task assembly's folders say what they hold and what they may use (a README.md each), and the rules that can be
/// read from the sources hold: the engine, the volume component and the doctor's check know nothing of MSBuild, and
/// each folder uses only the folders and types its README's "May use:" sentence names.
/// </summary>
[TestClass]
public sealed class SourceLayoutTests
{
    private static readonly string Source = Path.Combine(RepositoryLayout.Root, "src", "Microsoft.Build.CopyOnWrite");

    [TestMethod]
    [DataRow("Microsoft.Build.CopyOnWrite", 7)]
    [DataRow("Microsoft.Build.CopyOnWrite.Measure", 4)]
    public void Every_folder_of_a_project_has_a_README_that_says_what_it_holds_and_what_it_may_use(string project, int atLeast)
    {
        string root = Path.Combine(RepositoryLayout.Root, "src", project);
        string[] folders = SourceFolders.WithCode(root, f => f == root || IsBuildOutput(root, f)).ToArray();

        Assert.IsTrue(folders.Length >= atLeast, string.Join(", ", folders));
        foreach (string folder in folders)
        {
            string readme = Path.Combine(folder, "README.md");
            Assert.IsTrue(File.Exists(readme), $"{project}/{Relative(root, folder)} has no README.md");
            string text = File.ReadAllText(readme);
            StringAssert.StartsWith(text, $"# {Relative(root, folder)}/: ", $"{Relative(root, readme)} starts with what the folder holds");
            Assert.IsTrue(text.Contains("May use:") || text.Contains("Uses nothing"), $"{Relative(root, readme)} says what the folder may use (\"May use:\" or \"Uses nothing\")");
        }
    }

    [TestMethod]
    [DataRow("Cloning", "")]
    [DataRow("Volumes", "")]
    public void A_folder_below_the_task_knows_nothing_of_MSBuild(string folder, string exceptFile)
    {
        var offences = new List<string>();
        foreach (string file in Directory.GetFiles(Path.Combine(Source, folder), "*.cs", SearchOption.AllDirectories).Where(f => Path.GetFileName(f) != exceptFile))
        {
            foreach ((string line, int number) in File.ReadLines(file).Select((line, index) => (line, index + 1)))
            {
                string code = line.Split("//")[0];
                offences.AddRange(new[] { "Microsoft.Build.Framework", "Microsoft.Build.Utilities" }.Where(name => code.Contains(name)).Select(name => $"{Relative(file)}:{number} uses {name}"));
            }
        }

        Assert.AreEqual(0, offences.Count, string.Join("\n", offences));
    }

    /// <summary>
    /// Reads each folder's "May use:" sentence (`Folder/` allows the folder, `Folder/Type` one type, `Type` that type)
    /// and looks for the top-level type names of the project's other folders, and of the files it compiles in from
    /// elsewhere, in the folder's code (comments and string text left out, interpolation holes kept). Not a compiler:
    /// a type reached only through `var` or a member is not seen. The project folder itself has no README (its
    /// project file's header says what it holds) and may use everything.
    /// </summary>
    [TestMethod]
    [DataRow("Microsoft.Build.CopyOnWrite", "CopySummary", "Task")]
    [DataRow("Microsoft.Build.CopyOnWrite.Measure", "DoctorCheck", "Doctor")]
    public void Every_folder_of_a_project_uses_only_what_its_README_allows(string project, string someType, string itsFolder)
    {
        string root = Path.Combine(RepositoryLayout.Root, "src", project);
        var allowances = new Dictionary<string, ReadmeAllowance>();
        var offences = new SortedSet<string>();
        foreach (FolderUse use in FolderUses(project, someType, itsFolder))
        {
            if (!allowances.TryGetValue(use.Folder, out ReadmeAllowance? allowed))
            {
                allowances[use.Folder] = allowed = ReadmeAllowance.Read(Path.Combine(root, use.Folder, "README.md"));
            }

            if (!allowed.Permits(use.Owner, use.Type))
            {
                offences.Add($"{use.Folder}/ uses {(use.Owner == "." ? "the project folder's " : use.Owner + "/")}{use.Type}, which {use.Folder}/README.md's \"May use:\" sentence does not allow");
            }
        }

        Assert.AreEqual(0, offences.Count, "either the code reaches where its folder should not, or the README is out of date:\n" + string.Join("\n", offences));
    }

    /// <summary>
    /// The folders use each other one way only: read as the test above reads them (a folder uses another when its code
    /// names a type declared there), the uses make no cycle, so each folder can be read, tested and changed knowing
    /// only the folders it uses. The project folder is left out: it may use everything (it is where the folders are
    /// put together) and no folder may use it. A subfolder counts as part of its folder (Cloning/Linux/ is the
    /// Linux engine under Cloning/'s ladder, and the two use each other, as their READMEs say). A README can allow a use;
    /// only this test says that the uses go one way.
    /// </summary>
    [TestMethod]
    [DataRow("Microsoft.Build.CopyOnWrite", "CopySummary", "Task")]
    [DataRow("Microsoft.Build.CopyOnWrite.Measure", "DoctorCheck", "Doctor")]
    public void The_folders_of_a_project_use_each_other_one_way_only(string project, string someType, string itsFolder)
    {
        static string Top(string folder) => folder.Split('/')[0];
        FolderUse[] uses = FolderUses(project, someType, itsFolder)
            .Select(use => use with { Folder = Top(use.Folder), Owner = Top(use.Owner) })
            .Where(use => use.Owner != "." && use.Owner != use.Folder)
            .ToArray();

        IReadOnlyList<string>? cycle = FolderGraph.ShortestCycle(uses.Select(use => (use.Folder, use.Owner)));

        Assert.IsNull(cycle, cycle is null ? null : $"{project}: the folders use each other in a cycle: {string.Join(" -> ", cycle.Select(folder => folder + "/"))}\n"
            + string.Join("\n", cycle.Zip(cycle.Skip(1), (from, to) => $"{from}/ uses {to}/'s {string.Join(", ", uses.Where(use => use.Folder == from && use.Owner == to).Select(use => use.Type).Distinct().Order())}"))
            + "\nOne of these uses has to go (move the type to a folder both may use, or to the one folder that uses it), and the READMEs say which way the folders go.");
    }

    [TestMethod]
    public void The_cycle_test_names_the_shortest_cycle_and_passes_a_graph_that_goes_one_way()
    {
        CollectionAssert.AreEqual(new[] { "Savings", "Task", "Savings" }, FolderGraph.ShortestCycle([("Task", "Cloning"), ("Task", "Savings"), ("Savings", "Volumes"), ("Volumes", "Task"), ("Savings", "Task")])!.ToArray());
        CollectionAssert.AreEqual(new[] { "A", "B", "C", "A" }, FolderGraph.ShortestCycle([("A", "B"), ("B", "C"), ("C", "A")])!.ToArray());
        Assert.IsNull(FolderGraph.ShortestCycle([("Task", "Settings"), ("Savings", "Task"), ("Savings", "Settings"), ("Task", "Cloning"), ("Task", "Task")]));
    }

    /// <summary>
    /// Each use, by a folder of <paramref name="project"/> but the project folder itself, of a top-level type declared
    /// in another folder (or in the project folder, ".") of the project or of the files it compiles in.
    /// </summary>
    private static IEnumerable<FolderUse> FolderUses(string project, string someType, string itsFolder)
    {
        string root = Path.Combine(RepositoryLayout.Root, "src", project);
        Dictionary<string, string[]> codeByFolder = SourceFolders.Code(root, f => IsBuildOutput(root, f) || Path.GetFileName(f) == "BuildSupport");
        Dictionary<string, string> folderOfType = SourceFolders.TopLevelTypes(codeByFolder, SourceFolders.CompiledIn(Path.Combine(root, project + ".csproj")), SourceFolders.Referenced(Path.Combine(root, project + ".csproj")));
        Assert.IsTrue(folderOfType.Count > 30 && folderOfType.GetValueOrDefault(someType) == itsFolder, $"the declarations were not found ({folderOfType.Count} types)");

        foreach ((string folder, string[] files) in codeByFolder.Where(entry => entry.Key != "."))
        {
            foreach (string name in files.SelectMany(SourceFolders.TypeNamesUsed).Distinct())
            {
                if (folderOfType.TryGetValue(name, out string? owner) && owner != folder)
                {
                    yield return new FolderUse(folder, owner, name);
                }
            }
        }
    }

    private static bool IsBuildOutput(string root, string folder) => Relative(root, folder).Split('/')[0] is "bin" or "obj";

    private static string Relative(string path) => Relative(Source, path);

    private static string Relative(string root, string path) => Path.GetRelativePath(root, path).Replace('\\', '/');

    private sealed record FolderUse(string Folder, string Owner, string Type);
}
