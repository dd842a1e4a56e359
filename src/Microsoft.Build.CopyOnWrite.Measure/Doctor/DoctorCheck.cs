using System.Collections.Generic;
using System.IO;
using System.Linq;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>The kinds of folder a build reads from and writes to, in the order the check lists them.</summary>
internal enum FolderRole
{
    Repository,
    BuildOutput,
    IntermediateOutput,
    PackageCache,
    PackageFallbackFolder,
    DotnetInstallation,
    TempFolder,

    /// <summary>A folder a step of the build copies from, named to the doctor (--copies-from): judged as the build judges it.</summary>
    CopiedFrom,

    /// <summary>A folder the user named to the tool (a second checkout, a drive to build on).</summary>
    NamedFolder,
}

/// <summary>A folder the check looks at: what it is to the build, and where.</summary>
internal sealed record CheckedFolder(FolderRole Role, string Path);

/// <summary>One folder as found: its volume, or why it could not be looked at.</summary>
internal sealed record FolderOnVolume(CheckedFolder Folder, bool Exists, VolumeFacts Volume);

internal enum Severity
{
    /// <summary>The repository cannot clone what it builds.</summary>
    Error,

    /// <summary>Files that could clone will be copied; a move fixes it.</summary>
    Warning,

    /// <summary>Worth knowing; nothing to fix.</summary>
    Info,
}

/// <summary>One thing the check found, with the exact command that fixes it on this OS (empty when nothing to do).</summary>
internal sealed record Finding(Severity Severity, string Message, IReadOnlyList<string> Fix);

/// <summary>The operating system the advice is written for (commands differ), not necessarily this process's.</summary>
internal enum AdviceOS
{
    Linux,
    Windows,
    MacOS,
}

internal static class AdviceOSes
{
    /// <summary>The advice for the OS this process runs on (Linux's for any other Unix).</summary>
    public static AdviceOS ThisProcess
        => System.Runtime.InteropServices.RuntimeInformation.IsOSPlatform(System.Runtime.InteropServices.OSPlatform.Windows) ? AdviceOS.Windows
            : System.Runtime.InteropServices.RuntimeInformation.IsOSPlatform(System.Runtime.InteropServices.OSPlatform.OSX) ? AdviceOS.MacOS
            : AdviceOS.Linux;
}

/// <summary>
/// Can this machine clone what this repository builds? The volumes of the folders a build copies between, and what
/// stands in the way, worst first, each with its fix (docs/volumes.md, "The doctor").
/// </summary>
internal sealed class DoctorCheck
{
    private DoctorCheck(IReadOnlyList<FolderOnVolume> folders, IReadOnlyList<VolumeFacts> clonesElsewhere, IReadOnlyList<Finding> findings, CloneVerdict verdict, LinkedOutputs linked)
    {
        Linked = linked;
        Folders = folders;
        ClonesElsewhere = clonesElsewhere;
        Findings = findings;
        Verdict = verdict;
    }

    /// <summary>Outputs that are links into a package folder now.</summary>
    public LinkedOutputs Linked { get; }

    /// <summary>The verdict by the rule of CopyOnWriteMode=Required, with the facts it rests on and what it assumed.</summary>
    public CloneVerdict Verdict { get; }

    /// <summary>Volumes of this machine that clone, other than the repository's, looked for when the repository's does not clone.</summary>
    public IReadOnlyList<VolumeFacts> ClonesElsewhere { get; }

    public IReadOnlyList<FolderOnVolume> Folders { get; }

    /// <summary>Worst first.</summary>
    public IReadOnlyList<Finding> Findings { get; }

    /// <summary>
    /// Whether a build with CopyOnWriteMode=Required passes: every copy of <see cref="Verdict"/> cloned or accepted, by
    /// <see cref="CloneRule"/>, the rule the build applies. What `dotnet cow-measure doctor --require-clone` acts on.
    /// </summary>
    public bool RepositoryClones => Verdict.Clones == true;

    /// <summary>Whether a fresh clone of the repository (CI) would not restore our packages (<see cref="CommittedPackages"/>).</summary>
    public bool FreshCloneFails { get; private init; }

    /// <summary>Whether files go from <paramref name="from"/> to <paramref name="to"/> as clones: one file system, and it clones (null: unknown).</summary>
    public static bool? Clones(FolderOnVolume from, FolderOnVolume to)
        => from.Volume.Root == "?" || to.Volume.Root == "?" ? null : CloneVerdict.ClonesBetween(from.Volume, to.Volume);

    /// <param name="facts">What the build knows beyond folders (restore's result, the folders Required accepts); none: it is assumed, and said.</param>
    /// <param name="volumesThatMayClone">The machine's other volumes that may clone (<see cref="SelfTest.LinuxMounts"/>), asked only where the repository's does not; none: no such list.</param>
    public static DoctorCheck Run(IEnumerable<CheckedFolder> folders, VolumeFactsInspector volumes, AdviceOS os, BuildFacts? facts = null, Func<IReadOnlyList<VolumeLocation>>? volumesThatMayClone = null)
    {
        var found = new List<FolderOnVolume>();
        folders = folders.ToList();
        IReadOnlyList<string> copiedFrom = folders.Where(f => f.Role == FolderRole.CopiedFrom).Select(f => Normalize(f.Path)).ToList();

        // A folder named twice (NuGet lists the package cache among its package folders) is shown once, under its first role.
        IReadOnlyList<string> notToWriteIn = folders.Where(f => f.Role == FolderRole.DotnetInstallation).Select(f => Normalize(f.Path)).ToList();
        foreach (CheckedFolder folder in folders.OrderBy(f => f.Role).GroupBy(f => Normalize(f.Path), VolumeCatalog.RootComparer).Select(g => g.First()))
        {
            found.Add(Look(folder, volumes, MayProbe(folder, notToWriteIn)));
        }

        CloneVerdict verdict = CloneVerdict.For(found, facts ?? BuildFacts.None, copiedFrom, folder =>
        {
            FolderOnVolume added = Look(folder, volumes, MayProbe(folder, notToWriteIn));
            found.Add(added);
            return added;
        });
        IReadOnlyList<VolumeFacts> elsewhere = InOrderOfProposal(CloneCapableVolumesBesides(found.FirstOrDefault(f => f.Folder.Role == FolderRole.Repository), volumes, volumesThatMayClone), found);
        List<Finding> findings = DoctorAdvice.For(found, elsewhere, os, verdict).ToList();
        findings.AddRange(DoctorAdvice.Links(found, facts ?? BuildFacts.None));
        LinkedOutputs linked = LinkedOutputs.Find(
            found.Where(f => f.Folder.Role is FolderRole.BuildOutput or FolderRole.IntermediateOutput).Select(f => f.Folder.Path),
            found.Where(f => f.Folder.Role is FolderRole.PackageCache or FolderRole.PackageFallbackFolder).Select(f => f.Folder.Path).ToList(),
            verdict.Restored?.PackageDirectories ?? []);
        if (DoctorAdvice.LinksNow(linked, found) is Finding linksNow)
        {
            findings.Add(linksNow);
        }

        List<Finding> freshClone = (facts?.Committed ?? CommittedPackages.None).Findings().ToList();
        findings.AddRange(freshClone);
        findings.AddRange((facts ?? BuildFacts.None).SettingProblems.Select(problem => new Finding(Severity.Error, $"{problem} A build stops on it with {CopyOnWriteCodes.BadSetting}.", [])));
        if (verdict.FirstFailing is BuildCopy failing && failing.Passes == false && !findings.Any(f => f.Severity == Severity.Error))
        {
            findings.Add(DoctorAdvice.RequiredFails(failing));
        }

        return new DoctorCheck(found, elsewhere, findings.OrderBy(f => f.Severity).ToList(), verdict, linked) { FreshCloneFails = freshClone.Count > 0 };
    }

    /// <summary>
    /// Whether the probe may write in <paramref name="folder"/>: never in the .NET installation, a fallback folder or a
    /// system folder, even as root (docs/volumes.md, "The doctor"); there the volume's flags or kind decide.
    /// </summary>
    internal static bool MayProbe(CheckedFolder folder, IReadOnlyList<string> notToWriteIn)
    {
        if (folder.Role is FolderRole.DotnetInstallation or FolderRole.PackageFallbackFolder)
        {
            return false;
        }

        string path = Normalize(folder.Path);
        return !notToWriteIn.Concat(SystemFolders).Any(system => CopySources.IsInside(path, system, MSBuildHost.PathComparison)) && path.Length > 1 && Path.GetPathRoot(path) != path + Path.DirectorySeparatorChar;
    }

    /// <summary>Folders of the OS and its packages (Linux, macOS; Windows is never written to), where no probe goes.</summary>
    internal static readonly string[] SystemFolders =
    [
        "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/etc", "/proc", "/sys", "/dev", "/run", "/snap", "/var/lib",
        "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libexec", "/usr/include", "/usr/share",
        "/System/Library", "/System/Applications", "/Library", "/Applications",
    ];

    private static FolderOnVolume Look(CheckedFolder folder, VolumeFactsInspector volumes, bool mayProbe)
    {
        bool exists = Directory.Exists(folder.Path);
        VolumeFacts volume;
        try
        {
            volume = volumes.Inspect(folder.Path, mayProbe);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            volume = new VolumeFacts("?", "unknown", null, e.Message, null, null, null, null);
        }

        return new FolderOnVolume(folder, exists, volume);
    }

    /// <summary>
    /// Where the repository's volume does not clone, the mounted volumes that do, judged without writing there, so the
    /// fix can name a volume this machine already has.
    /// </summary>
    private static IReadOnlyList<VolumeFacts> CloneCapableVolumesBesides(FolderOnVolume? repository, VolumeFactsInspector inspector, Func<IReadOnlyList<VolumeLocation>>? volumesThatMayClone)
    {
        if (repository is null || repository.Volume.CanClone == true || volumesThatMayClone is null)
        {
            return [];
        }

        var volumes = new List<VolumeFacts>();
        foreach (VolumeLocation candidate in volumesThatMayClone().Where(v => v.Root != repository.Volume.Root))
        {
            try
            {
                // Not a folder of the build, nor one the user named: judged without writing there (its flags or its kind).
                VolumeFacts facts = inspector.Inspect(candidate.Root, mayWrite: false);
                if (facts.CanClone == true)
                {
                    volumes.Add(facts);
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // A mount that went away, or cannot be looked at: not a candidate.
            }
        }

        return volumes;
    }

    /// <summary>
    /// The volumes that clone, best move first: the one that already holds the package cache, then one that holds the
    /// build's outputs (less to move), then the others by free space, most first.
    /// </summary>
    private static IReadOnlyList<VolumeFacts> InOrderOfProposal(IReadOnlyList<VolumeFacts> volumes, IReadOnlyList<FolderOnVolume> folders)
        => volumes
            .OrderBy(volume => ProposalReason(volume, folders) switch { ProposalHolds.PackageCache => 0, ProposalHolds.Outputs => 1, _ => 2 })
            .ThenByDescending(volume => FreeBytes(volume.Root) ?? -1)
            .ToList();

    /// <summary>What of the build a volume already holds, which makes it the one to move to.</summary>
    internal static ProposalHolds ProposalReason(VolumeFacts volume, IReadOnlyList<FolderOnVolume> folders)
    {
        bool Holds(params FolderRole[] roles) => folders.Any(f => roles.Contains(f.Folder.Role) && VolumeCatalog.RootComparer.Equals(f.Volume.Root, volume.Root));
        return Holds(FolderRole.PackageCache) ? ProposalHolds.PackageCache
            : Holds(FolderRole.BuildOutput, FolderRole.IntermediateOutput) ? ProposalHolds.Outputs
            : ProposalHolds.Nothing;
    }

    /// <summary>Free bytes on the volume mounted at <paramref name="root"/>, or null where that cannot be read.</summary>
    internal static long? FreeBytes(string root)
    {
        try
        {
            return new DriveInfo(root).AvailableFreeSpace;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return null;
        }
    }

    /// <summary>One file system (<see cref="CloneRule.SameFileSystem(VolumeLocation, VolumeLocation)"/>): a btrfs subvolume or a bind mount is the file system it comes from.</summary>
    internal static bool SameVolume(FolderOnVolume first, FolderOnVolume second)
        => first.Volume.Root != "?" && CloneRule.SameFileSystem(first.Volume.Location, second.Volume.Location);

    private static string Normalize(string path)
    {
        try
        {
            return Path.GetFullPath(path).TrimEnd('/', '\\');
        }
        catch (Exception e) when (e is ArgumentException or NotSupportedException or PathTooLongException)
        {
            return path;
        }
    }

    /// <summary>How a role reads in a sentence and in the table.</summary>
    public static string Describe(FolderRole role) => role switch
    {
        FolderRole.Repository => "repository",
        FolderRole.BuildOutput => "build output",
        FolderRole.IntermediateOutput => "intermediate output (obj)",
        FolderRole.PackageCache => "NuGet package cache",
        FolderRole.PackageFallbackFolder => "NuGet fallback folder",
        FolderRole.DotnetInstallation => ".NET installation",
        FolderRole.TempFolder => "temp folder",
        FolderRole.CopiedFrom => "folder the build copies from",
        _ => "folder you named",
    };
}

/// <summary>What of a build a clone-capable volume already holds (why the doctor proposes it).</summary>
internal enum ProposalHolds
{
    Nothing,
    PackageCache,
    Outputs,
}
