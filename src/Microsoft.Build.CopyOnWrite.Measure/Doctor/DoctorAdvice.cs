using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>What stands between the build and cloning, from the folders' volumes, each with the command that fixes it on that OS.</summary>
internal static class DoctorAdvice
{
    public static IEnumerable<Finding> For(IReadOnlyList<FolderOnVolume> folders, IReadOnlyList<VolumeFacts> clonesElsewhere, AdviceOS os, CloneVerdict verdict)
    {
        FolderOnVolume? repository = folders.FirstOrDefault(f => f.Folder.Role == FolderRole.Repository);
        if (repository is null)
        {
            yield break;
        }

        VolumeFacts home = repository.Volume;
        bool homeClones = home.CanClone == true;
        if (home.CanClone == false)
        {
            string where = clonesElsewhere.Count == 0
                ? "Put the repository on a volume that clones."
                : $"This machine already has {(clonesElsewhere.Count == 1 ? "a volume" : "volumes")} that clone{(clonesElsewhere.Count == 1 ? "s" : string.Empty)}: {string.Join(", ", clonesElsewhere.Select(Name))}; put the repository and the package cache on {Name(clonesElsewhere[0])}{WhyThere(clonesElsewhere, folders)}.";
            yield return new Finding(
                Severity.Error,
                $"The repository {repository.Folder.Path} is on {Name(home)}, which cannot clone ({home.CloneEvidence}): every file the build copies is copied byte by byte. {where}",
                clonesElsewhere.Count == 0 ? NewCloneVolume(os) : MoveTo(clonesElsewhere[0], os, CacheOn(clonesElsewhere[0], folders)));
        }
        else if (home.CanClone is null)
        {
            yield return new Finding(
                Severity.Warning,
                $"Whether the repository's volume {Name(home)} clones could not be told ({home.CloneEvidence}). Run the check from a folder of the repository you can write to.",
                []);
        }

        foreach (FolderOnVolume output in folders.Where(f => f.Folder.Role is FolderRole.BuildOutput or FolderRole.IntermediateOutput && !DoctorCheck.SameVolume(f, repository)))
        {
            yield return new Finding(
                Severity.Error,
                $"The {DoctorCheck.Describe(output.Folder.Role)} {output.Folder.Path} is on {Name(output.Volume)}, not on the repository's volume {Name(home)}: what the build copies into it is copied, not cloned. Keep build outputs inside the repository.",
                [$"remove the BaseOutputPath / BaseIntermediateOutputPath / OutputPath that point elsewhere, or set <ArtifactsPath>$(MSBuildThisFileDirectory)artifacts</ArtifactsPath> in Directory.Build.props"]);
        }

        foreach (FolderOnVolume cache in folders.Where(f => f.Folder.Role == FolderRole.PackageCache && !DoctorCheck.SameVolume(f, repository)))
        {
            string packages = os == AdviceOS.Windows ? home.Root.TrimEnd('\\') + @"\packages" : home.Root.TrimEnd('/') + "/.nuget/packages";
            BuildCopy? fromCache = verdict.Copies.FirstOrDefault(c => ReferenceEquals(c.From, cache) && c.Passes == false);
            yield return homeClones
                ? new Finding(
                    fromCache is null ? Severity.Warning : Severity.Error,
                    $"The NuGet package cache {cache.Folder.Path} is on {Name(cache.Volume)}, the repository on {Name(home)}: every package assembly copied into an output is copied, not cloned"
                    + (fromCache is null ? "." : $"{(fromCache.What.EndsWith("(assumed)", System.StringComparison.Ordinal) ? " (assumed: no restore result was read)" : string.Empty)}, and CopyOnWriteMode=Required fails on them (COW001).")
                    + " Put the package cache on the repository's volume.",
                    os == AdviceOS.Windows
                        ? [$"setx NUGET_PACKAGES {packages}", "(open a new terminal, then) dotnet restore"]
                        : [$"export NUGET_PACKAGES={packages}   # and in your shell profile", "dotnet restore"])
                : clonesElsewhere.Count > 0 && CacheOn(clonesElsewhere[0], folders) is not null
                ? new Finding(
                    Severity.Info,
                    $"The NuGet package cache {cache.Folder.Path} is already on {Name(cache.Volume)}, where the repository should go: nothing to move for it.",
                    [])
                : new Finding(
                    Severity.Info,
                    $"The NuGet package cache {cache.Folder.Path} is on {Name(cache.Volume)}, another volume than the repository's: once the repository is on a volume that clones, put the package cache there too (NUGET_PACKAGES).",
                    []);
        }

        foreach (FolderOnVolume fallback in folders.Where(f => f.Folder.Role == FolderRole.PackageFallbackFolder && !DoctorCheck.SameVolume(f, repository)))
        {
            BuildCopy? fromFallback = verdict.Copies.FirstOrDefault(c => ReferenceEquals(c.From, fallback));
            if (fromFallback is not null && CloneRule.AcceptsCopiesFrom(fromFallback.Source))
            {
                yield return new Finding(
                    Severity.Info,
                    $"The NuGet fallback folder {fallback.Folder.Path} is on {Name(fallback.Volume)}, not the repository's volume: packages NuGet finds there are copied, not cloned; CopyOnWriteMode=Required accepts those copies (NUGET_FALLBACK_PACKAGES or CopyOnWriteAcceptCopiesFrom names it).",
                    []);
                continue;
            }

            yield return new Finding(
                fromFallback?.Passes == false ? Severity.Error : Severity.Warning,
                $"The NuGet fallback folder {fallback.Folder.Path} is on {Name(fallback.Volume)}, not the repository's volume: packages NuGet finds there are copied from it, not cloned. Drop the fallback folder (RestoreFallbackFolders, or <fallbackPackageFolders> in NuGet.config) so packages restore into the package cache.",
                ["dotnet nuget locals global-packages --list   # where packages go instead"]);
        }

        foreach (FolderOnVolume dotnet in folders.Where(f => f.Folder.Role == FolderRole.DotnetInstallation && !DoctorCheck.SameVolume(f, repository)))
        {
            yield return new Finding(
                Severity.Info,
                $"The .NET installation {dotnet.Folder.Path} is on {Name(dotnet.Volume)}: the few files a build copies from it (apphost, runtime packs) are copied. That is expected; it cannot move, and CopyOnWriteMode=Required accepts those copies.",
                []);
        }

        foreach (FolderOnVolume temp in folders.Where(f => f.Folder.Role == FolderRole.TempFolder && !DoctorCheck.SameVolume(f, repository)))
        {
            yield return new Finding(
                Severity.Info,
                $"The temp folder {temp.Folder.Path} is on {Name(temp.Volume)}: a build step that copies from or into it copies. Most builds do not; if yours does, point {(os == AdviceOS.Windows ? "TEMP and TMP" : "TMPDIR")} at a folder on the repository's volume.",
                []);
        }

        foreach (Finding finding in DevDrive(home, os))
        {
            yield return finding;
        }

        if (homeClones && folders.All(f => f.Folder.Role is not (FolderRole.BuildOutput or FolderRole.IntermediateOutput or FolderRole.PackageCache) || DoctorCheck.SameVolume(f, repository)))
        {
            yield return new Finding(Severity.Info, $"What the build copies within the repository and from the package cache is cloned on {Name(home)}.", []);
        }
    }

    /// <summary>
    /// Where the project asks for links (docs/links.md): CopyOnWriteInsteadOfLinks where the outputs can clone from the
    /// package cache; elsewhere the links, and with them writes into the cache, stay.
    /// </summary>
    public static IEnumerable<Finding> Links(IReadOnlyList<FolderOnVolume> folders, BuildFacts facts)
    {
        if (facts.LinksAsked is not { Count: > 0 } asked)
        {
            yield break;
        }

        FolderOnVolume? output = folders.FirstOrDefault(f => f.Folder.Role == FolderRole.BuildOutput) ?? folders.FirstOrDefault(f => f.Folder.Role == FolderRole.Repository);
        FolderOnVolume? cache = folders.FirstOrDefault(f => f.Folder.Role == FolderRole.PackageCache);
        if (output is null)
        {
            yield break;
        }

        string properties = string.Join(", ", asked);
        bool? clones = cache is null ? output.Volume.CanClone : DoctorCheck.Clones(cache, output);
        if (clones == true)
        {
            yield return facts.InsteadOfLinks
                ? new Finding(
                    Severity.Info,
                    $"The project asks for links ({properties}); CopyOnWriteInsteadOfLinks is true and {Name(output.Volume)} clones, so its outputs are clones instead: the same disk space, and a write into an output never reaches the package cache.",
                    [])
                : new Finding(
                    Severity.Warning,
                    $"The project asks for links ({properties}), so outputs are hard or symbolic links into the package cache {cache?.Folder.Path ?? string.Empty}: a tool that writes into an output writes into the cache (dotnet/msbuild#8273). {Name(output.Volume)} clones: set CopyOnWriteInsteadOfLinks to get clones there instead, with the same disk space and no shared file.",
                    ["<CopyOnWriteInsteadOfLinks>true</CopyOnWriteInsteadOfLinks>   # in Directory.Build.props"]);
            yield break;
        }

        if (cache is not null && DoctorCheck.SameVolume(cache, output) || asked.Any(name => name.StartsWith("CreateSymbolicLinks", System.StringComparison.Ordinal)))
        {
            yield return new Finding(
                Severity.Warning,
                $"The project asks for links ({properties}), and its outputs cannot clone from the package cache {cache?.Folder.Path ?? string.Empty} ({Name(output.Volume)}{(cache is null ? string.Empty : $", cache on {Name(cache.Volume)}")}): the links into the cache are made as asked{(facts.InsteadOfLinks ? ", CopyOnWriteInsteadOfLinks or not" : string.Empty)}, and a tool that writes into an output writes into the cache (dotnet/msbuild#8273). Put the repository and the package cache on a volume that clones (above), or turn the link properties off.",
                []);
        }
    }

    /// <summary>
    /// Outputs that are links into a package folder now, whatever the project asks today (links stay until replaced):
    /// one build with CopyOnWriteInsteadOfLinks replaces them where they can clone, else only a clean build does.
    /// </summary>
    public static Finding? LinksNow(LinkedOutputs linked, IReadOnlyList<FolderOnVolume> folders)
    {
        if (linked.Count == 0)
        {
            return null;
        }

        FolderOnVolume? output = folders.FirstOrDefault(f => f.Folder.Role == FolderRole.BuildOutput);
        FolderOnVolume? cache = folders.FirstOrDefault(f => f.Folder.Role == FolderRole.PackageCache);
        string them = linked.Count == 1 ? $"1 output of the build is a link" : $"{linked.Count} outputs of the build are links";
        string what = $"{them} into a package folder now ({string.Join(", ", linked.Examples)}{(linked.Count > linked.Examples.Count ? ", ..." : string.Empty)}): "
            + "a tool that writes into one writes into the package cache (dotnet/msbuild#8273). `dotnet cow-measure verify` checks the cache.";
        return output is not null && cache is not null && DoctorCheck.Clones(cache, output) == true
            ? new Finding(Severity.Warning, what + $" {Name(output.Volume)} clones: build once with CopyOnWriteInsteadOfLinks=true and each becomes a clone (no clean needed).",
                ["dotnet build -p:CopyOnWriteInsteadOfLinks=true   # or <CopyOnWriteInsteadOfLinks>true</CopyOnWriteInsteadOfLinks> in Directory.Build.props", "dotnet cow-measure verify"])
            : new Finding(Severity.Warning, what + " Here the outputs cannot clone from the package cache, so only a clean build without the link properties (CreateHardLinksFor...IfPossible) removes them.",
                ["dotnet clean && dotnet build   # with the link properties off", "dotnet cow-measure verify"]);
    }

    /// <summary>A copy that fails CopyOnWriteMode=Required and that no finding above names as an error.</summary>
    public static Finding RequiredFails(BuildCopy copy)
    {
        string why = DoctorCheck.SameVolume(copy.From, copy.To) ? $"{Name(copy.To.Volume)} does not clone" : $"{Name(copy.From.Volume)} and {Name(copy.To.Volume)} are different file systems";
        return new Finding(
            Severity.Error,
            $"CopyOnWriteMode=Required fails (COW001) on {copy.What}: they go from {copy.From.Folder.Path} to {copy.To.Folder.Path}, and {why}. Put {copy.From.Folder.Path} on the volume of {copy.To.Folder.Path}, or list it in CopyOnWriteAcceptCopiesFrom if it cannot move.",
            [$"dotnet build -p:CopyOnWriteAcceptCopiesFrom={copy.From.Folder.Path}   # only if it cannot move"]);
    }

    /// <summary>Windows: a Dev Drive that is not trusted is scanned synchronously by Microsoft Defender.</summary>
    private static IEnumerable<Finding> DevDrive(VolumeFacts home, AdviceOS os)
    {
        if (os != AdviceOS.Windows || home.CanClone != true)
        {
            yield break;
        }

        string drive = home.Root.TrimEnd('\\');
        if (home.DevDrive == true && home.TrustedDevDrive == false)
        {
            yield return new Finding(
                Severity.Warning,
                $"{drive} is a Dev Drive that is not trusted: Microsoft Defender scans it as any other volume instead of in performance mode. Trust it (as administrator), then check:",
                [$"fsutil devdrv trust {drive}", $"fsutil devdrv query {drive}"]);
        }
        else if (home.DevDrive == true)
        {
            yield return new Finding(Severity.Info, $"{drive} is a trusted Dev Drive: Microsoft Defender runs in performance mode there when its real-time protection is on (not read here; `fsutil devdrv query {drive}` shows the filters attached).", []);
        }

        if (home.StockCopyClones == true)
        {
            yield return new Finding(Severity.Info, "This Windows (11 24H2 or later) clones in MSBuild's own Copy task too; this package adds the same-file checks, the report and the clone on every other OS.", []);
        }
    }

    /// <summary>Why the first of the volumes that clone is the one proposed (they come in <see cref="DoctorCheck"/>'s order of proposal).</summary>
    private static string WhyThere(IReadOnlyList<VolumeFacts> clonesElsewhere, IReadOnlyList<FolderOnVolume> folders)
        => DoctorCheck.ProposalReason(clonesElsewhere[0], folders) switch
        {
            ProposalHolds.PackageCache => ", which already holds the package cache",
            ProposalHolds.Outputs => ", which already holds the build's outputs",
            _ when clonesElsewhere.Count > 1 && DoctorCheck.FreeBytes(clonesElsewhere[0].Root) is long free => $", which has the most free space of them ({FileSizeText.Format(free)})",
            _ => string.Empty,
        };

    /// <param name="cacheThere">The package cache where it already is on <paramref name="volume"/> (then it stays), else null.</param>
    private static IReadOnlyList<string> MoveTo(VolumeFacts volume, AdviceOS os, string? cacheThere)
    {
        bool windows = os == AdviceOS.Windows;
        string root = volume.Root.TrimEnd('/', '\\');
        string separator = windows ? "\\" : "/";
        string clone = $"git clone <repository> {root}{separator}src{separator}<name>";
        return cacheThere is not null
            ? [clone]
            : [clone, windows ? $"setx NUGET_PACKAGES {root}\\packages" : $"export NUGET_PACKAGES={root}/.nuget/packages   # and in your shell profile"];
    }

    /// <summary>The package cache's folder when it is on <paramref name="volume"/>, else null.</summary>
    private static string? CacheOn(VolumeFacts volume, IReadOnlyList<FolderOnVolume> folders)
        => folders.FirstOrDefault(f => f.Folder.Role == FolderRole.PackageCache && VolumeCatalog.RootComparer.Equals(f.Volume.Root, volume.Root))?.Folder.Path;

    private static IReadOnlyList<string> NewCloneVolume(AdviceOS os) => os switch
    {
        AdviceOS.Windows =>
        [
            "Format-Volume -DriveLetter D -DevDrive   # PowerShell as administrator, on an empty volume; or Settings > System > Storage > Disks & volumes > Create dev drive",
            @"git clone <repository> D:\src\<name>",
        ],
        AdviceOS.MacOS =>
        [
            "diskutil apfs addVolume disk1 APFS Source   # a new APFS volume in the container disk1 (diskutil apfs list shows yours)",
            "git clone <repository> /Volumes/Source/<name>",
        ],
        _ =>
        [
            "sudo mkfs.xfs -m reflink=1 /dev/<empty partition>   # or mkfs.btrfs; this erases that partition",
            "sudo mkdir -p /src && sudo mount /dev/<empty partition> /src",
            "git clone <repository> /src/<name>",
        ],
    };

    public static string Name(VolumeFacts volume) => $"{volume.Root} ({volume.FileSystem}{(volume.DevDrive == true ? ", Dev Drive" : string.Empty)})";
}
