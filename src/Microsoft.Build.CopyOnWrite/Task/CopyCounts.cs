namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// How many files, and bytes, went each way: what one Copy counts (<see cref="CopySummary"/>) and writes in its data
/// line (<see cref="CopyData"/>), and what the summary logger adds up over a build.
/// </summary>
internal class CopyCounts
{
    public int ClonedFiles { get; set; }
    public long ClonedBytes { get; set; }
    public int CopiedFiles { get; set; }
    public long CopiedBytes { get; set; }
    public int LinkedFiles { get; set; }

    /// <summary>Of the cloned files, those cloned where the Copy asked for a link (CopyOnWriteInsteadOfLinks).</summary>
    public int ClonedInsteadOfLinksFiles { get; set; }
    public long ClonedInsteadOfLinksBytes { get; set; }
    public int UpToDateFiles { get; set; }
    public long UpToDateBytes { get; set; }

    /// <summary>Of the cloned files, those that replaced an output that was a link to its source (CopyOnWriteInsteadOfLinks).</summary>
    public int ReplacedLinksFiles { get; set; }
    public long ReplacedLinksBytes { get; set; }

    /// <summary>True when a file was written or linked.</summary>
    public bool DidWork => ClonedFiles + CopiedFiles + LinkedFiles > 0;

    public void Add(CopyCounts other)
    {
        ClonedFiles += other.ClonedFiles;
        ClonedBytes += other.ClonedBytes;
        CopiedFiles += other.CopiedFiles;
        CopiedBytes += other.CopiedBytes;
        LinkedFiles += other.LinkedFiles;
        ClonedInsteadOfLinksFiles += other.ClonedInsteadOfLinksFiles;
        ClonedInsteadOfLinksBytes += other.ClonedInsteadOfLinksBytes;
        UpToDateFiles += other.UpToDateFiles;
        UpToDateBytes += other.UpToDateBytes;
        ReplacedLinksFiles += other.ReplacedLinksFiles;
        ReplacedLinksBytes += other.ReplacedLinksBytes;
    }
}
