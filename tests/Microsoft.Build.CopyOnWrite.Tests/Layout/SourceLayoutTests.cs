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
    [DataRow("Doctor", "CopyOnWriteDoctor.cs")]
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
    [DataRow("Microsoft.Build.CopyOnWrite.Measure", "VolumeCatalog", "Volumes")]
    public void Every_folder_of_a_project_uses_only_what_its_README_allows(string project, string someType, string itsFolder)
    {
        string root = Path.Combine(RepositoryLayout.Root, "src", project);
        Dictionary<string, string[]> codeByFolder = SourceFolders.Code(root, f => IsBuildOutput(root, f) || Path.GetFileName(f) == "BuildSupport");
        Dictionary<string, string> folderOfType = SourceFolders.TopLevelTypes(codeByFolder, SourceFolders.CompiledIn(Path.Combine(root, project + ".csproj")));
        Assert.IsTrue(folderOfType.Count > 30 && folderOfType.GetValueOrDefault(someType) == itsFolder, $"the declarations were not found ({folderOfType.Count} types)");

        var offences = new SortedSet<string>();
        foreach ((string folder, string[] files) in codeByFolder.Where(entry => entry.Key != "."))
        {
            ReadmeAllowance allowed = ReadmeAllowance.Read(Path.Combine(root, folder, "README.md"));
            foreach (string name in files.SelectMany(SourceFolders.TypeNamesUsed))
            {
                if (folderOfType.TryGetValue(name, out string? owner) && owner != folder && !allowed.Permits(owner, name))
                {
                    offences.Add($"{folder}/ uses {(owner == "." ? "the project folder's " : owner + "/")}{name}, which {folder}/README.md's \"May use:\" sentence does not allow");
                }
            }
        }

        Assert.AreEqual(0, offences.Count, "either the code reaches where its folder should not, or the README is out of date:\n" + string.Join("\n", offences));
    }

    private static bool IsBuildOutput(string root, string folder) => Relative(root, folder).Split('/')[0] is "bin" or "obj" or "work";

    private static string Relative(string path) => Relative(Source, path);

    private static string Relative(string root, string path) => Path.GetRelativePath(root, path).Replace('\\', '/');
}
