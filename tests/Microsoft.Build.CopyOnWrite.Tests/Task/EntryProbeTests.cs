using System.IO;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Task;

/// <summary>
/// The one-stat shortcut the Copy task takes before its checks (UnixFiles.Probe): it may only answer where one
/// answer settles every check it replaces. Anything unusual must be "unknown", so the task asks .NET as the stock
/// task does and keeps its error codes and order (the parity suite checks those through the task).
/// </summary>
[TestClass]
public sealed class EntryProbeTests
{
    [TestMethod]
    public void A_name_with_nothing_behind_it_is_missing()
    {
        string folder = TestScratch.NewFolder("probe-missing");

        Assert.AreEqual(EntryKind.Missing, UnixFiles.Probe(Path.Combine(folder, "nothing.bin"), followLinks: false));
        Assert.AreEqual(EntryKind.Missing, UnixFiles.Probe(Path.Combine(folder, "no-folder", "nothing.bin"), followLinks: false));
    }

    [TestMethod]
    public void A_regular_file_is_one_and_a_link_to_it_only_when_links_are_followed()
    {
        string folder = TestScratch.NewFolder("probe-file");
        string file = TestFiles.Write(folder, "file.bin", 10);
        string link = Path.Combine(folder, "link.bin");
        File.CreateSymbolicLink(link, file);

        Assert.AreEqual(EntryKind.RegularFile, UnixFiles.Probe(file, followLinks: false));
        Assert.AreEqual(EntryKind.RegularFile, UnixFiles.Probe(link, followLinks: true));
        Assert.AreEqual(EntryKind.Unknown, UnixFiles.Probe(link, followLinks: false), "a link itself is no regular file: the task must look at it");
    }

    [TestMethod]
    public void A_dangling_link_a_folder_and_a_path_through_a_file_are_left_to_the_full_checks()
    {
        string folder = TestScratch.NewFolder("probe-unusual");
        string file = TestFiles.Write(folder, "file.bin", 10);
        string dangling = Path.Combine(folder, "dangling.bin");
        File.CreateSymbolicLink(dangling, Path.Combine(folder, "gone.bin"));

        Assert.AreEqual(EntryKind.Unknown, UnixFiles.Probe(dangling, followLinks: false), "a dangling link is an entry: a destination that must be replaced, not created");
        Assert.AreEqual(EntryKind.Unknown, UnixFiles.Probe(folder, followLinks: false));
        Assert.AreEqual(EntryKind.Unknown, UnixFiles.Probe(folder, followLinks: true));
        Assert.AreEqual(EntryKind.Unknown, UnixFiles.Probe(Path.Combine(file, "inside.bin"), followLinks: false), "ENOTDIR: .NET says what it is");
    }
}
