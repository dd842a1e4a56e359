using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Shared;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Faults;

/// <summary>
/// A build is SIGKILLed (OOM killer, kill -9, a CI timeout) while it copies a 1 GiB file. The destination
/// is the previous file, never a partial one. What the killed process was writing stays behind as one
/// hidden temporary file whose name shows what it belonged to; the next copy is not confused by it and
/// leaves it alone, because the same name pattern also belongs to copies still running in other processes
/// (docs/guarantees.md says how to clear them).
/// </summary>
[TestClass]
public sealed class KillTests
{
    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void A_build_killed_while_copying_a_large_file_leaves_the_previous_destination_and_no_temporary_file(string kind)
    {
        string source = BigFiles.OneGiBSource; // on ext4: a byte copy onto ext4 or XFS, long enough to interrupt
        UnixFileFacts sourceBefore = UnixFileFacts.Of(source);
        string folder = LoopFileSystems.Require(kind).NewFolder("killed");
        string destination = TestFiles.Write(folder, "app.bin", 1 << 20);
        FileSnapshot previous = FileSnapshot.Of(destination);
        string project = MSBuildProjects.Write(folder, "copy.proj", $"""
              <Target Name="Build">
                <Copy SourceFiles="{source}" DestinationFiles="{destination}" Retries="0" />
              </Target>
            """);

        string[] strays;
        using (ChildProcess build = MSBuildProjects.Start(project, stock: false, []))
        {
            bool copying = ChildProcess.WaitUntil(() => BigFiles.CopyUnderway(destination) || build.HasExited, TimeSpan.FromSeconds(60));
            Assert.IsTrue(copying && !build.HasExited, $"the copy was not caught in the middle:\n{build.Output}");
            build.KillTree();
            Assert.IsTrue(build.WaitForExit(TimeSpan.FromSeconds(10)));
            strays = BigFiles.TemporariesBeside(destination);
        }

        try
        {
            previous.AssertUnchanged(destination, "the destination after the kill");
            // The new content was in a file with no name yet (O_TMPFILE): the kill took it with the process.
            Assert.AreEqual(0, strays.Length, "a temporary file was left: " + string.Join(", ", strays));
            CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder), "nothing is left");
            UnixFileFacts sourceAfter = UnixFileFacts.Of(source);
            Assert.AreEqual((sourceBefore.Size, sourceBefore.ModifiedNanoseconds, sourceBefore.Inode), (sourceAfter.Size, sourceAfter.ModifiedNanoseconds, sourceAfter.Inode), "the source");

            // The next build copies over the same destination as if nothing had happened.
            string next = TestFiles.Write(TestScratch.NewFolder("next"), "app.bin", 10_000);
            CopyRun rerun = OurCopy.File(next, destination);

            Assert.IsTrue(rerun.Succeeded, rerun.ToString());
            Assert.AreEqual(0, rerun.WarningCodes.Count, rerun.ToString());
            Assert.IsTrue(TestFiles.SameBytes(next, destination));
            CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder), "the next copy left no temporary file");
        }
        finally
        {
            foreach (string stray in strays)
            {
                File.Delete(stray); // up to 1 GiB on the shared file system
            }
        }
    }
}
