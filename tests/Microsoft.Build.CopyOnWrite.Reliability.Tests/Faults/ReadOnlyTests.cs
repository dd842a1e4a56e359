using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Shared;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Faults;

/// <summary>
/// Destinations that cannot be written: an immutable folder or file (chattr +i stops root too; chmod
/// does not), a folder or file an unprivileged build may not write (setpriv to `nobody`), a read-only
/// file system. The copy fails with the stock task's codes, and the old destination survives untouched.
/// </summary>
[TestClass]
public sealed class ReadOnlyTests
{
    private const int Size = 200_000;

    /// <summary>
    /// No new file can be made in the folder, and no file deleted from it, but its files can be written. The stock task
    /// cannot delete the old file, then overwrites it in place and succeeds; so does ours, down its fallback ladder
    /// (Cloning/FallbackLadder): the one way left, into a regular file with one name only. A new destination fails in
    /// both, with access denied.
    /// </summary>
    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void An_immutable_destination_folder_gets_its_file_written_in_place_as_the_stock_task_writes_it(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("immutable-folder");
        string source = TestFiles.Write(folder, "source.bin", Size);
        string outFolder = Path.Combine(folder, "out");
        string destination = TestFiles.Write(outFolder, "app.bin", 1000);
        string stockDestination = TestFiles.Write(outFolder, "stock-app.bin", 1000);
        long inode = UnixFileFacts.Of(destination).Inode;

        CopyRun ours, stock, oursNew, stockNew;
        using (Fault.Immutable(outFolder))
        {
            ours = OurCopy.File(source, destination);
            oursNew = OurCopy.File(source, Path.Combine(outFolder, "new.bin"));
            stock = StockCopy.File(source, stockDestination);
            stockNew = StockCopy.File(source, Path.Combine(outFolder, "stock-new.bin"));
        }

        Assert.IsTrue(stock.Succeeded && TestFiles.SameBytes(source, stockDestination), $"the stock task overwrites in place here (premise):\n{stock}");
        Assert.IsTrue(ours.Succeeded, ours.ToString());
        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        Assert.AreEqual(inode, UnixFileFacts.Of(destination).Inode, "written into the file itself: the folder takes no new one");
        CollectionAssert.AreEqual(Array.Empty<string>(), ours.ErrorCodes.ToArray(), ours.ToString());
        CollectionAssert.AreEqual(Array.Empty<string>(), ours.WarningCodes.ToArray(), $"the folder's doing, not an engine fault: no COW006, as the stock task says nothing:\n{ours}");
        CollectionAssert.AreEqual(stockNew.ErrorCodes.ToArray(), oursNew.ErrorCodes.ToArray(), $"a new destination fails as in the stock task:\n{stockNew}\n{oursNew}");
        Assert.IsFalse(oursNew.Succeeded);
        Assert.IsFalse(File.Exists(Path.Combine(outFolder, "new.bin")));
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void An_immutable_destination_fails_like_the_stock_task_and_is_untouched(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("immutable-file");
        string source = TestFiles.Write(folder, "source.bin", Size);
        string destination = TestFiles.Write(folder, "app.bin", 1000);
        string stockDestination = TestFiles.Write(folder, "stock-app.bin", 1000);

        CopyRun ours, stock;
        using (Fault.Immutable(destination))
        using (Fault.Immutable(stockDestination))
        {
            FileSnapshot before = FileSnapshot.Of(destination);
            ours = OurCopy.File(source, destination);
            before.AssertUnchanged(destination, "the immutable destination");
            stock = StockCopy.File(source, stockDestination);
        }

        Assert.IsFalse(ours.Succeeded);
        CollectionAssert.AreEqual(new[] { "MSB3026" }, ours.WarningCodes.ToArray(), ours.ToString());
        CollectionAssert.AreEqual(new[] { "MSB3027", "MSB3021" }, ours.ErrorCodes.ToArray(), ours.ToString());
        CollectionAssert.AreEqual(stock.ErrorCodes.ToArray(), ours.ErrorCodes.ToArray(), stock.ToString());
        Assert.AreEqual(stock.ErrorMessages[1].Replace("stock-app.bin", "app.bin"), ours.ErrorMessages[1]);
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void A_read_only_file_system_fails_like_the_stock_task_and_keeps_the_old_destination(string kind)
    {
        using LoopFileSystem fileSystem = LoopFileSystems.RequireNew(kind, kind == "xfs" ? 300 : 16);
        string folder = fileSystem.NewFolder("ro");
        string source = TestFiles.Write(TestScratch.NewFolder("ro-source"), "source.bin", Size);
        string destination = TestFiles.Write(folder, "app.bin", 1000);
        string stockDestination = TestFiles.Write(folder, "stock-app.bin", 1000);
        FileSnapshot before = FileSnapshot.Of(destination);

        CopyRun ours, oursNew, stock, stockNew;
        using (Fault.ReadOnlyRemount(fileSystem.MountPoint))
        {
            ours = OurCopy.File(source, destination);
            oursNew = OurCopy.File(source, Path.Combine(folder, "new.bin"));
            stock = StockCopy.File(source, stockDestination);
            stockNew = StockCopy.File(source, Path.Combine(folder, "stock-new.bin"));
        }

        Assert.IsFalse(ours.Succeeded);
        CollectionAssert.AreEqual(new[] { "MSB3026" }, ours.WarningCodes.ToArray(), ours.ToString());
        CollectionAssert.AreEqual(new[] { "MSB3027", "MSB3021" }, ours.ErrorCodes.ToArray(), ours.ToString());
        CollectionAssert.AreEqual(stock.ErrorCodes.ToArray(), ours.ErrorCodes.ToArray(), stock.ToString());
        Assert.AreEqual(stock.ErrorMessages[1].Replace("stock-app.bin", "app.bin"), ours.ErrorMessages[1], "an existing destination");
        Assert.AreEqual(stockNew.ErrorMessages.Last().Replace("stock-new.bin", "new.bin"), oursNew.ErrorMessages.Last(), "a new destination");
        before.AssertUnchanged(destination, "the old destination");
        Assert.IsFalse(File.Exists(Path.Combine(folder, "new.bin")));
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    /// <summary>Permissions (not root's immutable flag): the build runs as `nobody` through a real project.</summary>
    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void An_unprivileged_build_cannot_replace_a_read_only_destination_and_fails_like_the_stock_task(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("read-only-file");
        MSBuildProjects.MakeReadableByAnyone(folder);
        File.SetUnixFileMode(folder, (UnixFileMode)0x1FF); // the folder is writable: only the file is read-only
        string source = TestFiles.Write(folder, "source.bin", Size);
        string destination = TestFiles.Write(folder, "app.bin", 1000);
        Fault.Must("chown", "nobody:nogroup", destination);
        UnixFileFacts.SetMode(destination, "444");
        MSBuildProjects.MakeReadableByAnyone(folder);
        FileSnapshot before = FileSnapshot.Of(destination);
        Sides sides = Sides.Of(MSBuildProjects.Write(folder, "copy.proj", $"""
              <Target Name="Build">
                <Copy SourceFiles="{source}" DestinationFiles="{destination}" Retries="1" RetryDelayMilliseconds="0" />
              </Target>
            """));
        MSBuildProjects.MakeReadableByAnyone(folder);

        BuildRun run = RunAsNobody((sides.Ours, false, ""), (sides.Stock, true, ""));
        Diagnostic[] ours = run.Diagnostics.Where(d => d.Project == sides.Ours).ToArray();
        Diagnostic[] stock = run.Diagnostics.Where(d => d.Project == sides.Stock).ToArray();

        CollectionAssert.AreEqual(new[] { "MSB3026", "MSB3027", "MSB3021" }, ours.Select(d => d.Code).ToArray(), run.ToString());
        CollectionAssert.AreEqual(stock.Select(d => d.ToString()).ToArray(), ours.Select(d => d.ToString()).ToArray(), run.ToString());
        before.AssertUnchanged(destination, "the read-only destination");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    /// <summary>
    /// A folder the build may not write (mode 555) holding a file it owns: no new file can be made beside it and it
    /// cannot be deleted, so ours writes it in place, as the stock task does, and both succeed.
    /// </summary>
    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void An_unprivileged_build_writes_a_file_in_a_read_only_folder_in_place_as_the_stock_task_does(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("read-only-folder");
        string source = TestFiles.Write(folder, "source.bin", Size);
        string outFolder = Path.Combine(folder, "out");
        string destination = TestFiles.Write(outFolder, "app.bin", 1000);
        string stockDestination = TestFiles.Write(outFolder, "stock-app.bin", 1000);
        Fault.Must("chown", "nobody:nogroup", destination, stockDestination);
        Sides sides = Sides.Of(MSBuildProjects.Write(folder, "copy.proj", $"""
              <Target Name="Build">
                <Copy SourceFiles="{source}" DestinationFiles="$(Destination)" Retries="1" RetryDelayMilliseconds="0" />
              </Target>
            """));
        MSBuildProjects.MakeReadableByAnyone(folder);
        MSBuildProjects.MakeReadableByAnyone(outFolder);
        UnixFileFacts.SetMode(outFolder, "555");
        long inode = UnixFileFacts.Of(destination).Inode;

        BuildRun run = RunAsNobody((sides.Ours, false, $"Destination={destination}"), (sides.Stock, true, $"Destination={stockDestination}"));

        Assert.IsFalse(run.Diagnostics.Any(d => d.Project == sides.Stock && d.Kind == "error"), $"the stock task writes the file in place here (premise):\n{run}");
        Assert.IsTrue(TestFiles.SameBytes(source, stockDestination), $"the stock task's in-place write (premise):\n{run}");
        Assert.AreEqual(0, run.ExitCode, run.ToString());
        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        Assert.AreEqual(inode, UnixFileFacts.Of(destination).Inode, "written in place");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    /// <summary>Both sides in one build as `nobody`, ours first.</summary>
    private static BuildRun RunAsNobody(params (string Project, bool Stock, string Properties)[] sides)
    {
        BuildRun run = MSBuildProjects.RunSides(sides, TimeSpan.FromSeconds(90), asNobody: true);
        Assert.AreNotEqual(-1, run.ExitCode, $"the build as nobody did not finish:\n{run}");
        return run;
    }
}
