using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Faults;

/// <summary>The disk fills in the middle of a 100 MiB copy: the stock task's codes, the real ENOSPC text, and nothing lost or left.</summary>
[TestClass]
public sealed class DiskFullTests
{
    [TestMethod]
    [DataRow("ext4", true)]
    [DataRow("ext4", false)]
    [DataRow("xfs", true)]
    [DataRow("xfs", false)]
    public void A_disk_that_fills_during_a_copy_fails_with_ENOSPC_and_keeps_the_previous_destination_or_none(string kind, bool previousExists)
    {
        string source = BigFiles.HundredMiBSource;
        // ext4: 64 MiB in all. XFS cannot be made below 300 MiB: a preallocated filler leaves 40 MiB.
        using LoopFileSystem small = LoopFileSystems.RequireNew(kind, kind == "xfs" ? 300 : 64);
        string folder = small.NewFolder("full");
        if (kind == "xfs")
        {
            long filler = new DriveInfo(small.MountPoint).AvailableFreeSpace - (40L << 20);
            Fault.Must("fallocate", "-l", filler.ToString(), Path.Combine(folder, "filler.bin"));
        }

        string destination = Path.Combine(folder, "app.bin");
        FileSnapshot? previous = null;
        if (previousExists)
        {
            TestFiles.Write(folder, "app.bin", 1 << 20);
            previous = FileSnapshot.Of(destination);
        }

        long freeBefore = new DriveInfo(small.MountPoint).AvailableFreeSpace;
        Assert.IsTrue(freeBefore < BigFiles.HundredMiB, $"the premise: {freeBefore} bytes free cannot hold 100 MiB");

        CopyRun run = OurCopy.Run(new CopyRequest { Sources = [source], Destinations = [destination], Retries = 1 });

        Assert.IsFalse(run.Succeeded);
        CollectionAssert.AreEqual(new[] { "MSB3026" }, run.WarningCodes.ToArray(), run.ToString());
        CollectionAssert.AreEqual(new[] { "MSB3027", "MSB3021" }, run.ErrorCodes.ToArray(), run.ToString());
        StringAssert.Contains(run.ErrorMessages[1], "No space left on device", "the real reason, not a generic one");
        if (previous is null)
        {
            Assert.IsFalse(File.Exists(destination), "a partial destination was left");
        }
        else
        {
            previous.AssertUnchanged(destination, "the previous destination");
        }

        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
        // XFS frees a deleted file's blocks in the background (inode GC, a kernel worker that a loaded machine runs
        // late): flush and poll until the space is back, for up to a minute.
        long freeAfter = 0;
        for (var waited = System.Diagnostics.Stopwatch.StartNew(); waited.Elapsed < TimeSpan.FromSeconds(60); System.Threading.Thread.Sleep(100))
        {
            Fault.Must("sync", "-f", folder);
            freeAfter = new DriveInfo(small.MountPoint).AvailableFreeSpace;
            if (freeAfter >= freeBefore - (1 << 20))
            {
                break;
            }
        }

        Assert.IsTrue(freeAfter >= freeBefore - (1 << 20), $"the failed copy's space was not given back within 60 s: {freeBefore} free before, {freeAfter} after");
    }
}
