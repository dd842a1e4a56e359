using System.Collections.Generic;
using System.Linq;
using System.Text;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>The check as a person reads it (a table of folders, which pairs clone, the findings with their fixes) and as JSON for CI.</summary>
internal static class DoctorReport
{
    public static IReadOnlyList<string> Lines(DoctorCheck check)
    {
        var lines = new List<string> { "CopyOnWrite doctor: can this machine clone what this repository builds?", string.Empty };
        IReadOnlyList<FolderOnVolume> folders = check.Folders;
        int labelWidth = folders.Max(f => Label(f).Length);
        int pathWidth = folders.Max(f => f.Folder.Path.Length);
        for (int i = 0; i < folders.Count; i++)
        {
            FolderOnVolume folder = folders[i];
            string clones = folder.Volume.CanClone switch { true => "clones", false => "does not clone", _ => "clone unknown" };
            string notYet = folder.Exists ? string.Empty : "  (not there yet: the folder above it was checked)";
            lines.Add($"  {Letter(i)}  {Label(folder).PadRight(labelWidth)}  {folder.Folder.Path.PadRight(pathWidth)}  {DoctorAdvice.Name(folder.Volume)}: {clones}{notYet}");
        }

        lines.Add(string.Empty);
        lines.Add("  How each volume's answer is known:");
        foreach (VolumeFacts volume in folders.Select(f => f.Volume).GroupBy(v => v.Root).Select(g => g.First()))
        {
            lines.Add($"    {DoctorAdvice.Name(volume)}: {volume.CloneEvidence}");
        }

        lines.Add(string.Empty);
        lines.Add("  Files copied from a row's folder to a column's folder are: C cloned, - copied (another volume, or a volume that does not clone), ? unknown");
        lines.Add("       " + string.Join("  ", Enumerable.Range(0, folders.Count).Select(Letter)));
        for (int from = 0; from < folders.Count; from++)
        {
            IEnumerable<string> cells = folders.Select(to => DoctorCheck.Clones(folders[from], to) switch { true => "C", false => "-", _ => "?" });
            lines.Add($"    {Letter(from)}  {string.Join("  ", cells)}");
        }

        lines.Add(string.Empty);
        lines.Add(check.Findings.Count == 0 ? "Findings: none." : "Findings, worst first:");
        foreach (Finding finding in check.Findings)
        {
            lines.Add($"  {SeverityText(finding.Severity)}: {finding.Message}");
            lines.AddRange(finding.Fix.Select(command => "      " + command));
        }

        lines.Add(string.Empty);
        lines.Add("  What a build with CopyOnWriteMode=Required would do, by its rule:");
        foreach (BuildCopy copy in check.Verdict.Copies)
        {
            string outcome = copy.Passes switch
            {
                true when CloneRule.AcceptsCopiesFrom(copy.Source) => "copied, accepted",
                true => "cloned",
                false => "copied: fails Required (COW001)",
                _ => "unknown",
            };
            lines.Add($"    {copy.What}: {copy.From.Folder.Path} -> {copy.To.Folder.Path}: {outcome}");
        }

        lines.AddRange(check.Verdict.Facts.Select(fact => "    fact: " + fact));
        lines.AddRange(check.Verdict.Assumptions.Select(assumption => "    assumed: " + assumption));
        lines.Add(string.Empty);
        lines.Add(check.RepositoryClones
            ? "Result: the repository clones what it builds."
            : check.Verdict.Clones is null
                ? "Result: whether the repository clones what it builds could not be told; the findings say what is unknown."
                : "Result: the repository does NOT clone what it builds; the first finding says why and what to type.");
        return lines;
    }

    public static string Json(DoctorCheck check)
    {
        var json = new StringBuilder();
        json.Append("{\"repositoryClones\":").Append(check.RepositoryClones ? "true" : "false");
        CloneVerdict verdict = check.Verdict;
        json.Append(",\"verdict\":{\"clones\":").Append(Bool(verdict.Clones));
        json.Append(",\"rule\":").Append(Text(CloneRule.Statement));
        json.Append(",\"copies\":[").Append(string.Join(",", verdict.Copies.Select(c =>
            $"{{\"what\":{Text(c.What)},\"from\":{Text(c.From.Folder.Path)},\"fromRole\":{Text(RoleKey(c.From.Folder.Role))},\"to\":{Text(c.To.Folder.Path)},"
            + $"\"source\":{Text(CloneVerdict.Describe(c.Source))},\"accepted\":{Bool(CloneRule.AcceptsCopiesFrom(c.Source))},\"clones\":{Bool(DoctorCheck.Clones(c.From, c.To))},\"passesRequired\":{Bool(c.Passes)}}}")));
        json.Append("],\"facts\":[").Append(string.Join(",", verdict.Facts.Select(Text)));
        json.Append("],\"assumptions\":[").Append(string.Join(",", verdict.Assumptions.Select(Text))).Append("]}");
        json.Append(",\"folders\":[");
        json.Append(string.Join(",", check.Folders.Select(f =>
            $"{{\"role\":{Text(RoleKey(f.Folder.Role))},\"path\":{Text(f.Folder.Path)},\"exists\":{Bool(f.Exists)},\"volume\":{Text(f.Volume.Root)},"
            + $"\"fileSystem\":{Text(f.Volume.FileSystem)},\"fileSystemId\":{(f.Volume.FileSystemId is string id ? Text(id) : "null")},\"canClone\":{Bool(f.Volume.CanClone)},\"evidence\":{Text(f.Volume.CloneEvidence)},"
            + $"\"devDrive\":{Bool(f.Volume.DevDrive)},\"trustedDevDrive\":{Bool(f.Volume.TrustedDevDrive)}}}")));
        json.Append("],\"pairs\":[");
        var pairs = new List<string>();
        foreach (FolderOnVolume from in check.Folders)
        {
            foreach (FolderOnVolume to in check.Folders.Where(to => !ReferenceEquals(from, to)))
            {
                pairs.Add($"{{\"from\":{Text(from.Folder.Path)},\"to\":{Text(to.Folder.Path)},\"clones\":{Bool(DoctorCheck.Clones(from, to))}}}");
            }
        }

        json.Append(string.Join(",", pairs));
        json.Append("],\"linksIntoPackageFolders\":{\"count\":").Append(check.Linked.Count)
            .Append(",\"examples\":[").Append(string.Join(",", check.Linked.Examples.Select(Text))).Append("]}");
        json.Append(",\"findings\":[");
        json.Append(string.Join(",", check.Findings.Select(f =>
            $"{{\"severity\":{Text(SeverityText(f.Severity))},\"message\":{Text(f.Message)},\"fix\":[{string.Join(",", f.Fix.Select(Text))}]}}")));
        json.Append("]}");
        return json.ToString();
    }

    /// <summary>The role as a JSON value and a --json consumer's key: repository, buildOutput, packageCache...</summary>
    public static string RoleKey(FolderRole role)
    {
        string name = role.ToString();
        return char.ToLowerInvariant(name[0]) + name.Substring(1);
    }

    private static string Label(FolderOnVolume folder) => DoctorCheck.Describe(folder.Folder.Role);

    private static string Letter(int index) => ((char)('A' + index)).ToString();

    private static string SeverityText(Severity severity) => severity switch
    {
        Severity.Error => "error",
        Severity.Warning => "warning",
        _ => "info",
    };

    private static string Bool(bool? value) => value switch { true => "true", false => "false", _ => "null" };

    private static string Text(string value) => JsonText.Quote(value);
}
