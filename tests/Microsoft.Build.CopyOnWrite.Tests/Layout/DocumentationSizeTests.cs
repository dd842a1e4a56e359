using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Layout;

/// <summary>
/// The documentation stays readable (issues 41 and 45): a README a newcomer reads in ten minutes, docs/ as reference of
/// a bounded size rather than a lab notebook, and an index that names every page.
/// </summary>
[TestClass]
public sealed class DocumentationSizeTests
{
    private const int ReadmeLines = 250;
    private const int DocsWords = 25_000;

    private static string Docs => Path.Combine(RepositoryLayout.Root, "docs");

    [TestMethod]
    public void The_README_has_at_most_250_lines()
    {
        int lines = File.ReadAllLines(Path.Combine(RepositoryLayout.Root, "README.md")).Length;

        Assert.IsTrue(lines <= ReadmeLines, $"README.md has {lines} lines, more than {ReadmeLines}: move how things work inside to docs/.");
    }

    /// <summary>Words as `cat docs/*.md docs/*/*.md | wc -w` counts them: every markdown page, generated results included.</summary>
    [TestMethod]
    public void The_docs_pages_have_at_most_25000_words()
    {
        var counts = Pages().Select(page => (Page: page, Words: File.ReadAllText(Path.Combine(Docs, page)).Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries).Length)).ToList();
        int words = counts.Sum(count => count.Words);

        Assert.IsTrue(words <= DocsWords, $"docs/ has {words} words, more than {DocsWords}: say what is true now, condense history to its conclusion.\n"
            + string.Join("\n", counts.OrderByDescending(count => count.Words).Select(count => $"{count.Words,7} {count.Page}")));
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
