using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.TestKit;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.Utilities;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Task;

/// <summary>
/// CopyOnWriteInsteadOfLinks=true (issue #43): where a Copy asks for a hard or symbolic link and source and destination
/// are on one volume that clones, the task clones; elsewhere it links as asked. Off (the default), it links as the stock
/// task does. The task runs in-process on real loop-mounted file systems; whether a file is a link is read by `stat`,
/// whether it is a clone by FIEMAP (filefrag), never from our log.
/// </summary>
[TestClass]
public sealed class CloneInsteadOfLinksTests
{
    private const string Setting = "CopyOnWriteInsteadOfLinks";

    [TestMethod]
    [DataRow("xfs", "hard")]
    [DataRow("xfs", "symbolic")]
    [DataRow("btrfs", "hard")]
    [DataRow("btrfs", "symbolic")]
    public void With_the_setting_a_link_asked_for_on_a_volume_that_clones_is_a_clone_with_one_name(string kind, string link)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("instead-of-" + link);
        string source = TestFiles.Write(folder, "package.dll", 300_000, seed: 1);
        string destination = Path.Combine(folder, "bin", "package.dll");

        (bool succeeded, RecordingBuildEngine build, Copy task) = Run(source, destination, link, setting: "true");

        Assert.IsTrue(succeeded, build.Log);
        AssertIndependentClone(source, destination, $"a {link} link asked for on {kind}");
        Assert.AreEqual(1, UnixFileFacts.Of(source).Links, "the source has no second name");
        Assert.AreEqual(1, task.Summary.ClonedInsteadOfLinksFiles, build.Log);
        Assert.AreEqual(0, task.Summary.LinkedFiles, build.Log);
        StringAssert.Contains(build.Log, "where links were asked for (CopyOnWriteInsteadOfLinks)", "the Copy's summary line counts it apart");
        StringAssert.Contains(build.Log, "insteadoflinks=1,300000", "the data line the build summary adds up");
    }

    [TestMethod]
    public void With_the_setting_writing_into_the_output_in_place_leaves_the_source_as_it_was()
    {
        string folder = LoopFileSystems.Xfs.NewFolder("instead-write");
        string source = TestFiles.Write(folder, "package.dll", 200_000, seed: 2);
        byte[] original = File.ReadAllBytes(source);
        string destination = Path.Combine(folder, "bin", "package.dll");
        Assert.IsTrue(Run(source, destination, "hard", setting: "true").Succeeded);

        WriteInPlace(destination);

        CollectionAssert.AreEqual(original, File.ReadAllBytes(source), "a write into the output reached the source");
    }

    [TestMethod]
    [DataRow("hard")]
    [DataRow("symbolic")]
    public void Without_the_setting_the_link_is_made_as_asked_and_a_write_into_the_output_reaches_the_source(string link)
    {
        // The default is the stock task's behaviour, hazard included: this is what the setting is for.
        string folder = LoopFileSystems.Xfs.NewFolder("links-as-asked-" + link);
        string source = TestFiles.Write(folder, "package.dll", 200_000, seed: 3);
        byte[] original = File.ReadAllBytes(source);
        string destination = Path.Combine(folder, "bin", "package.dll");

        (bool succeeded, RecordingBuildEngine build, Copy task) = Run(source, destination, link, setting: null);

        Assert.IsTrue(succeeded, build.Log);
        AssertLinked(source, destination, link);
        Assert.AreEqual(1, task.Summary.LinkedFiles);
        Assert.IsFalse(build.Log.Contains("insteadoflinks", System.StringComparison.Ordinal), "nothing new in the data line: " + build.Log);
        WriteInPlace(destination);
        CollectionAssert.AreNotEqual(original, File.ReadAllBytes(source), "through a link the write reaches the source");
    }

    [TestMethod]
    [DataRow("hard")]
    [DataRow("symbolic")]
    public void With_the_setting_on_ext4_which_cannot_clone_the_link_is_made_as_asked(string link)
    {
        string folder = LoopFileSystems.Ext4.NewFolder("instead-ext4-" + link);
        string source = TestFiles.Write(folder, "package.dll", 100_000, seed: 4);
        string destination = Path.Combine(folder, "bin", "package.dll");

        (bool succeeded, RecordingBuildEngine build, Copy task) = Run(source, destination, link, setting: "true");

        Assert.IsTrue(succeeded, build.Log);
        AssertLinked(source, destination, link);
        Assert.AreEqual(1, task.Summary.LinkedFiles, build.Log);
        Assert.AreEqual(0, task.Summary.ClonedFiles + task.Summary.CopiedFiles, "no byte copy is made where a link was asked for: " + build.Log);
    }

    [TestMethod]
    public void With_the_setting_a_symbolic_link_from_another_volume_is_made_as_asked()
    {
        string source = TestFiles.Write(LoopFileSystems.Btrfs.NewFolder("instead-cross-source"), "package.dll", 100_000, seed: 5);
        string destination = Path.Combine(LoopFileSystems.Xfs.NewFolder("instead-cross-destination"), "package.dll");

        (bool succeeded, RecordingBuildEngine build, Copy task) = Run(source, destination, "symbolic", setting: "true");

        Assert.IsTrue(succeeded, build.Log);
        AssertLinked(source, destination, "symbolic");
        Assert.AreEqual(0, task.Summary.ClonedFiles + task.Summary.CopiedFiles, build.Log);
    }

    [TestMethod]
    public void With_the_setting_ErrorIfLinkFails_does_not_fail_a_clone_made_instead()
    {
        string folder = LoopFileSystems.Xfs.NewFolder("instead-error-if-link-fails");
        string source = TestFiles.Write(folder, "package.dll", 100_000, seed: 6);
        string destination = Path.Combine(folder, "bin", "package.dll");

        (bool succeeded, RecordingBuildEngine build, _) = Run(source, destination, "hard", setting: "true", errorIfLinkFails: true);

        Assert.IsTrue(succeeded, build.Log);
        Assert.AreEqual(0, build.Errors.Count + build.Warnings.Count, build.Log);
        AssertIndependentClone(source, destination, "ErrorIfLinkFails with a clone made instead");
    }

    [TestMethod]
    public void With_the_setting_an_existing_output_that_is_a_hard_link_to_the_source_is_replaced_by_a_clone()
    {
        // The incremental build after turning the setting on: last build's output is the package cache's file itself.
        string folder = LoopFileSystems.Btrfs.NewFolder("instead-over-link");
        string source = TestFiles.Write(folder, "package.dll", 100_000, seed: 7);
        byte[] original = File.ReadAllBytes(source);
        string destination = Path.Combine(folder, "bin", "package.dll");
        Assert.IsTrue(Run(source, destination, "hard", setting: null).Succeeded);
        Assert.AreEqual(2, UnixFileFacts.Of(destination).Links, "premise: last build linked it");

        (bool succeeded, RecordingBuildEngine build, _) = Run(source, destination, "hard", setting: "true");

        Assert.IsTrue(succeeded, build.Log);
        AssertIndependentClone(source, destination, "a link replaced by a clone");
        WriteInPlace(destination);
        CollectionAssert.AreEqual(original, File.ReadAllBytes(source));
    }

    [TestMethod]
    [DataRow("xfs", "hard")]
    [DataRow("xfs", "symbolic")]
    [DataRow("btrfs", "hard")]
    [DataRow("btrfs", "symbolic")]
    public void With_the_setting_an_output_that_is_a_link_to_its_source_is_not_up_to_date_but_replaced_by_a_clone_and_counted(string kind, string link)
    {
        // Issue #52: the build after turning the setting on, without cleaning. SkipUnchangedFiles (the common targets'
        // default) compares size and time, which a link shares with its source: before, the link was skipped.
        string folder = LoopFileSystems.Require(kind).NewFolder("stale-" + link);
        string source = TestFiles.Write(folder, "package.dll", 150_000, seed: 10);
        byte[] original = File.ReadAllBytes(source);
        string destination = Path.Combine(folder, "bin", "package.dll");
        Assert.IsTrue(Run(source, destination, link, setting: null, skipUnchangedFiles: true).Succeeded);
        AssertLinked(source, destination, link);
        long sourceInode = UnixFileFacts.Of(source).Inode;

        (bool succeeded, RecordingBuildEngine build, Copy task) = Run(source, destination, link, setting: "true", skipUnchangedFiles: true);

        Assert.IsTrue(succeeded, build.Log);
        AssertIndependentClone(source, destination, $"a {link} link of an earlier build on {kind}");
        Assert.AreEqual(sourceInode, UnixFileFacts.Of(source).Inode, "the source keeps its inode");
        Assert.AreEqual(1, UnixFileFacts.Of(source).Links, "the source has no second name left");
        CollectionAssert.AreEqual(original, File.ReadAllBytes(source), "the source's bytes");
        Assert.AreEqual((1, 1, 0), (task.Summary.ReplacedLinksFiles, task.Summary.ClonedFiles, task.Summary.UpToDateFiles), build.Log);
        // A symbolic link is never up to date (.NET reports the link's own size): it goes the way of any link asked for.
        Assert.AreEqual(link == "symbolic" ? 1 : 0, task.Summary.ClonedInsteadOfLinksFiles, build.Log);
        StringAssert.Contains(build.Log, "replaced 1 link with a clone among them", "the Copy's summary line");
        StringAssert.Contains(build.Log, "replacedlinks=1,150000", "the data line the build summary adds up");
        StringAssert.Contains(build.Log, CopyOnWriteCodes.ReplacedLinkText(source, destination), "said for the file");
        WriteInPlace(destination);
        CollectionAssert.AreEqual(original, File.ReadAllBytes(source), "a write into the output reached the source");

        // The clone is not a link: the next build finds it up to date, as any output.
        File.Copy(source, destination, overwrite: true);
        File.SetLastWriteTimeUtc(destination, File.GetLastWriteTimeUtc(source));
        (_, RecordingBuildEngine next, Copy again) = Run(source, destination, link, setting: "true", skipUnchangedFiles: true);
        Assert.AreEqual((0, 1), (again.Summary.ReplacedLinksFiles, again.Summary.UpToDateFiles), next.Log);
    }

    /// <summary>
    /// A chain of links, as a linking build leaves it: obj/Lib.dll, Lib/bin/Lib.dll and App/bin/Lib.dll are one file.
    /// Lib's Copy replaces Lib/bin's name with a clone; App's Copy then finds App/bin/Lib.dll a hard link, no longer to
    /// its source but to obj/Lib.dll: still a link, so replaced too. No stale link survives, and obj/ keeps its bytes.
    /// </summary>
    [TestMethod]
    public void With_the_setting_an_output_that_is_a_hard_link_to_what_its_source_was_is_replaced_too()
    {
        string folder = LoopFileSystems.Xfs.NewFolder("stale-chain");
        string obj = TestFiles.Write(folder, "obj/Lib.dll", 80_000, seed: 12);
        byte[] original = File.ReadAllBytes(obj);
        string libBin = Path.Combine(folder, "Lib", "bin", "Lib.dll");
        string appBin = Path.Combine(folder, "App", "bin", "Lib.dll");
        Assert.IsTrue(Run(obj, libBin, "hard", setting: null, skipUnchangedFiles: true).Succeeded);
        Assert.IsTrue(Run(libBin, appBin, "hard", setting: null, skipUnchangedFiles: true).Succeeded);
        Assert.AreEqual(3, UnixFileFacts.Of(obj).Links, "premise: one file, three names");

        Assert.IsTrue(Run(obj, libBin, "hard", setting: "true", skipUnchangedFiles: true).Succeeded);
        (bool succeeded, RecordingBuildEngine build, Copy task) = Run(libBin, appBin, "hard", setting: "true", skipUnchangedFiles: true);

        Assert.IsTrue(succeeded, build.Log);
        AssertIndependentClone(libBin, appBin, "App/bin's name of obj/Lib.dll");
        Assert.AreEqual((1, 1), (UnixFileFacts.Of(obj).Links, task.Summary.ReplacedLinksFiles), build.Log);
        StringAssert.Contains(build.Log, CopyOnWriteCodes.ReplacedLinkText(libBin, appBin, toSource: false), "said for the file");
        WriteInPlace(appBin);
        CollectionAssert.AreEqual(original, File.ReadAllBytes(obj), "a write into App/bin reached obj/");
    }

    [TestMethod]
    [DataRow("hard")]
    [DataRow("symbolic")]
    public void Without_the_setting_an_output_that_is_a_link_to_its_source_stays_up_to_date_as_in_the_stock_task(string link)
    {
        string folder = LoopFileSystems.Xfs.NewFolder("stale-off-" + link);
        string source = TestFiles.Write(folder, "package.dll", 50_000, seed: 11);
        string destination = Path.Combine(folder, "bin", "package.dll");
        Assert.IsTrue(Run(source, destination, link, setting: null, skipUnchangedFiles: true).Succeeded);

        (bool succeeded, RecordingBuildEngine build, Copy task) = Run(source, destination, link, setting: null, skipUnchangedFiles: true);

        Assert.IsTrue(succeeded, build.Log);
        AssertLinked(source, destination, link);
        Assert.AreEqual(link == "hard" ? (1, 0, 0) : (0, 1, 0), (task.Summary.UpToDateFiles, task.Summary.LinkedFiles, task.Summary.ReplacedLinksFiles), "a hard link is skipped as up to date, a symbolic link made again: " + build.Log);
        Assert.IsFalse(build.Log.Contains("replacedlinks", System.StringComparison.Ordinal), build.Log);
    }

    [TestMethod]
    [DataRow("hard")]
    [DataRow("symbolic")]
    public void With_the_setting_on_ext4_an_output_that_is_a_link_to_its_source_stays_and_it_is_said(string link)
    {
        string folder = LoopFileSystems.Ext4.NewFolder("stale-ext4-" + link);
        string source = TestFiles.Write(folder, "package.dll", 50_000, seed: 12);
        string destination = Path.Combine(folder, "bin", "package.dll");
        (bool linked, RecordingBuildEngine first, _) = Run(source, destination, link, setting: null, skipUnchangedFiles: true);
        Assert.IsTrue(linked, first.Log);
        AssertLinked(source, destination, link, "premise: " + first.Log);

        (bool succeeded, RecordingBuildEngine build, Copy task) = Run(source, destination, link, setting: "true", skipUnchangedFiles: true);

        Assert.IsTrue(succeeded, build.Log);
        AssertLinked(source, destination, link, build.Log);
        Assert.AreEqual((0, 0), (task.Summary.ReplacedLinksFiles, task.Summary.CopiedFiles + task.Summary.ClonedFiles), build.Log);
        Assert.AreEqual(link == "hard" ? (1, 0) : (0, 1), (task.Summary.UpToDateFiles, task.Summary.LinkedFiles), "a hard link stays as up to date, a symbolic link is made again: " + build.Log);
        // Once per build (OncePerBuild); this engine keeps no build-wide objects, so every Copy on it is a first.
        string said = build.Messages.Single(m => m.Message!.Contains("and stays one, although CopyOnWriteInsteadOfLinks is true", System.StringComparison.Ordinal)).Message!;
        StringAssert.Contains(said, $"\"{destination}\" is a link to \"{source}\"");
        StringAssert.Contains(said, "ext4");
        StringAssert.Contains(said, "cannot clone");
        Assert.AreEqual(Microsoft.Build.Framework.MessageImportance.High, build.Messages.Single(m => m.Message == said).Importance, "seen at the console's default verbosity");
        Assert.AreEqual(0, Directory.GetFiles(Path.GetDirectoryName(destination)!).Count(path => Path.GetFileName(path).EndsWith(".cow-tmp", System.StringComparison.Ordinal)), "nothing left behind");
    }

    [TestMethod]
    public void With_the_setting_a_copy_onto_the_source_itself_through_a_symbolic_link_to_its_folder_stays_up_to_date()
    {
        // The destination is the source's own directory entry: replacing it would replace the source.
        string folder = LoopFileSystems.Xfs.NewFolder("stale-self");
        string source = TestFiles.Write(folder, "package.dll", 20_000, seed: 13);
        string alias = folder + "-alias";
        Directory.CreateSymbolicLink(alias, folder);
        long inode = UnixFileFacts.Of(source).Inode;

        (bool succeeded, RecordingBuildEngine build, Copy task) = Run(source, Path.Combine(alias, "package.dll"), "hard", setting: "true", skipUnchangedFiles: true);

        Assert.IsTrue(succeeded, build.Log);
        Assert.AreEqual(inode, UnixFileFacts.Of(source).Inode, build.Log);
        Assert.AreEqual((1, 0), (task.Summary.UpToDateFiles, task.Summary.ReplacedLinksFiles), build.Log);
    }

    [TestMethod]
    public void A_value_that_is_not_true_or_false_is_COW003_naming_it()
    {
        string folder = LoopFileSystems.Xfs.NewFolder("instead-bad-value");
        string source = TestFiles.Write(folder, "package.dll", 1_000, seed: 8);

        (bool succeeded, RecordingBuildEngine build, _) = Run(source, Path.Combine(folder, "bin", "package.dll"), "hard", setting: "yes");

        Assert.IsFalse(succeeded, build.Log);
        string error = build.Errors.Single(e => e.Code == "COW003").Message!;
        StringAssert.Contains(error, "CopyOnWriteInsteadOfLinks has the value \"yes\"; it must be true or false.");
    }

    [TestMethod]
    public void With_the_setting_a_fault_of_our_engine_on_the_clone_is_said_and_the_link_is_made_as_asked()
    {
        string folder = LoopFileSystems.Xfs.NewFolder("instead-fault");
        string source = TestFiles.Write(folder, "package.dll", 50_000, seed: 9);
        string destination = Path.Combine(folder, "bin", "package.dll");
        var faulting = new FallbackLadder(new FaultingEngine(), new PlainFiles());

        (bool succeeded, RecordingBuildEngine build, Copy task) = Run(source, destination, "hard", setting: "true", engine: faulting);

        Assert.IsTrue(succeeded, build.Log);
        AssertLinked(source, destination, "hard");
        Assert.AreEqual((1, 0), (task.Summary.LinkedFiles, task.Summary.ClonedInsteadOfLinksFiles), build.Log);
        // Warning COW006 the first time in the test process, a low-importance message after (EngineFaultWarning): either way said.
        string expected = $"\"{source}\" was not cloned to \"{destination}\" in place of a link (CopyOnWriteInsteadOfLinks) but linked as the project asks, because";
        bool warned = build.Warnings.Any(w => w.Code == CopyOnWriteCodes.EngineFault && w.Message!.Contains(expected, System.StringComparison.Ordinal));
        bool said = build.Messages.Any(m => m.Importance == Microsoft.Build.Framework.MessageImportance.Low && m.Message!.Contains(expected, System.StringComparison.Ordinal));
        Assert.IsTrue(warned || said, build.Log);
        StringAssert.Contains(build.Log, FaultingEngine.Fault, "the fault itself is named");
    }

    private static (bool Succeeded, RecordingBuildEngine Build, Copy Task) Run(string source, string destination, string link, string? setting, bool errorIfLinkFails = false, ICloneEngine? engine = null, bool skipUnchangedFiles = false)
    {
        var environment = new Dictionary<string, string?> { [Setting] = setting };
        var build = new RecordingBuildEngine();
        var task = new Copy(engine, name => environment.TryGetValue(name, out string? value) ? value : null)
        {
            BuildEngine = build,
            SourceFiles = [new TaskItem(source)],
            DestinationFiles = [new TaskItem(destination)],
            UseHardlinksIfPossible = link == "hard",
            UseSymboliclinksIfPossible = link == "symbolic",
            ErrorIfLinkFails = errorIfLinkFails,
            SkipUnchangedFiles = skipUnchangedFiles,
        };
        return (task.Execute(), build, task);
    }

    /// <summary>Not a link (one name, not a symbolic link), same bytes, and every extent shared with another file.</summary>
    internal static void AssertIndependentClone(string source, string destination, string why)
    {
        UnixFileFacts facts = UnixFileFacts.Of(destination);
        Assert.AreEqual("regular file", facts.Type, $"{destination} is not a regular file ({why})");
        Assert.AreEqual(1, facts.Links, $"{destination} has {facts.Links} names: a hard link ({why})");
        Assert.AreNotEqual(UnixFileFacts.Of(source).Inode, facts.Inode, why);
        Assert.IsTrue(TestFiles.SameBytes(source, destination), why);
        SharedExtents.AssertAllShared(destination, why);
    }

    private static void AssertLinked(string source, string destination, string link, string log = "")
    {
        UnixFileFacts facts = UnixFileFacts.Of(destination);
        if (link == "hard")
        {
            Assert.AreEqual(UnixFileFacts.Of(source).Inode, facts.Inode, "a hard link is the source's inode " + log);
            Assert.AreEqual(2, facts.Links);
        }
        else
        {
            Assert.AreEqual("symbolic link", facts.Type);
            Assert.AreEqual(source, new FileInfo(destination).LinkTarget);
        }
    }

    /// <summary>An engine with a bug nobody foresaw: what the fallback ladder turns into a copy and COW006.</summary>
    private sealed class FaultingEngine : ICloneEngine
    {
        public const string Fault = "an injected fault of the engine";

        public CloneResult CloneOrCopy(string sourcePath, string destinationPath, System.Threading.CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
            => throw new System.InvalidOperationException(Fault);
    }

    /// <summary>What a tool that opens an output for writing does (no new file, no rename): the hazard of dotnet/msbuild#8273.</summary>
    internal static void WriteInPlace(string path)
    {
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Write);
        stream.Write(new byte[] { 0xDE, 0xAD, 0xBE, 0xEF }, 0, 4);
    }
}
