using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Layout;

/// <summary>
/// The documentation stays readable (issues 41, 45 and 53): a README a newcomer reads in ten minutes, docs/ as reference
/// of a bounded size rather than a lab notebook (generated results are data, outside the budget), and an index that
/// names every page.
/// </summary>
[TestClass]
public sealed class DocumentationSizeTests
{
    private const int ReadmeLines = 250;
    private const int ProseWords = 20_000;

    /// <summary>Pages a command writes (docs/results/: build/benchmark.sh, dotnet cow-measure), data rather than prose: not in the budget.</summary>
    private const string Generated = "results/";

    private static string Docs => Path.Combine(RepositoryLayout.Root, "docs");

    [TestMethod]
    public void The_README_has_at_most_250_lines()
    {
        int lines = File.ReadAllLines(Path.Combine(RepositoryLayout.Root, "README.md")).Length;

        Assert.IsTrue(lines <= ReadmeLines, $"README.md has {lines} lines, more than {ReadmeLines}: move how things work inside to docs/.");
    }

    /// <summary>Words as `cat docs/*.md docs/measurements/*.md | wc -w` counts them: every prose page; generated results are data.</summary>
    [TestMethod]
    public void The_docs_prose_pages_have_at_most_20000_words_and_generated_results_say_what_made_them()
    {
        var counts = Pages().Where(page => !page.StartsWith(Generated, StringComparison.Ordinal))
            .Select(page => (Page: page, Words: File.ReadAllText(Path.Combine(Docs, page)).Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries).Length)).ToList();
        int words = counts.Sum(count => count.Words);
        string[] unsaid = Pages().Where(page => page.StartsWith(Generated, StringComparison.Ordinal))
            .Where(page => !File.ReadLines(Path.Combine(Docs, page)).Take(5).Any(line => line.Contains("Made by `", StringComparison.Ordinal) || line.Contains("by its measurement tool", StringComparison.Ordinal)))
            .ToArray();

        Assert.IsTrue(words <= ProseWords, $"docs/ has {words} words of prose, more than {ProseWords}: say what is true now, condense history to its conclusion.\n"
            + string.Join("\n", counts.OrderByDescending(count => count.Words).Select(count => $"{count.Words,7} {count.Page}")));
        Assert.AreEqual(0, unsaid.Length, "a generated page must say in its first lines which command made it: " + string.Join(", ", unsaid));
    }

    [TestMethod]
    public void The_docs_index_links_every_page()
    {
        string index = File.ReadAllText(Path.Combine(Docs, "README.md"));

        string[] missing = Pages().Where(page => page != "README.md" && !index.Contains($"]({page})", StringComparison.Ordinal)).ToArray();

        Assert.AreEqual(0, missing.Length, "docs/README.md has no line for: " + string.Join(", ", missing));
    }

    /// <summary>The markdown pages of docs/ and of its folders, relative to docs/, with '/'.</summary>
    private static string[] Pages()
        => Directory.GetFiles(Docs, "*.md", SearchOption.AllDirectories)
            .Select(path => Path.GetRelativePath(Docs, path).Replace(Path.DirectorySeparatorChar, '/'))
            .OrderBy(page => page, StringComparer.Ordinal)
            .ToArray();
}
