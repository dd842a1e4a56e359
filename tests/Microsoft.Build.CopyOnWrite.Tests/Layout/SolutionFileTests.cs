using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Layout;

/// <summary>
/// Microsoft.Build.CopyOnWrite.sln is what a maintainer opens first (issue 45): every project entry is closed, and it
/// lists exactly the projects under src/ and tests/, as `dotnet sln list` reads it.
/// </summary>
[TestClass]
public sealed class SolutionFileTests
{
    private static string Solution => Path.Combine(RepositoryLayout.Root, "Microsoft.Build.CopyOnWrite.sln");

    [TestMethod]
    public void Every_project_entry_of_the_solution_is_closed_before_the_next_begins()
    {
        string[] entries = File.ReadAllLines(Solution).Where(line => line.StartsWith("Project(", StringComparison.Ordinal) || line.StartsWith("EndProject", StringComparison.Ordinal)).ToArray();

        for (int i = 0; i < entries.Length; i++)
        {
            bool opens = entries[i].StartsWith("Project(", StringComparison.Ordinal);
            Assert.AreEqual(i % 2 == 0, opens, $"entry {i}: \"{entries[i]}\" - a Project( line needs its EndProject before the next one");
        }

        Assert.AreEqual(0, entries.Length % 2, "the last project entry is not closed");
    }

    [TestMethod]
    public void The_solution_lists_every_project_under_src_and_tests_and_nothing_else()
    {
        ProcessResult list = ProcessRunner.Run("dotnet", ["sln", Solution, "list"], RepositoryLayout.Root, SdkPackage.BuildEnvironment);

        Assert.IsTrue(list.Succeeded, list.Output);
        string[] listed = list.Output.Split('\n').Select(line => line.Trim().Replace('\\', '/')).Where(line => line.EndsWith(".csproj", StringComparison.Ordinal)).Order(StringComparer.Ordinal).ToArray();
        string[] onDisk = new[] { "src", "tests" }
            .SelectMany(folder => Directory.GetFiles(Path.Combine(RepositoryLayout.Root, folder), "*.csproj", SearchOption.AllDirectories))
            .Where(path => !path.Contains("/bin/", StringComparison.Ordinal) && !path.Contains("/obj/", StringComparison.Ordinal))
            .Select(path => Path.GetRelativePath(RepositoryLayout.Root, path))
            .Order(StringComparer.Ordinal)
            .ToArray();
        CollectionAssert.AreEqual(onDisk, listed, $"dotnet sln list: {string.Join(", ", listed)}");
    }
}
