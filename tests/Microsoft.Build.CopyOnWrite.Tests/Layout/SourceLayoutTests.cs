using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Layout;

/// <summary>
/// The task assembly's folders say what they hold and what they may use (a README.md each), and the rules that can be
/// read from the sources hold: the engine, the volume component and the doctor's check know nothing of MSBuild, and
/// nothing below the task reaches up into it.
/// </summary>
[TestClass]
public sealed class SourceLayoutTests
{
    private static readonly string Source = Path.Combine(RepositoryLayout.Root, "src", "Microsoft.Build.CopyOnWrite");

    [TestMethod]
    public void Every_folder_of_the_task_assembly_has_a_README_that_says_what_it_holds_and_what_it_may_use()
    {
        string[] folders = Directory.GetDirectories(Source, "*", SearchOption.AllDirectories)
            .Where(f => Directory.GetFiles(f, "*.cs").Length > 0 && !IsBuildOutput(f))
            .ToArray();

        Assert.IsTrue(folders.Length >= 7, string.Join(", ", folders));
        foreach (string folder in folders)
        {
            string readme = Path.Combine(folder, "README.md");
            Assert.IsTrue(File.Exists(readme), $"{Relative(folder)} has no README.md");
            string text = File.ReadAllText(readme);
            StringAssert.StartsWith(text, $"# {Relative(folder)}/: ", $"{Relative(readme)} starts with what the folder holds");
            Assert.IsTrue(text.Contains("May use:") || text.Contains("Uses nothing"), $"{Relative(readme)} says what the folder may use (\"May use:\" or \"Uses nothing\")");
        }
    }

    [TestMethod]
    [DataRow("Cloning", "", new[] { "Microsoft.Build.Framework", "Microsoft.Build.Utilities", "CopyOnWrite.Savings", "CopyOnWrite.Doctor", "CopyOnWrite.Volumes" })]
    [DataRow("Volumes", "", new[] { "Microsoft.Build.Framework", "Microsoft.Build.Utilities", "CopyOnWrite.Savings", "CopyOnWrite.Doctor", "CopySummary", "JsonText" })]
    [DataRow("Doctor", "CopyOnWriteDoctor.cs", new[] { "Microsoft.Build.Framework", "Microsoft.Build.Utilities", "CopyOnWrite.Savings", "CopyOnWrite.Cloning" })]
    public void A_folder_below_the_task_uses_nothing_its_README_forbids(string folder, string exceptFile, string[] forbidden)
    {
        var offences = new List<string>();
        foreach (string file in Directory.GetFiles(Path.Combine(Source, folder), "*.cs", SearchOption.AllDirectories).Where(f => Path.GetFileName(f) != exceptFile))
        {
            foreach ((string line, int number) in File.ReadLines(file).Select((line, index) => (line, index + 1)))
            {
                string code = line.Split("//")[0];
                offences.AddRange(forbidden.Where(name => code.Contains(name)).Select(name => $"{Relative(file)}:{number} uses {name}"));
            }
        }

        Assert.AreEqual(0, offences.Count, string.Join("\n", offences));
    }

    private static bool IsBuildOutput(string folder)
    {
        string relative = Relative(folder);
        return relative.Split('/')[0] is "bin" or "obj" or "work";
    }

    private static string Relative(string path) => Path.GetRelativePath(Source, path).Replace('\\', '/');
}
