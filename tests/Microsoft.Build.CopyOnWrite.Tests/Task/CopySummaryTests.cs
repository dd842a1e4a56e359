using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Task;

/// <summary>The one line a Copy says about itself: only what happened, in a fixed order, counted right for one and for many.</summary>
[TestClass]
public sealed class CopySummaryTests
{
    [TestMethod]
    public void Names_every_kind_that_happened_in_order_with_sizes_and_reasons()
    {
        var summary = new CopySummary();
        summary.AddCloneResult(CloneResult.Cloned(3 * 1024 * 1024));
        summary.AddCloneResult(CloneResult.Cloned(1024 * 1024 / 10));
        summary.AddCloneResult(CloneResult.Copied(1536, FallbackReason.FileSystemCannotClone, "ext4"));
        summary.AddLinked();
        summary.AddUpToDate(100);
        summary.AddUpToDate(200);

        Assert.AreEqual(
            "CopyOnWrite: cloned 2 files (3.1 MiB), copied 1 file (1.5 KiB) because ext4 cannot clone, linked 1 file, 2 files already up to date.",
            summary.Describe());
    }

    [TestMethod]
    public void A_copy_where_everything_was_up_to_date_says_only_that()
    {
        var summary = new CopySummary();
        summary.AddUpToDate(10);

        Assert.AreEqual("CopyOnWrite: 1 file already up to date, nothing cloned or copied.", summary.Describe());
    }

    [TestMethod]
    public void Clones_made_where_links_were_asked_for_and_links_replaced_are_counted_among_the_clones_with_their_sizes()
    {
        var summary = new CopySummary();
        summary.AddClonedInsteadOfLink(CloneResult.Cloned(2048), "/src/a.dll", "/out/a.dll");
        summary.AddReplacedLink(CloneResult.Cloned(1024), "/src/b.dll", "/out/b.dll");

        Assert.AreEqual(
            "CopyOnWrite: cloned 2 files (3 KiB), 1 of them (2 KiB) where links were asked for (CopyOnWriteInsteadOfLinks), replaced 1 link with a clone among them (1 KiB; the outputs were links to their sources).",
            summary.Describe());
    }

    [TestMethod]
    public void Copies_for_several_reasons_name_each_with_its_count_most_files_first()
    {
        var summary = new CopySummary();
        summary.AddCloneResult(CloneResult.Copied(10, FallbackReason.DifferentVolumes));
        summary.AddCloneResult(CloneResult.Copied(0, FallbackReason.EmptyFile));
        summary.AddCloneResult(CloneResult.Copied(0, FallbackReason.EmptyFile));

        Assert.AreEqual(
            "CopyOnWrite: copied 3 files (10 B) because the files are empty (2 files); source and destination are on different volumes (1 file).",
            summary.Describe());
    }
}
