using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.Json;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;

namespace Microsoft.Build.CopyOnWrite.Measure.PackageCache;

/// <summary>A package folder that verify looked at, and what it found there.</summary>
/// <param name="Note">Why nothing in it was verified (not there yet, no package in it), or null.</param>
internal sealed record VerifiedFolder(FolderRole Role, string Path, int Packages, string? Note);

/// <summary>What `verify` prints and writes as JSON: the folders, the counts and speed, each difference, and the repair.</summary>
internal static class VerifyReport
{
    public static string Text(IReadOnlyList<VerifiedFolder> folders, CacheVerification result)
    {
        var text = new StringBuilder();
        foreach (VerifiedFolder folder in folders)
        {
            text.AppendLine($"  {DoctorCheck.Describe(folder.Role)} {folder.Path}: {folder.Note ?? Count(folder.Packages, "package")}");
        }

        if (result.Packages == 0)
        {
            return text.AppendLine().AppendLine("Result: no package to verify (nothing was restored into these folders yet).").ToString();
        }

        double seconds = Math.Max(result.Elapsed.TotalSeconds, 0.001);
        text.AppendLine(Invariant($"Checked {Count(result.Packages, "package")}, each against its own .nupkg: {Count(result.Files, "file")}, {result.Bytes / 1048576.0:N1} MiB in {seconds:N1} s ({result.Files / seconds:N0} files/s, {result.Bytes / 1048576.0 / seconds:N1} MiB/s)."));

        foreach (IGrouping<ExtractedPackage, FileDifference> package in result.Differences.GroupBy(d => d.Package))
        {
            text.AppendLine().AppendLine($"DAMAGED {package.Key} in {package.Key.Folder}:");
            foreach (FileDifference difference in package)
            {
                text.AppendLine($"  {difference.File}: {Kind(difference.Kind)}: {difference.Detail}{Links(difference)}");
            }
        }

        foreach (UnverifiedPackage package in result.Unverified)
        {
            text.AppendLine().AppendLine($"CANNOT BE VERIFIED {package.Package} in {package.Package.Folder}: {package.Reason}.");
        }

        text.AppendLine();
        if (result.Intact)
        {
            text.AppendLine("Result: every file of every package matches its .nupkg.");
        }
        else
        {
            int damaged = result.Differences.Select(d => d.Package).Distinct().Count();
            string found = string.Join(" and ", new[] { damaged > 0 ? $"{Count(damaged, "package")} damaged" : null, result.Unverified.Count > 0 ? $"{Count(result.Unverified.Count, "package")} that cannot be verified" : null }.OfType<string>());
            text.AppendLine($"Result: {found}, of {result.Packages}. Nothing was changed.");
            IReadOnlyList<ExtractedPackage> toDelete = result.ToDelete;
            if (toDelete.Count > 0)
            {
                text.AppendLine("Repair: delete each such package's folder, and the next `dotnet restore` extracts it again from its source; then build from clean "
                    + "(`dotnet clean`, or delete bin/ and obj/), since an output hard-linked to a damaged file holds the same bytes:");
                foreach (ExtractedPackage package in toDelete)
                {
                    text.AppendLine("  " + DeleteCommand(package.Folder));
                }
            }
        }

        if (result.FilesWithOtherLinks > 0)
        {
            text.AppendLine($"Note: {Count(result.FilesWithOtherLinks, "file")} of the packages that match their .nupkg {(result.FilesWithOtherLinks == 1 ? "has" : "have")} more than one link (e.g. {result.FileWithOtherLinks}): "
                + "a build with MSBuild's CreateHardLinksFor...IfPossible linked them into its outputs, and a write into such an output changes the package (dotnet/msbuild#8273). "
                + "CopyOnWriteInsteadOfLinks=true clones instead where the volume clones.");
        }

        return text.ToString();
    }

    public static string Json(IReadOnlyList<VerifiedFolder> folders, CacheVerification result)
        => JsonSerializer.Serialize(
            new
            {
                result = result.Intact ? "intact" : "damaged",
                folders = folders.Select(f => new { role = DoctorReport.RoleKey(f.Role), path = f.Path, packages = f.Packages, note = f.Note }),
                packagesChecked = result.Packages,
                filesChecked = result.Files,
                bytesChecked = result.Bytes,
                seconds = result.Elapsed.TotalSeconds,
                filesWithOtherLinks = result.FilesWithOtherLinks,
                differences = result.Differences.Select(d => new
                {
                    package = d.Package.Id,
                    version = d.Package.Version,
                    packageFolder = d.Package.Folder,
                    file = d.File,
                    kind = JsonNamingPolicy.CamelCase.ConvertName(d.Kind.ToString()),
                    detail = d.Detail,
                    links = d.Links,
                    symbolicLink = d.SymbolicLink,
                }),
                cannotBeVerified = result.Unverified.Select(u => new { package = u.Package.Id, version = u.Package.Version, packageFolder = u.Package.Folder, reason = u.Reason }),
                deleteToRepair = result.ToDelete.Select(p => p.Folder),
            },
            ToolJson.Options);

    /// <summary>The command that deletes a package's folder, for the shell of this OS, the path quoted.</summary>
    public static string DeleteCommand(string folder)
        => OperatingSystem.IsWindows()
            ? $"Remove-Item -Recurse -Force '{folder.Replace("'", "''", StringComparison.Ordinal)}'"
            : $"rm -rf '{folder.Replace("'", "'\\''", StringComparison.Ordinal)}'";

    private static string Kind(DifferenceKind kind) => kind switch
    {
        DifferenceKind.Missing => "missing",
        DifferenceKind.Size => "size",
        DifferenceKind.Content => "content",
        DifferenceKind.NotAFile => "not a file",
        DifferenceKind.NotExtractable => "not extractable",
        _ => "unreadable",
    };

    /// <summary>What the file's links say of how it changed, after "; " (nothing for a file that is not there).</summary>
    private static string Links(FileDifference difference) => difference.Links switch
    {
        _ when difference.SymbolicLink => "; something other than NuGet put this link there",
        _ when difference.Kind is DifferenceKind.Missing or DifferenceKind.NotExtractable => string.Empty,
        > 1 => $"; {difference.Links} links: the file has other names, and a write through one of them changed the package's file "
            + "(a build output hard-linked by MSBuild's CreateHardLinksFor...IfPossible, dotnet/msbuild#8273)",
        1 => "; 1 link: no other name shares the file now",
        _ => "; how many links it has is not known on this OS",
    };

    private static string Count(long count, string noun) => Invariant($"{count:N0} {noun}{(count == 1 ? string.Empty : "s")}");

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
