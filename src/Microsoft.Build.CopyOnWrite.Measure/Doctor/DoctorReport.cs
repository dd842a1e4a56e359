using System.Collections.Generic;
using System.Linq;
using System.Text.Json.Nodes;
using System.Text.Json;
using System.Text;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
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

    public static string Json(DoctorCheck check) => ToolJson.Write(Document(check));

    /// <summary>
    /// Where `dotnet build` builds several projects: the worst one's document (the fields of a one-project check, so a
    /// reader of those finds them), which project that is, and every project's own document, in the order they build.
    /// </summary>
    public static string Json(string worstProject, IEnumerable<(string Project, DoctorCheck? Check, string? Problem)> projects)
    {
        var all = projects.ToList();
        JsonObject document = JsonSerializer.SerializeToNode(Document(all.Single(p => p.Project == worstProject).Check!), ToolJson.Options)!.AsObject();
        document["project"] = worstProject;
        document["projects"] = JsonSerializer.SerializeToNode(
            all.Select(p => new { project = p.Project, problem = p.Problem, check = p.Check is null ? null : Document(p.Check) }),
            ToolJson.Options);
        return document.ToJsonString(ToolJson.Options);
    }

    private static object Document(DoctorCheck check)
    {
        CloneVerdict verdict = check.Verdict;
        return new
        {
            repositoryClones = check.RepositoryClones,
            verdict = new
            {
                clones = verdict.Clones,
                rule = CloneVerdict.Statement,
                copies = verdict.Copies.Select(c => new
                {
                    what = c.What,
                    from = c.From.Folder.Path,
                    fromRole = RoleKey(c.From.Folder.Role),
                    to = c.To.Folder.Path,
                    source = CloneVerdict.Describe(c.Source),
                    accepted = CloneRule.AcceptsCopiesFrom(c.Source),
                    clones = DoctorCheck.Clones(c.From, c.To),
                    passesRequired = c.Passes,
                }),
                facts = verdict.Facts,
                assumptions = verdict.Assumptions,
            },
            folders = check.Folders.Select(f => new
            {
                role = RoleKey(f.Folder.Role),
                path = f.Folder.Path,
                exists = f.Exists,
                volume = f.Volume.Root,
                fileSystem = f.Volume.FileSystem,
                fileSystemId = f.Volume.FileSystemId,
                canClone = f.Volume.CanClone,
                evidence = f.Volume.CloneEvidence,
                devDrive = f.Volume.DevDrive,
                trustedDevDrive = f.Volume.TrustedDevDrive,
            }),
            pairs = check.Folders.SelectMany(from => check.Folders.Where(to => !ReferenceEquals(from, to)).Select(to => new { from = from.Folder.Path, to = to.Folder.Path, clones = DoctorCheck.Clones(from, to) })),
            linksIntoPackageFolders = new { count = check.Linked.Count, examples = check.Linked.Examples },
            findings = check.Findings.Select(f => new { severity = SeverityText(f.Severity), message = f.Message, fix = f.Fix }),
        };
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

}
