namespace Microsoft.Build.CopyOnWrite;

// The Copy contract for one pair as data, in the stock task's order: the look and the options in, the action out.
// Copy.Pairs.cs carries the action out, PairLook.cs makes the look; "(links)" marks CopyOnWriteInsteadOfLinks' rows.

/// <summary>What the Copy task was asked, as far as one pair is concerned.</summary>
internal readonly record struct PairOptions(
    bool SkipUnchanged = false,
    bool FailIfNotIncremental = false,
    bool HardLinks = false,
    bool SymbolicLinks = false,
    bool OverwriteReadOnly = false,
    bool CopyWithoutDelete = false,
    bool CloneInsteadOfLinks = false,
    bool LinksOnly = false);

/// <summary>A side of a pair as one look found it (links followed for the source, not for the destination).</summary>
internal enum PairEntry
{
    Missing,
    File,
    Folder,

    /// <summary>The destination only: a symbolic link (to a file, or to nothing).</summary>
    SymbolicLink,
}

/// <summary>Whether the destination is a link an earlier build made (asked only with CopyOnWriteInsteadOfLinks).</summary>
internal enum LinkedOutput
{
    None,
    HardLinkToSource,

    /// <summary>A hard link to another file than the source: to what the source was before a build replaced it.</summary>
    HardLinkToOther,
    SymbolicLinkToSource,
}

/// <summary>One look at a pair: each answer asked of the file system only when a row needs it, and at most once.</summary>
internal interface IPairLook
{
    /// <summary>The source's path and the destination's are one string.</summary>
    bool SamePath { get; }

    /// <summary>Both are files of one size and last write time (the stock task's up-to-date check).</summary>
    bool Unchanged { get; }

    /// <summary>The destination is there and is the source's own directory entry by another way (a symbolic link to a folder, a bind mount).</summary>
    bool SameEntry { get; }

    PairEntry Source { get; }

    PairEntry Destination { get; }

    bool DestinationReadOnly { get; }

    LinkedOutput LinkedOutput { get; }

    /// <summary>Null where source and destination share a volume that clones; else why not, for a message.</summary>
    string? WhyNoClone { get; }
}

/// <summary>What is done with a pair.</summary>
internal enum PairAction
{
    /// <summary>Links only (ReplaceLinksWithClones): not a link, so the copying target judges it; nothing is written.</summary>
    LeftToTarget,

    /// <summary>Up to date: "did not copy, because the file matches" (SkipUnchangedFiles).</summary>
    UpToDate,

    /// <summary>The source's own entry: nothing to do, and nothing may be lost by replacing it.</summary>
    AlreadyThere,

    /// <summary>(links) A link an earlier build made, replaced by a clone (clone only: where the clone fails, the link stays and it is said once).</summary>
    ReplaceLinkWithClone,

    /// <summary>(links) A link an earlier build made, kept because no clone can be made here; said once per build.</summary>
    KeepLink,

    /// <summary>An error with <see cref="PairPlan.Failure"/>, nothing written.</summary>
    Fail,

    /// <summary>To be written: checked and decided at each attempt (<see cref="PairDecision.CheckAttempt"/>, <see cref="PairDecision.DecideMaking"/>).</summary>
    Attempt,

    /// <summary>(links) A clone instead of the link asked for; where the clone fails, the link <see cref="PairPlan.Link"/> as asked.</summary>
    CloneInsteadOfLink,

    /// <summary>The link asked for (<see cref="PairPlan.Link"/>); where it fails, a clone or copy, or with ErrorIfLinkFails an error.</summary>
    Link,

    /// <summary>A clone where the volume clones, else a copy (the engine and its fallback ladder).</summary>
    CloneOrCopy,
}

/// <summary>Which link the Copy asked for.</summary>
internal enum LinkAsked
{
    None,
    Hard,
    Symbolic,

    /// <summary>Hard, and symbolic where the hard link fails.</summary>
    HardThenSymbolic,
}

/// <summary>The action and what it needs to know.</summary>
/// <param name="Failure">For <see cref="PairAction.Fail"/>: the stock message.</param>
/// <param name="Link">For the link actions: the link asked for.</param>
/// <param name="ToSource">For the link-replacing actions: the link is to the source (else to what the source was).</param>
/// <param name="ClearReadOnly">OverwriteReadOnlyFiles and a read-only destination: made writable first.</param>
/// <param name="KeepsDestination">The stock task keeps the destination (read-only, MSBUILDCOPYWITHOUTDELETE=1): a link meets EEXIST, a copy writes into it.</param>
/// <param name="ReplacesLinkToSource">(links) The destination is a symbolic link to the source: what replaces it is counted as a link replaced.</param>
/// <param name="WhyNoClone">(links) Why no clone can be made, where the link is kept or made as asked.</param>
internal readonly record struct PairPlan(
    PairAction Action,
    StockMessage? Failure = null,
    LinkAsked Link = LinkAsked.None,
    bool ToSource = true,
    bool ClearReadOnly = false,
    bool KeepsDestination = false,
    bool ReplacesLinkToSource = false,
    string? WhyNoClone = null);

internal static class PairDecision
{
    /// <summary>The checks before any attempt: links only, up to date, the source's own entry, FailIfNotIncremental.</summary>
    public static PairPlan Decide(IPairLook look, PairOptions options)
    {
        if (options.LinksOnly)
        {
            // ReplaceLinksWithClones runs before the copying targets, whose up-to-date checks take a link for its source;
            // nothing but such a link is its to write.
            return look.LinkedOutput switch
            {
                LinkedOutput.SymbolicLinkToSource => ReplaceOrKeep(look, toSource: true),
                LinkedOutput.HardLinkToSource or LinkedOutput.HardLinkToOther when look.Unchanged => ReplaceOrKeep(look, look.LinkedOutput == LinkedOutput.HardLinkToSource),
                _ => new PairPlan(PairAction.LeftToTarget),
            };
        }

        if (options.SkipUnchanged && look.Unchanged)
        {
            // (links) A hard link an earlier build made has the source's size and time, yet is no output of its own.
            // Off, nothing more is asked than the stock task's check (docs/links.md).
            if (options.CloneInsteadOfLinks && look.LinkedOutput is LinkedOutput.HardLinkToSource or LinkedOutput.HardLinkToOther)
            {
                return ReplaceOrKeep(look, look.LinkedOutput == LinkedOutput.HardLinkToSource);
            }

            return new PairPlan(PairAction.UpToDate);
        }

        // Replacing the source's own entry would replace the source (a new inode, an owner-writable mode, a full copy
        // on ext4). A destination that is not there (most copies of a clean build) is no entry at all.
        if (look.SamePath || look.SameEntry)
        {
            return new PairPlan(PairAction.AlreadyThere);
        }

        if (options.FailIfNotIncremental)
        {
            return new PairPlan(PairAction.Fail, CopyMessages.CopyingFile);
        }

        return new PairPlan(PairAction.Attempt);
    }

    /// <summary>An attempt's checks, in the stock task's order, before it makes the destination's folder: the error, or null.</summary>
    public static StockMessage? CheckAttempt(IPairLook look)
        => look.Destination == PairEntry.Folder ? CopyMessages.DestinationIsFolder
            : look.Source == PairEntry.Folder ? CopyMessages.SourceIsFolder
            : look.Source == PairEntry.Missing ? CopyMessages.SourceNotFound
            : null;

    /// <summary>How an attempt makes the destination, once the checks passed and its folder is there (the volume is asked about clones in it).</summary>
    public static PairPlan DecideMaking(IPairLook look, PairOptions options)
    {
        bool exists = look.Destination is PairEntry.File or PairEntry.SymbolicLink;
        bool clearReadOnly = exists && options.OverwriteReadOnly && look.DestinationReadOnly;
        bool keeps = exists && (options.CopyWithoutDelete || (look.DestinationReadOnly && !clearReadOnly));
        bool replacesLinkToSource = options.CloneInsteadOfLinks && look.Destination == PairEntry.SymbolicLink && look.LinkedOutput == LinkedOutput.SymbolicLinkToSource;
        LinkAsked link = options.HardLinks ? (options.SymbolicLinks ? LinkAsked.HardThenSymbolic : LinkAsked.Hard)
            : options.SymbolicLinks ? LinkAsked.Symbolic : LinkAsked.None;
        var plan = new PairPlan(PairAction.CloneOrCopy, Link: link, ClearReadOnly: clearReadOnly, KeepsDestination: keeps, ReplacesLinkToSource: replacesLinkToSource);
        if (link == LinkAsked.None)
        {
            return plan;
        }

        // (links) A clone instead where one can be made. Where the stock task keeps the destination, its link fails
        // (and ErrorIfLinkFails fails the Copy): that stays as it is, so no clone is tried there.
        if (options.CloneInsteadOfLinks && !keeps)
        {
            string? whyNoClone = look.WhyNoClone;
            return whyNoClone is null
                ? plan with { Action = PairAction.CloneInsteadOfLink }
                : plan with { Action = PairAction.Link, WhyNoClone = replacesLinkToSource ? whyNoClone : null };
        }

        return plan with { Action = PairAction.Link };
    }

    private static PairPlan ReplaceOrKeep(IPairLook look, bool toSource)
        => look.WhyNoClone is string why
            ? new PairPlan(PairAction.KeepLink, ToSource: toSource, WhyNoClone: why)
            : new PairPlan(PairAction.ReplaceLinkWithClone, ToSource: toSource);
}
