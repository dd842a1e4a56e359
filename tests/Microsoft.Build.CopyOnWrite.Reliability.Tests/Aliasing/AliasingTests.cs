using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Aliasing;

/// <summary>
/// Destinations that are, or lead to, the source or another file: our Copy task in-process. Whatever the
/// aliasing, no source is truncated or changed and no link target is written.
/// </summary>
[TestClass]
public sealed class AliasingTests
{
    private const int Size = 300_000;

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void A_destination_that_is_a_hard_link_to_the_source_becomes_an_independent_copy_and_the_source_keeps_its_bytes(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("hardlink");
        string source = TestFiles.Write(folder, "source.bin", Size);
        string destination = Path.Combine(folder, "destination.bin");
        Fault.Must("ln", source, destination);
        FileSnapshot before = FileSnapshot.Of(source);

        CopyRun run = OurCopy.File(source, destination);

        Assert.IsTrue(run.Succeeded, run.ToString());
        Assert.AreEqual(0, run.WarningCodes.Count + run.ErrorCodes.Count, run.ToString());
        FileSnapshot after = FileSnapshot.Of(source);
        // The stock task deletes the link and copies: the link is broken (link count 2 -> 1, which moves
        // the source's change time), and nothing else about the source may differ.
        Assert.AreEqual(before with { Links = 1, Changed = after.Changed }, after, "the source");
        FileSnapshot copy = FileSnapshot.Of(destination);
        Assert.AreEqual("regular file", copy.Type);
        Assert.AreNotEqual(before.Inode, copy.Inode, "the destination is still a hard link to the source");
        Assert.AreEqual(before.ContentHash, copy.ContentHash);
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void A_destination_that_is_a_symlink_to_the_source_is_replaced_by_a_copy_and_the_source_is_untouched(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("symlink-to-source");
        string source = TestFiles.Write(folder, "source.bin", Size);
        UnixFileFacts.SetMode(source, "444");
        string destination = Path.Combine(folder, "destination.bin");
        File.CreateSymbolicLink(destination, source);
        FileSnapshot before = FileSnapshot.Of(source);

        CopyRun run = OurCopy.File(source, destination);

        Assert.IsTrue(run.Succeeded, run.ToString());
        before.AssertUnchanged(source, "the source behind the destination symlink");
        FileSnapshot copy = FileSnapshot.Of(destination);
        Assert.AreEqual("regular file", copy.Type, "the symlink was not replaced");
        Assert.AreEqual(before.ContentHash, copy.ContentHash);
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void A_destination_that_is_a_symlink_to_a_third_file_is_replaced_and_the_third_file_is_untouched(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("symlink-to-third");
        string source = TestFiles.Write(folder, "source.bin", Size);
        string third = TestFiles.Write(folder, "package-cache.bin", Size);
        string destination = Path.Combine(folder, "destination.bin");
        File.CreateSymbolicLink(destination, third);
        FileSnapshot thirdBefore = FileSnapshot.Of(third);
        FileSnapshot sourceBefore = FileSnapshot.Of(source);

        CopyRun run = OurCopy.File(source, destination);

        Assert.IsTrue(run.Succeeded, run.ToString());
        thirdBefore.AssertUnchanged(third, "the symlink's target");
        sourceBefore.AssertUnchanged(source, "the source");
        Assert.AreEqual("regular file", FileSnapshot.Of(destination).Type);
        Assert.AreEqual(sourceBefore.ContentHash, FileSnapshot.Of(destination).ContentHash);
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    /// <summary>
    /// The destination path names the source's own directory entry by another spelling. Copying a file
    /// onto itself must write nothing, as for identical paths: no new inode, no mode or time change, no
    /// full copy of a large file (which would also need free space the size of the file). A read-only
    /// source makes any rewrite visible in its mode. (The stock task deletes the destination first, and
    /// so deletes the source: MSB3021 "Could not find file".)
    /// </summary>
    [TestMethod]
    [DataRow("ext4", "symlinked folder")]
    [DataRow("xfs", "symlinked folder")]
    [DataRow("btrfs", "symlinked folder")]
    [DataRow("ext4", "bind mount")]
    [DataRow("xfs", "bind mount")]
    [DataRow("btrfs", "bind mount")]
    [DataRow("ext4", "dot-dot segments")]
    [DataRow("xfs", "dot-dot segments")]
    [DataRow("ext4", "/proc/self/root spelling")]
    [DataRow("xfs", "/proc/self/root spelling")]
    [DataRow("ext4", "source is a symlink to the destination")]
    [DataRow("xfs", "source is a symlink to the destination")]
    [DataRow("ext4", "destination folder is a symlink to the source folder")]
    [DataRow("xfs", "destination folder is a symlink to the source folder")]
    public void Copying_a_file_onto_itself_through_an_alias_succeeds_and_writes_nothing(string kind, string alias)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("self");
        string realFolder = Path.Combine(folder, "real");
        string source = TestFiles.Write(realFolder, "app.dll", Size);
        UnixFileFacts.SetMode(source, "444");
        string? destinationFolder = null;
        string destination;
        Fault? mount = null;
        switch (alias)
        {
            case "symlinked folder":
                Directory.CreateSymbolicLink(Path.Combine(folder, "view"), realFolder);
                destination = Path.Combine(folder, "view", "app.dll");
                break;
            case "bind mount":
                mount = Fault.BindMount(realFolder, Path.Combine(folder, "view"));
                destination = Path.Combine(folder, "view", "app.dll");
                break;
            case "dot-dot segments":
                Directory.CreateDirectory(Path.Combine(realFolder, "sub"));
                destination = realFolder + "/sub/.././/app.dll";
                break;
            case "/proc/self/root spelling":
                destination = "/proc/self/root" + source;
                break;
            case "source is a symlink to the destination":
                destination = source;
                source = Path.Combine(folder, "link-to-app.dll");
                File.CreateSymbolicLink(source, destination);
                break;
            case "destination folder is a symlink to the source folder":
                Directory.CreateSymbolicLink(Path.Combine(folder, "bin"), realFolder);
                destinationFolder = Path.Combine(folder, "bin");
                destination = Path.Combine(destinationFolder, "app.dll");
                break;
            default:
                throw new ArgumentException(alias);
        }

        using (mount)
        {
            string entry = Path.Combine(realFolder, "app.dll");
            FileSnapshot before = FileSnapshot.Of(entry);

            CopyRun run = destinationFolder is null
                ? OurCopy.File(source, destination)
                : OurCopy.Run(new CopyRequest { Sources = [source], DestinationFolder = destinationFolder });

            Assert.IsTrue(run.Succeeded, run.ToString());
            Assert.AreEqual(0, run.ErrorCodes.Count + run.WarningCodes.Count, run.ToString());
            CollectionAssert.AreEqual(new[] { destination }, run.CopiedFiles.ToArray(), "a self-copy is reported as copied, as the stock task does");
            before.AssertUnchanged(entry, "the source copied onto itself");
            Assert.IsFalse(run.Messages.Any(m => m.StartsWith("Copying file from", StringComparison.Ordinal)), $"nothing should be copied:\n{run.Log}");
            CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(realFolder));
        }
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void A_destination_that_is_a_symlink_to_a_folder_fails_with_MSB3024_and_the_folder_is_untouched(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("symlink-to-folder");
        string source = TestFiles.Write(folder, "source.bin", Size);
        string targetFolder = Path.Combine(folder, "target");
        string inside = TestFiles.Write(targetFolder, "existing.bin", 1000);
        string destination = Path.Combine(folder, "destination.bin");
        Directory.CreateSymbolicLink(destination, targetFolder);
        FileSnapshot insideBefore = FileSnapshot.Of(inside);
        FileSnapshot linkBefore = FileSnapshot.Of(destination);

        CopyRun run = OurCopy.File(source, destination);

        Assert.IsFalse(run.Succeeded);
        CollectionAssert.AreEqual(new[] { "MSB3024" }, run.ErrorCodes.ToArray(), run.ToString());
        Assert.AreEqual(0, run.WarningCodes.Count, "a folder will not become a file by retrying");
        insideBefore.AssertUnchanged(inside, "the file in the linked folder");
        linkBefore.AssertUnchanged(destination, "the symlink");
        CollectionAssert.AreEqual(new[] { "existing.bin" }, Directory.GetFileSystemEntries(targetFolder).Select(Path.GetFileName).ToArray());
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void A_destination_that_is_a_dangling_symlink_is_replaced_by_a_file_and_nothing_appears_at_its_target(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("dangling");
        string source = TestFiles.Write(folder, "source.bin", Size);
        string target = Path.Combine(folder, "elsewhere", "not-there.bin");
        string destination = Path.Combine(folder, "destination.bin");
        File.CreateSymbolicLink(destination, target);

        CopyRun run = OurCopy.File(source, destination);

        Assert.IsTrue(run.Succeeded, run.ToString());
        Assert.AreEqual("regular file", FileSnapshot.Of(destination).Type);
        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        Assert.IsFalse(Directory.Exists(Path.GetDirectoryName(target)), "the copy followed the link to its target");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void A_source_that_is_a_symlink_is_copied_as_its_targets_content_and_the_link_and_target_are_untouched(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("source-symlink");
        string target = TestFiles.Write(folder, "target.bin", Size);
        string source = Path.Combine(folder, "source-link.bin");
        File.CreateSymbolicLink(source, target);
        string destination = Path.Combine(folder, "out", "destination.bin");
        FileSnapshot targetBefore = FileSnapshot.Of(target);
        FileSnapshot linkBefore = FileSnapshot.Of(source);

        CopyRun run = OurCopy.File(source, destination);

        Assert.IsTrue(run.Succeeded, run.ToString());
        targetBefore.AssertUnchanged(target, "the source link's target");
        linkBefore.AssertUnchanged(source, "the source link");
        FileSnapshot copy = FileSnapshot.Of(destination);
        Assert.AreEqual("regular file", copy.Type, "File.Copy copies the target's content, not the link");
        Assert.AreEqual(targetBefore.ContentHash, copy.ContentHash);
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }
}
