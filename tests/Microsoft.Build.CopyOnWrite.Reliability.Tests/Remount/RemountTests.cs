using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Remount;

/// <summary>
/// A long-lived MSBuild node keeps one clone engine (and its memory of which volumes refused to clone)
/// for its whole life, while volumes come and go under the same paths. Here this process's shared engine
/// copies onto XFS, then btrfs, then ext4, then XFS again, all mounted in turn at one mount point (the
/// loop device, and so the device number, is often reused). Every copy succeeds, and every claim is
/// checked against the file system's own record: "cloned" must have shared extents, "copied" must not.
/// </summary>
[TestClass]
public sealed class RemountTests
{
    private const int Size = 1 << 20;

    [TestMethod]
    public void A_long_lived_engine_keeps_copying_while_XFS_btrfs_and_ext4_take_turns_at_one_path_and_every_clone_claim_is_true()
    {
        using LoopFileSystem xfs = LoopFileSystems.RequireNew("xfs", 300);
        using LoopFileSystem btrfs = LoopFileSystems.RequireNew("btrfs", 256);
        using LoopFileSystem ext4 = LoopFileSystems.RequireNew("ext4", 64);
        Fault.Must("umount", btrfs.MountPoint);
        Fault.Must("umount", ext4.MountPoint);
        string path = xfs.MountPoint; // the path the volumes take turns at
        string outside = TestScratch.NewFolder("outside"); // the machine's disk: always another volume
        var log = new List<string>();

        try
        {
            Phase("xfs", expectClone: true);
            Remount(btrfs);
            Phase("btrfs", expectClone: true);
            Remount(ext4);
            Phase("ext4", expectClone: false);
            Remount(xfs);
            Phase("xfs again", expectClone: true);
        }
        finally
        {
            Console.WriteLine(string.Join(Environment.NewLine, log));
        }

        void Remount(LoopFileSystem next)
        {
            Fault.Must("umount", path);
            Fault.Must("mount", "-o", "loop", next.ImagePath, path);
        }

        void Phase(string name, bool expectClone)
        {
            string device = ProcessRunner.Run("stat", "--format=%d", path).Output.Trim();
            string folder = Path.Combine(path, name.Replace(' ', '-'));
            string local = TestFiles.Write(folder, "local-source.bin", Size, seed: name.GetHashCode(StringComparison.Ordinal));
            string external = TestFiles.Write(outside, name.Replace(' ', '-') + ".bin", Size);

            CopyAndCheck(local, Path.Combine(folder, "out", "from-same-volume.bin"), expectClone);
            CopyAndCheck(external, Path.Combine(folder, "out", "from-other-volume.bin"), expectClone: false);
            // And a second round, now that the engine may remember something about this volume pair.
            CopyAndCheck(local, Path.Combine(folder, "out", "from-same-volume-2.bin"), expectClone);
            CopyAndCheck(external, Path.Combine(folder, "out", "from-other-volume-2.bin"), expectClone: false);
            CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));

            void CopyAndCheck(string source, string destination, bool expectClone)
            {
                CopyRun run = OurCopy.File(source, destination, retries: 0); // Engine null: the process-wide engine
                Assert.IsTrue(run.Succeeded, $"{name}: {run}");
                // The Copy's summary line says what it did with its one file: "CopyOnWrite: cloned 1 file (...)." or
                // "CopyOnWrite: copied 1 file (...) because ...".
                string[] claims = run.Messages.Where(m => m.StartsWith("CopyOnWrite: cloned ", StringComparison.Ordinal) || m.StartsWith("CopyOnWrite: copied ", StringComparison.Ordinal)).ToArray();
                Assert.AreEqual(1, claims.Length, $"{name}: one claim per copy expected:\n{run.Log}");
                bool claimedClone = claims[0].StartsWith("CopyOnWrite: cloned 1 file ", StringComparison.Ordinal);
                log.Add($"{name} (device {device}): {Path.GetFileName(destination)}: {claims[0]}");
                Assert.IsTrue(TestFiles.SameBytes(source, destination), $"{name}: {destination}");
                if (claimedClone)
                {
                    SharedExtents.AssertAllShared(destination, $"{name}: the task said it cloned");
                }
                else
                {
                    SharedExtents.AssertNoneShared(destination, $"{name}: the task said it copied");
                }

                Assert.AreEqual(expectClone, claimedClone, $"{name}: {claims[0]}");
            }
        }
    }
}
