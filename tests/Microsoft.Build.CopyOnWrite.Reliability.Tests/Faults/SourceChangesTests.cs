using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Faults;

/// <summary>
/// The source changes after the task checked it and before the engine opens it (a wrapping engine does
/// the damage at exactly that moment): the copy either fails cleanly or copies what is there, and the old
/// destination is never half-replaced.
/// </summary>
[TestClass]
public sealed class SourceChangesTests
{
    private const int Size = 3 << 20;

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void A_source_deleted_before_copying_fails_with_MSB3030_on_the_retry_and_keeps_the_old_destination(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("vanishing");
        string source = TestFiles.Write(folder, "source.bin", Size);
        string destination = TestFiles.Write(folder, "app.bin", 1000);
        FileSnapshot before = FileSnapshot.Of(destination);
        var engine = new SabotagingEngine(File.Delete);

        CopyRun run = OurCopy.Run(new CopyRequest { Sources = [source], Destinations = [destination], Retries = 1, Engine = engine });

        Assert.IsFalse(run.Succeeded);
        // The engine's "Could not find file" is retried; the retry finds no source: MSB3030, as the stock task.
        CollectionAssert.AreEqual(new[] { "MSB3026" }, run.WarningCodes.ToArray(), run.ToString());
        CollectionAssert.AreEqual(new[] { "MSB3030" }, run.ErrorCodes.ToArray(), run.ToString());
        before.AssertUnchanged(destination, "the old destination");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    /// <summary>The retry warning carries the same text File.Copy (so the stock task) would give for the missing path.</summary>
    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void A_source_whose_folder_is_deleted_before_copying_warns_with_the_text_File_Copy_gives_then_fails_with_MSB3030(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("vanishing-folder");
        string source = TestFiles.Write(Path.Combine(folder, "in"), "source.bin", Size);
        string destination = TestFiles.Write(folder, "app.bin", 1000);
        FileSnapshot before = FileSnapshot.Of(destination);
        var engine = new SabotagingEngine(path => Directory.Delete(Path.GetDirectoryName(path)!, recursive: true));

        CopyRun run = OurCopy.Run(new CopyRequest { Sources = [source], Destinations = [destination], Retries = 1, Engine = engine });

        string fileCopySays = Assert.ThrowsExactly<DirectoryNotFoundException>(() => File.Copy(source, Path.Combine(folder, "probe.bin"))).Message;
        Assert.IsFalse(run.Succeeded);
        CollectionAssert.AreEqual(new[] { "MSB3030" }, run.ErrorCodes.ToArray(), run.ToString());
        CollectionAssert.AreEqual(new[] { "MSB3026" }, run.WarningCodes.ToArray(), run.ToString());
        StringAssert.Contains(run.Log, fileCopySays);
        before.AssertUnchanged(destination, "the old destination");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void A_source_truncated_before_copying_is_copied_as_it_now_is_never_as_a_mixture(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("truncated");
        string source = TestFiles.Write(folder, "source.bin", Size);
        string destination = TestFiles.Write(folder, "app.bin", Size, seed: 7);
        var engine = new SabotagingEngine(path =>
        {
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Write);
            stream.SetLength(Size / 3);
        });

        CopyRun run = OurCopy.Run(new CopyRequest { Sources = [source], Destinations = [destination], Engine = engine });

        Assert.IsTrue(run.Succeeded, run.ToString());
        Assert.AreEqual(Size / 3, new FileInfo(destination).Length);
        Assert.IsTrue(TestFiles.SameBytes(source, destination), "the destination is the truncated source, not part old and part new");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void A_source_replaced_by_a_FIFO_before_copying_fails_at_once_instead_of_hanging(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("swapped");
        string source = TestFiles.Write(folder, "source.bin", Size);
        string destination = TestFiles.Write(folder, "app.bin", 1000);
        FileSnapshot before = FileSnapshot.Of(destination);
        var engine = new SabotagingEngine(path =>
        {
            File.Delete(path);
            Fault.Must("mkfifo", path);
        });
        var clock = Stopwatch.StartNew();

        CopyRun run = OurCopy.Run(new CopyRequest { Sources = [source], Destinations = [destination], Retries = 3, Engine = engine });

        Assert.IsTrue(clock.Elapsed < TimeSpan.FromSeconds(5), $"took {clock.Elapsed}");
        Assert.IsFalse(run.Succeeded);
        CollectionAssert.AreEqual(new[] { "MSB3021" }, run.ErrorCodes.ToArray(), run.ToString());
        Assert.AreEqual(0, run.WarningCodes.Count, "a FIFO will not become a file by retrying");
        StringAssert.Contains(run.ErrorMessages[0], "is a FIFO (named pipe), not a regular file");
        before.AssertUnchanged(destination, "the old destination");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }
}
