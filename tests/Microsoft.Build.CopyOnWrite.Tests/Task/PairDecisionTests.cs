using System.Collections.Generic;
using System.Linq;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Task;

/// <summary>
/// The Copy contract for one pair (src/Microsoft.Build.CopyOnWrite/Task/PairDecision.cs), row by row: a look and the
/// options in, the action out, and which answers the row asked of the file system (each one is a system call in the
/// real look, so a row that asks more than it needs costs every build). The parity suites run the rows the stock task
/// can express on real files beside MSBuild's own Copy; the real-build tests run the CopyOnWriteInsteadOfLinks rows.
/// </summary>
[TestClass]
public sealed class PairDecisionTests
{
    private const string Ext4 = "/ (ext4) cannot clone";

    private static readonly (string Row, Look Look, PairOptions Options, PairPlan Expected, string[] NotAsked)[] DecideTable =
    {
        ("links only: a destination that is no link is the copying target's", new Look(Destination: PairEntry.File), new PairOptions(LinksOnly: true),
            new PairPlan(PairAction.LeftToTarget), ["WhyNoClone"]),
        ("links only: a symbolic link to the source on a volume that clones is replaced by a clone", new Look(Destination: PairEntry.SymbolicLink, LinkedOutput: LinkedOutput.SymbolicLinkToSource), new PairOptions(LinksOnly: true),
            new PairPlan(PairAction.ReplaceLinkWithClone, ToSource: true), []),
        ("links only: a symbolic link to the source on ext4 stays, said once (never a byte copy over it)", new Look(Destination: PairEntry.SymbolicLink, LinkedOutput: LinkedOutput.SymbolicLinkToSource, WhyNoClone: Ext4), new PairOptions(LinksOnly: true),
            new PairPlan(PairAction.KeepLink, ToSource: true, WhyNoClone: Ext4), []),
        ("links only: an unchanged hard link to what the source was is replaced by a clone of the source", new Look(Unchanged: true, Destination: PairEntry.File, LinkedOutput: LinkedOutput.HardLinkToOther), new PairOptions(LinksOnly: true),
            new PairPlan(PairAction.ReplaceLinkWithClone, ToSource: false), []),
        ("links only: a changed hard link to another file is the copying target's (it is out of date)", new Look(Unchanged: false, Destination: PairEntry.File, LinkedOutput: LinkedOutput.HardLinkToOther), new PairOptions(LinksOnly: true),
            new PairPlan(PairAction.LeftToTarget), ["WhyNoClone"]),
        ("unchanged with SkipUnchangedFiles: up to date, and nothing more is asked", new Look(Unchanged: true, Destination: PairEntry.File, LinkedOutput: LinkedOutput.HardLinkToSource), new PairOptions(SkipUnchanged: true),
            new PairPlan(PairAction.UpToDate), ["LinkedOutput", "WhyNoClone", "SameEntry", "Destination", "Source"]),
        ("unchanged hard link to the source, with the setting, on a volume that clones: replaced by a clone", new Look(Unchanged: true, Destination: PairEntry.File, LinkedOutput: LinkedOutput.HardLinkToSource), new PairOptions(SkipUnchanged: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.ReplaceLinkWithClone, ToSource: true), []),
        ("unchanged hard link to the source, with the setting, on ext4: kept, said once", new Look(Unchanged: true, Destination: PairEntry.File, LinkedOutput: LinkedOutput.HardLinkToSource, WhyNoClone: Ext4), new PairOptions(SkipUnchanged: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.KeepLink, ToSource: true, WhyNoClone: Ext4), []),
        ("unchanged plain file, with the setting: up to date, the volume not asked", new Look(Unchanged: true, Destination: PairEntry.File), new PairOptions(SkipUnchanged: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.UpToDate), ["WhyNoClone"]),
        ("unchanged without SkipUnchangedFiles: written again", new Look(Unchanged: true, Destination: PairEntry.File), new PairOptions(),
            new PairPlan(PairAction.Attempt), ["Unchanged", "LinkedOutput"]),
        ("one path for both: nothing to do", new Look(SamePath: true), new PairOptions(),
            new PairPlan(PairAction.AlreadyThere), []),
        ("the source's own entry by another way: nothing to do, before FailIfNotIncremental", new Look(SameEntry: true, Destination: PairEntry.File), new PairOptions(FailIfNotIncremental: true),
            new PairPlan(PairAction.AlreadyThere), []),
        ("FailIfNotIncremental and something to write: the stock task's error", new Look(), new PairOptions(FailIfNotIncremental: true),
            new PairPlan(PairAction.Fail, CopyMessages.CopyingFile), []),
        ("anything else: an attempt", new Look(Destination: PairEntry.File), new PairOptions(SkipUnchanged: true),
            new PairPlan(PairAction.Attempt), ["LinkedOutput", "WhyNoClone", "DestinationReadOnly"]),
    };

    private static readonly (string Row, Look Look, string? Code)[] CheckTable =
    {
        ("a destination that is a folder (or a link to one): MSB3024, before the source is looked at", new Look(Source: PairEntry.Missing, Destination: PairEntry.Folder), "MSB3024"),
        ("a source that is a folder: MSB3025", new Look(Source: PairEntry.Folder), "MSB3025"),
        ("a source that is not there: MSB3030", new Look(Source: PairEntry.Missing, Destination: PairEntry.File), "MSB3030"),
        ("a file over a symbolic link: no error", new Look(Destination: PairEntry.SymbolicLink), null),
    };

    private static readonly (string Row, Look Look, PairOptions Options, PairPlan Expected, string[] NotAsked)[] MakingTable =
    {
        ("a new file: clone or copy", new Look(), new PairOptions(),
            new PairPlan(PairAction.CloneOrCopy), ["DestinationReadOnly", "WhyNoClone", "LinkedOutput"]),
        ("over a file: the stock task deletes it first", new Look(Destination: PairEntry.File), new PairOptions(),
            new PairPlan(PairAction.CloneOrCopy), ["WhyNoClone", "LinkedOutput"]),
        ("over a read-only file: the stock task keeps it (its copy then fails as File.Copy fails)", new Look(Destination: PairEntry.File, DestinationReadOnly: true), new PairOptions(),
            new PairPlan(PairAction.CloneOrCopy, KeepsDestination: true), []),
        ("over a read-only file with OverwriteReadOnlyFiles: made writable, then replaced", new Look(Destination: PairEntry.File, DestinationReadOnly: true), new PairOptions(OverwriteReadOnly: true),
            new PairPlan(PairAction.CloneOrCopy, ClearReadOnly: true), []),
        ("MSBUILDCOPYWITHOUTDELETE=1 over a file: kept, read-only or not", new Look(Destination: PairEntry.File), new PairOptions(CopyWithoutDelete: true),
            new PairPlan(PairAction.CloneOrCopy, KeepsDestination: true), ["DestinationReadOnly"]),
        ("a hard link asked", new Look(), new PairOptions(HardLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Hard), ["WhyNoClone"]),
        ("a symbolic link asked", new Look(), new PairOptions(SymbolicLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Symbolic), ["WhyNoClone"]),
        ("both asked: hard, then symbolic where it fails", new Look(), new PairOptions(HardLinks: true, SymbolicLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.HardThenSymbolic), []),
        ("a hard link over a kept destination: the link call meets a taken name (EEXIST)", new Look(Destination: PairEntry.File, DestinationReadOnly: true), new PairOptions(HardLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Hard, KeepsDestination: true), []),
        ("the setting and a link asked, on a volume that clones: a clone instead", new Look(), new PairOptions(HardLinks: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.CloneInsteadOfLink, Link: LinkAsked.Hard), []),
        ("the setting and a link asked, on ext4: the link as asked, nothing said (no link is being replaced)", new Look(WhyNoClone: Ext4), new PairOptions(HardLinks: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Hard), []),
        ("the setting, a symbolic link asked over a symbolic link to the source, on ext4: linked again, said once", new Look(Destination: PairEntry.SymbolicLink, LinkedOutput: LinkedOutput.SymbolicLinkToSource, WhyNoClone: Ext4), new PairOptions(SymbolicLinks: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Symbolic, ReplacesLinkToSource: true, WhyNoClone: Ext4), []),
        ("the setting and a link asked over a kept destination: no clone tried, the link fails as the stock task's", new Look(Destination: PairEntry.File, DestinationReadOnly: true), new PairOptions(HardLinks: true, CloneInsteadOfLinks: true),
            new PairPlan(PairAction.Link, Link: LinkAsked.Hard, KeepsDestination: true), ["WhyNoClone"]),
        ("the setting, no link asked, over a symbolic link to the source: replaced as the stock task replaces it, counted as a link replaced", new Look(Destination: PairEntry.SymbolicLink, LinkedOutput: LinkedOutput.SymbolicLinkToSource), new PairOptions(CloneInsteadOfLinks: true),
            new PairPlan(PairAction.CloneOrCopy, ReplacesLinkToSource: true), ["WhyNoClone"]),
        ("without the setting, over a symbolic link to the source: replaced, links not asked about", new Look(Destination: PairEntry.SymbolicLink, LinkedOutput: LinkedOutput.SymbolicLinkToSource), new PairOptions(),
            new PairPlan(PairAction.CloneOrCopy), ["LinkedOutput", "WhyNoClone"]),
    };

    public static IEnumerable<object[]> DecideRows => DecideTable.Select(row => new object[] { row.Row });

    public static IEnumerable<object[]> CheckRows => CheckTable.Select(row => new object[] { row.Row });

    public static IEnumerable<object[]> MakingRows => MakingTable.Select(row => new object[] { row.Row });

    [TestMethod]
    [DynamicData(nameof(DecideRows))]
    public void Before_any_attempt(string row)
    {
        (_, Look look, PairOptions options, PairPlan expected, string[] notAsked) = DecideTable.Single(r => r.Row == row);
        Assert.AreEqual(expected, PairDecision.Decide(look, options), row);
        AssertNotAsked(look, notAsked, row);
    }

    [TestMethod]
    [DynamicData(nameof(CheckRows))]
    public void The_checks_of_an_attempt(string row)
    {
        (_, Look look, string? code) = CheckTable.Single(r => r.Row == row);
        Assert.AreEqual(code, PairDecision.CheckAttempt(look)?.Code, row);
    }

    [TestMethod]
    [DynamicData(nameof(MakingRows))]
    public void How_an_attempt_makes_the_destination(string row)
    {
        (_, Look look, PairOptions options, PairPlan expected, string[] notAsked) = MakingTable.Single(r => r.Row == row);
        Assert.AreEqual(expected, PairDecision.DecideMaking(look, options), row);
        AssertNotAsked(look, notAsked, row);
    }

    private static void AssertNotAsked(Look look, string[] notAsked, string row)
    {
        string[] asked = notAsked.Intersect(look.Asked).ToArray();
        Assert.AreEqual(0, asked.Length, $"{row}: asked {string.Join(", ", asked)}, which this row does not need (each is a system call in the real look)");
    }

    /// <summary>A look that is a table row, and remembers which answers were asked.</summary>
    internal sealed class Look(bool SamePath = false, bool Unchanged = false, bool SameEntry = false, PairEntry Source = PairEntry.File, PairEntry Destination = PairEntry.Missing,
        bool DestinationReadOnly = false, LinkedOutput LinkedOutput = LinkedOutput.None, string? WhyNoClone = null) : IPairLook
    {
        public HashSet<string> Asked { get; } = [];

        bool IPairLook.SamePath => Ask(nameof(SamePath), SamePath);

        bool IPairLook.Unchanged => Ask(nameof(Unchanged), Unchanged);

        bool IPairLook.SameEntry => Ask(nameof(SameEntry), SameEntry);

        PairEntry IPairLook.Source => Ask(nameof(Source), Source);

        PairEntry IPairLook.Destination => Ask(nameof(Destination), Destination);

        bool IPairLook.DestinationReadOnly => Ask(nameof(DestinationReadOnly), DestinationReadOnly);

        bool IPairLook.DestinationIsSourceFile => Ask(nameof(IPairLook.DestinationIsSourceFile), LinkedOutput is LinkedOutput.HardLinkToSource or LinkedOutput.SymbolicLinkToSource);

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
