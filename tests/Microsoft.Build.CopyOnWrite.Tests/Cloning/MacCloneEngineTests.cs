using System;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// The macOS engine against a fake that keeps clonefile(2)'s and copyfile(3)'s documented rules
/// (<see cref="FakeMacFileSystem"/>): every clone error but a real failure makes a copy, as File.Copy's does, and
/// the copy keeps what File.Copy's keeps. The libSystem layer under the same seam has never run on a Mac.
/// </summary>
[TestClass]
public sealed class MacCloneEngineTests
{
    private const string Source = "/Volumes/Dev/src/App.dll";
    private const string Destination = "/Volumes/Dev/out/App.dll";

    private FakeMacFileSystem _files = null!;
    private MacCloneEngine _engine = null!;

    [TestInitialize]
    public void MakeVolumes()
    {
        _files = new FakeMacFileSystem();
        _files.AddVolume("/Volumes/Dev/", device: 0x1000010, type: "apfs");
        _files.AddVolume("/Volumes/Stick/", device: 0x1000020, type: "msdos");
        _engine = new MacCloneEngine(_files, new CloneCapabilityCache());
    }

    [TestMethod]
    public void On_APFS_a_file_is_cloned_with_its_extended_attributes_and_its_ACL()
    {
        FakeMacNode source = _files.AddFile(Source, Bytes(5000));
        source.ExtendedAttributes["com.apple.quarantine"] = new byte[] { 1 };
        source.Acl = "user:builder allow read";

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        Assert.IsTrue(_files[Destination].SharesBlocks);
        Assert.IsTrue(_files[Destination].ExtendedAttributes.ContainsKey("com.apple.quarantine"));
        Assert.AreEqual(source.Acl, _files[Destination].Acl, "CLONE_ACL, as File.Copy passes it");
        AssertNoTemporaryFileIn("/Volumes/Dev/out");
    }

    [TestMethod]
    public void Where_CLONE_ACL_is_unknown_the_clone_is_asked_again_without_it()
    {
        _files.AddFile(Source, Bytes(5000));
        _files.KnowsCloneAcl = false;

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(CloneMethod.Cloned, result.Method);
        Assert.AreEqual(2, _files.CallsTo("CloneFrom"));
    }

    [TestMethod]
    [DataRow(11, DisplayName = "EDEADLK: an iCloud file not downloaded yet")]
    [DataRow(12, DisplayName = "ENOMEM")]
    [DataRow(1, DisplayName = "EPERM")]
    [DataRow(4242, DisplayName = "a code no man page lists")]
    public void Any_clonefile_error_but_a_real_failure_makes_that_file_a_copy_that_keeps_what_File_Copy_keeps(int errno)
    {
        FakeMacNode source = _files.AddFile(Source, Bytes(300_000), mode: 0x81ED);
        source.ExtendedAttributes["com.apple.quarantine"] = new byte[] { 7 };
        source.Acl = "group:staff allow read";
        source.Flags = 0x8000; // UF_HIDDEN
        _files.Fail("CloneFrom", errno);

        CloneResult result = _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        FakeMacNode copy = _files[Destination];
        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(FallbackReason.FileSystemRefused, result.Reason);
        CollectionAssert.AreEqual(source.Data, copy.Data);
        Assert.IsFalse(copy.SharesBlocks, "a copy reported as copied must be one");
        CollectionAssert.AreEqual(source.ExtendedAttributes["com.apple.quarantine"], copy.ExtendedAttributes["com.apple.quarantine"]);
        Assert.AreEqual(source.Acl, copy.Acl);
        Assert.AreEqual(source.Flags, copy.Flags);
        Assert.AreEqual(source.Mode, copy.Mode);
        Assert.AreEqual(source.ModifySeconds, copy.ModifySeconds, "times are set after the data is written");
    }

    [TestMethod]
    [DataRow(5, DisplayName = "EIO")]
    [DataRow(28, DisplayName = "ENOSPC")]
    [DataRow(69, DisplayName = "EDQUOT")]
    public void A_real_failure_of_clonefile_fails_the_copy_and_leaves_the_destination_as_it_was(int errno)
    {
        _files.AddFile(Source, Bytes(5000));
        byte[] old = Bytes(10, seed: 4);
        _files.AddFile(Destination, old);
        _files.Fail("CloneFrom", errno);

        Assert.ThrowsExactly<IOException>(() => _engine.CloneOrCopy(Source, Destination, CancellationToken.None));

        CollectionAssert.AreEqual(old, _files[Destination].Data);
        AssertNoTemporaryFileIn("/Volumes/Dev/out");
    }

    [TestMethod]
    public void A_volume_that_cannot_clone_is_named_and_not_asked_again_for_the_next_file()
    {
        _files.AddFile("/Volumes/Stick/a.txt", Bytes(100));
        _files.AddFile("/Volumes/Stick/b.txt", Bytes(200));

        CloneResult first = _engine.CloneOrCopy("/Volumes/Stick/a.txt", "/Volumes/Stick/out-a.txt", CancellationToken.None);
        CloneResult second = _engine.CloneOrCopy("/Volumes/Stick/b.txt", "/Volumes/Stick/out-b.txt", CancellationToken.None);

        Assert.AreEqual(FallbackReason.FileSystemCannotClone, first.Reason);
        Assert.AreEqual("msdos", first.Detail);
        Assert.AreEqual(FallbackReason.FileSystemCannotClone, second.Reason);
        Assert.AreEqual(1, _files.CallsTo("CloneFrom"));
    }

    [TestMethod]
    public void A_file_from_another_volume_is_copied_as_from_another_volume()
    {
        _files.AddFile("/Volumes/Stick/a.txt", Bytes(100));

        CloneResult result = _engine.CloneOrCopy("/Volumes/Stick/a.txt", Destination, CancellationToken.None);

        Assert.AreEqual(FallbackReason.DifferentVolumes, result.Reason);
        CollectionAssert.AreEqual(_files["/Volumes/Stick/a.txt"].Data, _files[Destination].Data);
    }

    [TestMethod]
    public void A_read_only_source_gives_a_clone_its_owner_can_write()
    {
        _files.AddFile(Source, Bytes(100), mode: 0x8124);

        _engine.CloneOrCopy(Source, Destination, CancellationToken.None);

        Assert.AreEqual(0x1A4u, _files[Destination].Mode & 0x1FF);
    }

    [TestMethod]
    public void A_copy_cancelled_while_it_runs_throws_and_leaves_the_destination_as_it_was()
    {
        _files.AddFile("/Volumes/Stick/big.bin", Bytes(3 << 20));
        byte[] old = Bytes(10, seed: 4);
        _files.AddFile(Destination, old);
        using var cancellation = new CancellationTokenSource();
        _files.OnCall = call => { if (call == "Write") cancellation.Cancel(); };

        Assert.ThrowsExactly<OperationCanceledException>(() => _engine.CloneOrCopy("/Volumes/Stick/big.bin", Destination, cancellation.Token));

        CollectionAssert.AreEqual(old, _files[Destination].Data);
        AssertNoTemporaryFileIn("/Volumes/Dev/out");
    }

    private void AssertNoTemporaryFileIn(string folder)
    {
        string[] leftovers = _files.FilesIn(folder).Where(path => path.EndsWith(AtomicFile.TemporarySuffix, StringComparison.Ordinal)).ToArray();
        Assert.AreEqual(0, leftovers.Length, string.Join(", ", leftovers));
    }

    private static byte[] Bytes(int count, int seed = 0) => SeededBytes.Of(count, seed);
}
