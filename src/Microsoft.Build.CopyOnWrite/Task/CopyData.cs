using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// What one Copy did, as a machine-readable line logged beside its summary, so a logger or a replay adds a build up
/// exactly; the format is docs/how-it-works.md's "The data line" (plain text: no JSON library on .NET Framework).
/// </summary>
internal sealed class CopyData : CopyCounts
{
    public const string Prefix = "CopyOnWrite data: ";

    public List<ReasonEntry> Reasons { get; } = new();
    public List<CrossVolumeEntry> CrossVolume { get; } = new();

    /// <summary>The mount point or drive the cloned files were cloned on, empty when none were (or an older task wrote the line).</summary>
    public string ClonedOnVolume { get; set; } = string.Empty;

    public string ClonedOnFileSystem { get; set; } = string.Empty;

    /// <summary>Files copied, not cloned, within one volume (every reason but another volume), per destination volume.</summary>
    public List<CopiedOnEntry> CopiedOn { get; } = new();

    public sealed record CopiedOnEntry(string Volume, string FileSystem, int Files, long Bytes);

    public sealed record ReasonEntry(string Reason, string Detail, int Files, long Bytes);

    public sealed record CrossVolumeEntry(
        string SourceRoot,
        string DestinationRoot,
        string SourceVolume,
        string DestinationVolume,
        int Files,
        long Bytes,
        string SourceFileSystem,
        string DestinationFileSystem,
        SourceOrigin Origin);

    public static CopyData From(CopySummary summary, IEnumerable<CrossVolumeEntry> crossVolume, VolumeLocation? clonedOn = null, IEnumerable<CopiedOnEntry>? copiedOn = null)
    {
        var data = new CopyData();
        data.Add(summary);
        // One entry per reason, in the order the reasons first appear, with the first group's detail. A loop: LINQ's
        // GroupBy over our enum is framework code made for our type, compiled by the JIT in every MSBuild node.
        foreach (NotClonedFiles files in summary.NotCloned)
        {
            int at = 0;
            while (at < data.Reasons.Count && data.Reasons[at].Reason != files.Reason.ToString())
            {
                at++;
            }

            if (at == data.Reasons.Count)
            {
                data.Reasons.Add(new ReasonEntry(files.Reason.ToString(), DetailOf(files), files.Files, files.Bytes));
            }
            else
            {
                ReasonEntry reason = data.Reasons[at];
                data.Reasons[at] = reason with { Files = reason.Files + files.Files, Bytes = reason.Bytes + files.Bytes };
            }
        }

        data.CrossVolume.AddRange(crossVolume);
        if (clonedOn is not null)
        {
            (data.ClonedOnVolume, data.ClonedOnFileSystem) = (clonedOn.Root, clonedOn.FileSystem);
        }

        data.CopiedOn.AddRange(copiedOn ?? []);

        return data;
    }

    public string Format()
    {
        var text = new StringBuilder(Prefix);
        text.Append("v=1");
        Append(text, "cloned", ClonedFiles, ClonedBytes);
        Append(text, "copied", CopiedFiles, CopiedBytes);
        text.Append(" linked=").Append(LinkedFiles.ToString(CultureInfo.InvariantCulture));
        Append(text, "uptodate", UpToDateFiles, UpToDateBytes);
        if (ClonedInsteadOfLinksFiles > 0)
        {
            Append(text, "insteadoflinks", ClonedInsteadOfLinksFiles, ClonedInsteadOfLinksBytes);
        }

        if (ReplacedLinksFiles > 0)
        {
            Append(text, "replacedlinks", ReplacedLinksFiles, ReplacedLinksBytes);
        }

        foreach (ReasonEntry reason in Reasons)
        {
            text.Append(" reason=").Append(Escape(reason.Reason)).Append(',').Append(Escape(reason.Detail)).Append(',')
                .Append(reason.Files.ToString(CultureInfo.InvariantCulture)).Append(',').Append(reason.Bytes.ToString(CultureInfo.InvariantCulture));
        }

        foreach (CrossVolumeEntry entry in CrossVolume)
        {
            text.Append(" crossvolume=").Append(Escape(entry.SourceRoot)).Append(',').Append(Escape(entry.DestinationRoot)).Append(',')
                .Append(Escape(entry.SourceVolume)).Append(',').Append(Escape(entry.DestinationVolume)).Append(',')
                .Append(entry.Files.ToString(CultureInfo.InvariantCulture)).Append(',').Append(entry.Bytes.ToString(CultureInfo.InvariantCulture)).Append(',')
                .Append(Escape(entry.SourceFileSystem)).Append(',').Append(Escape(entry.DestinationFileSystem)).Append(',').Append(entry.Origin.ToString());
        }

        if (ClonedOnVolume.Length > 0)
        {
            text.Append(" clonedon=").Append(Escape(ClonedOnVolume)).Append(',').Append(Escape(ClonedOnFileSystem));
        }

        foreach (CopiedOnEntry entry in CopiedOn)
        {
            text.Append(" copiedon=").Append(Escape(entry.Volume)).Append(',').Append(Escape(entry.FileSystem)).Append(',')
                .Append(entry.Files.ToString(CultureInfo.InvariantCulture)).Append(',').Append(entry.Bytes.ToString(CultureInfo.InvariantCulture));
        }

        return text.ToString();
    }

    /// <summary>The DETAIL of a reason entry: only what that reason's DETAIL is documented to mean.</summary>
    private static string DetailOf(NotClonedFiles files)
        => files.Reason is FallbackReason.FileSystemCannotClone or FallbackReason.FileSystemRefused or FallbackReason.PlatformCannotClone or FallbackReason.EngineFailed ? files.Detail ?? string.Empty : string.Empty;

    private static void Append(StringBuilder text, string name, int files, long bytes)
        => text.Append(' ').Append(name).Append('=').Append(files.ToString(CultureInfo.InvariantCulture)).Append(',').Append(bytes.ToString(CultureInfo.InvariantCulture));

    private static string Escape(string value) => Uri.EscapeDataString(value);

}
