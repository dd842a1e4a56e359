using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Task;

/// <summary>
/// The Copy contract for one pair (src/Microsoft.Build.CopyOnWrite/Task/PairDecision.cs), row by row: a look and the
/// options in, the action out, which answers the row asked of the look, and the Linux system calls (x64) the real look
/// makes for them on real files: what deciding that pair costs every build. The parity suites run the rows the stock task
/// can express on real files beside MSBuild's own Copy; the real-build tests run the CopyOnWriteInsteadOfLinks rows.
/// </summary>
[TestClass]
public sealed class PairDecisionTests
{
    private const string Ext4 = "/ (ext4) cannot clone";

    private static readonly (string Row, Look Look, PairOptions Options, PairPlan Expected, string[] NotAsked, string Calls)[] DecideTable =
    {
        ("links only: a destination that is no link is the copying target's", new Look(Destination: PairEntry.File), new PairOptions(LinksOnly: true),
            new PairPlan(PairAction.LeftToTarget), ["WhyNoClone"], "statx"),
        ("links only: a symbolic link to the source on a volume that clones is replaced by a clone", new Look(Destination: PairEntry.SymbolicLink, LinkedOutput: LinkedOutput.SymbolicLinkToSource), new PairOptions(LinksOnly: true),
            new PairPlan(PairAction.ReplaceLinkWithClone, ToSource: true), [], "statx stat lstat stat geteuid statx statx statx statx statx"),
        ("links only: a symbolic link to the source on ext4 stays, said once (never a byte copy over it)", new Look(Destination: PairEntry.SymbolicLink, LinkedOutput: LinkedOutput.SymbolicLinkToSource, WhyNoClone: Ext4), new PairOptions(LinksOnly: true),
            new PairPlan(PairAction.KeepLink, ToSource: true, WhyNoClone: Ext4), [], "statx stat lstat stat geteuid statx statx statx statx statx"),
        ("links only: an unchanged hard link to what the source was is replaced by a clone of the source", new Look(Unchanged: true, Destination: PairEntry.File, LinkedOutput: LinkedOutput.HardLinkToOther), new PairOptions(LinksOnly: true),
            new PairPlan(PairAction.ReplaceLinkWithClone, ToSource: false), [], "statx statx statx statx statx lstat geteuid lstat geteuid"),
        ("links only: a changed hard link to another file is the copying target's (it is out of date)", new Look(Unchanged: false, Destination: PairEntry.File, LinkedOutput: LinkedOutput.HardLinkToOther), new PairOptions(LinksOnly: true),
            new PairPlan(PairAction.LeftToTarget), ["WhyNoClone"], "statx statx statx statx statx lstat geteuid lstat geteuid"),
        ("unchanged with SkipUnchangedFiles: up to date, and nothing more is asked", new Look(Unchanged: true, Destination: PairEntry.File, LinkedOutput: LinkedOutput.HardLinkToSource), new PairOptions(SkipUnchanged: true),
            new PairPlan(PairAction.UpToDate), ["LinkedOutput", "WhyNoClone", "SameEntry", "Destination", "Source"], "lstat geteuid lstat geteuid"),
        ("unchanged hard link to the source, with the setting, on a volume that clones: replaced by a clone", new Look(Unchanged: true, Destination: PairEntry.File, LinkedOutput: LinkedOutput.HardLinkToSource), new PairOptions(SkipUnchanged: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.ReplaceLinkWithClone, ToSource: true), [], "lstat geteuid lstat geteuid statx statx statx statx readlink statx statx"),
        ("unchanged hard link to the source, with the setting, on ext4: kept, said once", new Look(Unchanged: true, Destination: PairEntry.File, LinkedOutput: LinkedOutput.HardLinkToSource, WhyNoClone: Ext4), new PairOptions(SkipUnchanged: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.KeepLink, ToSource: true, WhyNoClone: Ext4), [], "lstat geteuid lstat geteuid statx statx statx statx readlink statx statx"),
        ("unchanged plain file, with the setting: up to date, the volume not asked", new Look(Unchanged: true, Destination: PairEntry.File), new PairOptions(SkipUnchanged: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.UpToDate), ["WhyNoClone"], "lstat geteuid lstat geteuid statx"),
        ("unchanged without SkipUnchangedFiles: written again", new Look(Unchanged: true, Destination: PairEntry.File), new PairOptions(),
            new PairPlan(PairAction.Attempt), ["Unchanged", "LinkedOutput"], "statx statx"),
        ("one path for both: nothing to do", new Look(SamePath: true), new PairOptions(),
            new PairPlan(PairAction.AlreadyThere), [], ""),
        ("the source's own entry by another way: nothing to do, before FailIfNotIncremental", new Look(SameEntry: true, Destination: PairEntry.File), new PairOptions(FailIfNotIncremental: true),
            new PairPlan(PairAction.AlreadyThere), [], "statx statx"),
        ("FailIfNotIncremental and something to write: the stock task's error", new Look(), new PairOptions(FailIfNotIncremental: true),
            new PairPlan(PairAction.Fail, CopyMessages.CopyingFile), [], "statx"),
        ("anything else: an attempt", new Look(Destination: PairEntry.File), new PairOptions(SkipUnchanged: true),
            new PairPlan(PairAction.Attempt), ["LinkedOutput", "WhyNoClone", "DestinationReadOnly"], "lstat geteuid lstat geteuid statx statx"),
    };

    private static readonly (string Row, Look Look, string? Code, string Calls)[] CheckTable =
    {
        ("a destination that is a folder (or a link to one): MSB3024, before the source is looked at", new Look(Source: PairEntry.Missing, Destination: PairEntry.Folder), "MSB3024", "statx stat"),
        ("a source that is a folder: MSB3025", new Look(Source: PairEntry.Folder), "MSB3025", "statx statx stat"),
        ("a source that is not there: MSB3030", new Look(Source: PairEntry.Missing, Destination: PairEntry.File), "MSB3030", "statx statx stat lstat"),
        ("a file over a symbolic link: no error", new Look(Destination: PairEntry.SymbolicLink), null, "statx stat lstat stat geteuid statx"),
    };

    private static readonly (string Row, Look Look, PairOptions Options, PairPlan Expected, string[] NotAsked, string Calls)[] MakingTable =
    {
        ("a new file: clone or copy", new Look(), new PairOptions(),
            new PairPlan(PairAction.CloneOrCopy), ["DestinationReadOnly", "WhyNoClone", "LinkedOutput"], "statx"),
        ("over a file: the stock task deletes it first", new Look(Destination: PairEntry.File), new PairOptions(),
            new PairPlan(PairAction.CloneOrCopy), ["WhyNoClone", "LinkedOutput"], "statx lstat geteuid"),
        ("over a read-only file: the stock task keeps it (its copy then fails as File.Copy fails)", new Look(Destination: PairEntry.File, DestinationReadOnly: true), new PairOptions(),
            new PairPlan(PairAction.CloneOrCopy, KeepsDestination: true), [], "statx lstat"),
        ("over a read-only file with OverwriteReadOnlyFiles: made writable, then replaced", new Look(Destination: PairEntry.File, DestinationReadOnly: true), new PairOptions(OverwriteReadOnly: true),
            new PairPlan(PairAction.CloneOrCopy, ClearReadOnly: true), [], "statx lstat"),
        ("MSBUILDCOPYWITHOUTDELETE=1 over a file: kept, read-only or not", new Look(Destination: PairEntry.File), new PairOptions(CopyWithoutDelete: true),
            new PairPlan(PairAction.CloneOrCopy, KeepsDestination: true), ["DestinationReadOnly"], "statx"),
        ("a hard link asked", new Look(), new PairOptions(HardLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Hard), ["WhyNoClone"], "statx"),
        ("a symbolic link asked", new Look(), new PairOptions(SymbolicLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Symbolic), ["WhyNoClone"], "statx"),
        ("both asked: hard, then symbolic where it fails", new Look(), new PairOptions(HardLinks: true, SymbolicLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.HardThenSymbolic), [], "statx"),
        ("a hard link over a kept destination: the link call meets a taken name (EEXIST)", new Look(Destination: PairEntry.File, DestinationReadOnly: true), new PairOptions(HardLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Hard, KeepsDestination: true), [], "statx lstat"),
        ("the setting and a link asked, on a volume that clones: a clone instead", new Look(), new PairOptions(HardLinks: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.CloneInsteadOfLink, Link: LinkAsked.Hard), [], "statx"),
        ("the setting and a link asked, on ext4: the link as asked, nothing said (no link is being replaced)", new Look(WhyNoClone: Ext4), new PairOptions(HardLinks: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Hard), [], "statx"),
        ("the setting, a symbolic link asked over a symbolic link to the source, on ext4: linked again, said once", new Look(Destination: PairEntry.SymbolicLink, LinkedOutput: LinkedOutput.SymbolicLinkToSource, WhyNoClone: Ext4), new PairOptions(SymbolicLinks: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Symbolic, ReplacesLinkToSource: true, WhyNoClone: Ext4), [], "statx stat lstat stat geteuid lstat stat geteuid statx statx statx statx statx"),
        ("the setting and a link asked over a kept destination: no clone tried, the link fails as the stock task's", new Look(Destination: PairEntry.File, DestinationReadOnly: true), new PairOptions(HardLinks: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Hard, KeepsDestination: true), ["WhyNoClone"], "statx lstat"),
        ("the setting, no link asked, over a symbolic link to the source: replaced as the stock task replaces it, counted as a link replaced", new Look(Destination: PairEntry.SymbolicLink, LinkedOutput: LinkedOutput.SymbolicLinkToSource), new PairOptions(CloneInsteadOfLinks: true),
            new PairPlan(PairAction.CloneOrCopy, ReplacesLinkToSource: true), ["WhyNoClone"], "statx stat lstat stat geteuid lstat stat geteuid statx statx statx statx statx"),
        ("without the setting, over a symbolic link to the source: replaced, links not asked about", new Look(Destination: PairEntry.SymbolicLink, LinkedOutput: LinkedOutput.SymbolicLinkToSource), new PairOptions(),
            new PairPlan(PairAction.CloneOrCopy), ["LinkedOutput", "WhyNoClone"], "statx stat lstat stat geteuid lstat stat geteuid"),
    };

    public static IEnumerable<object[]> DecideRows => DecideTable.Select(row => new object[] { row.Row });

    public static IEnumerable<object[]> CheckRows => CheckTable.Select(row => new object[] { row.Row });

    public static IEnumerable<object[]> MakingRows => MakingTable.Select(row => new object[] { row.Row });

    [TestMethod]
    [DynamicData(nameof(DecideRows))]
    public void Before_any_attempt(string row)
    {
        (_, Look look, PairOptions options, PairPlan expected, string[] notAsked, _) = DecideTable.Single(r => r.Row == row);
        Assert.AreEqual(expected, PairDecision.Decide(look, options), row);
        AssertNotAsked(look, notAsked, row);
    }

    [TestMethod]
    [DynamicData(nameof(CheckRows))]
    public void The_checks_of_an_attempt(string row)
    {
        (_, Look look, string? code, _) = CheckTable.Single(r => r.Row == row);
        Assert.AreEqual(code, PairDecision.CheckAttempt(look)?.Code, row);
    }

    [TestMethod]
    [DynamicData(nameof(MakingRows))]
    public void How_an_attempt_makes_the_destination(string row)
    {
        (_, Look look, PairOptions options, PairPlan expected, string[] notAsked, _) = MakingTable.Single(r => r.Row == row);
        Assert.AreEqual(expected, PairDecision.DecideMaking(look, options), row);
        AssertNotAsked(look, notAsked, row);
    }

    public static IEnumerable<object[]> AllRows => DecideRows.Concat(CheckRows).Concat(MakingRows);

    /// <summary>
    /// Each row on real files (the volume's answer as the row gives it): the real look comes to the row's answer, with
    /// the system calls the row states, in their order. They are the deciding's cost only; what the clone or copy after
    /// it costs, against the stock task, is SystemCallFaultTests' per-file budget.
    /// </summary>
    [TestMethod]
    [DynamicData(nameof(AllRows))]
    public void On_real_files_the_row_comes_to_its_answer_with_the_system_calls_it_states(string row)
    {
        if (System.Runtime.InteropServices.RuntimeInformation.ProcessArchitecture != System.Runtime.InteropServices.Architecture.X64)
        {
            Assert.Inconclusive("SKIPPED: the rows state x64 Linux's system calls (arm64 has no stat or lstat, only newfstatat)");
        }

        (Look look, Func<IPairLook, object?> decide, object? expected, string calls) = RowOnRealFiles(row);
        decide(Stage(look)); // untraced: loads and compiles what this row's look needs
        IPairLook real = Stage(look);
        object? answer = null;
        string[] made = ThreadSystemCalls.During(() => answer = decide(real));
        Assert.AreEqual(expected, answer, row);
        Assert.AreEqual(calls, string.Join(" ", made), $"{row}: its look made the calls\n{string.Join(" ", made)}\n");
    }

    private static (Look Look, Func<IPairLook, object?> Decide, object? Expected, string Calls) RowOnRealFiles(string row)
    {
        foreach (var r in DecideTable.Where(r => r.Row == row))
        {
            return (r.Look, look => PairDecision.Decide(look, r.Options), r.Expected, r.Calls);
        }

        foreach (var r in CheckTable.Where(r => r.Row == row))
        {
            return (r.Look, look => PairDecision.CheckAttempt(look)?.Code, r.Code, r.Calls);
        }

        var making = MakingTable.Single(r => r.Row == row);
        return (making.Look, look => PairDecision.DecideMaking(look, making.Options), making.Expected, making.Calls);
    }

    /// <summary>Files that answer as the row's look answers: the source, and the destination as the row has it.</summary>
    private static PairLook Stage(Look look)
    {
        string folder = TestScratch.NewFolder("pair");
        string source = Path.Combine(folder, "source.bin");
        if (look.Source == PairEntry.File)
        {
            TestFiles.Write(folder, "source.bin", 100, seed: 1);
        }
        else if (look.Source == PairEntry.Folder)
        {
            Directory.CreateDirectory(source);
        }

        string destination = Path.Combine(folder, "destination.bin");
        if (look.SamePath)
        {
            destination = source;
        }
        else if (look.SameEntry)
        {
            destination = Path.Combine(folder, "alias", "source.bin"); // the source's entry through a link to its folder
            File.CreateSymbolicLink(Path.Combine(folder, "alias"), folder);
        }
        else
        {
            MakeDestination(look, folder, source, destination);
        }

        return new PairLook(source, destination, (_, _) => look.WhyNoClone);
    }

    private static void MakeDestination(Look look, string folder, string source, string destination)
    {
        string other = Path.Combine(folder, "other.bin");
        switch (look.Destination, look.LinkedOutput)
        {
            case (PairEntry.Folder, _):
                Directory.CreateDirectory(destination);
                break;
            case (PairEntry.SymbolicLink, LinkedOutput.SymbolicLinkToSource):
                File.CreateSymbolicLink(destination, source);
                break;
            case (PairEntry.SymbolicLink, _):
                File.CreateSymbolicLink(destination, TestFiles.Write(folder, "other.bin", 50, seed: 2));
                break;
            case (PairEntry.File, LinkedOutput.HardLinkToSource):
                Assert.IsTrue(ProcessRunner.Run("ln", source, destination).Succeeded);
                break;
            case (PairEntry.File, _):
                string written = look.LinkedOutput == LinkedOutput.HardLinkToOther ? other : destination;
                if (look.Unchanged)
                {
                    File.Copy(source, written);
                    File.SetLastWriteTimeUtc(written, File.GetLastWriteTimeUtc(source));
                }
                else
                {
                    TestFiles.Write(folder, Path.GetFileName(written), 50, seed: 3);
                }

                if (written != destination)
                {
                    Assert.IsTrue(ProcessRunner.Run("ln", written, destination).Succeeded);
                }

                if (look.DestinationReadOnly)
                {
                    File.SetAttributes(destination, FileAttributes.ReadOnly);
                }

                break;
        }
    }

    private static void AssertNotAsked(Look look, string[] notAsked, string row)
    {
        string[] asked = notAsked.Intersect(look.Asked).ToArray();
        Assert.AreEqual(0, asked.Length, $"{row}: asked {string.Join(", ", asked)}, which this row does not need (each is a system call in the real look)");
    }

    /// <summary>A look that is a table row, and remembers which answers were asked.</summary>
    internal sealed record Look(bool SamePath = false, bool Unchanged = false, bool SameEntry = false, PairEntry Source = PairEntry.File, PairEntry Destination = PairEntry.Missing,
        bool DestinationReadOnly = false, LinkedOutput LinkedOutput = LinkedOutput.None, string? WhyNoClone = null) : IPairLook
    {
        public HashSet<string> Asked { get; } = [];

        bool IPairLook.SamePath => Ask(nameof(SamePath), SamePath);

        bool IPairLook.Unchanged => Ask(nameof(Unchanged), Unchanged);

        bool IPairLook.SameEntry => Ask(nameof(SameEntry), SameEntry);

        PairEntry IPairLook.Source => Ask(nameof(Source), Source);

        PairEntry IPairLook.Destination => Ask(nameof(Destination), Destination);

        bool IPairLook.DestinationReadOnly => Ask(nameof(DestinationReadOnly), DestinationReadOnly);

        LinkedOutput IPairLook.LinkedOutput => Ask(nameof(LinkedOutput), LinkedOutput);

        string? IPairLook.WhyNoClone => Ask(nameof(WhyNoClone), WhyNoClone);

        public override string ToString() => string.Join(", ", new[] { $"Destination {Destination}", $"Source {Source}", $"Link {LinkedOutput}", WhyNoClone ?? "clones" });

        private T Ask<T>(string name, T value)
        {
            Asked.Add(name);
            return value;
        }
    }
}
