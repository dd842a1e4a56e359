using System.Collections.Generic;
using System.Linq;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>One stream of files a build copies, from one folder into another, judged by <see cref="CloneRule"/>.</summary>
/// <param name="Passes">Whether those copies pass CopyOnWriteMode=Required: cloned, or accepted; null when unknown.</param>
internal sealed record BuildCopy(FolderOnVolume From, FolderOnVolume To, SourceOrigin Source, string What, bool? Passes);

/// <summary>
/// "Does this repository clone what it builds?": <see cref="CloneRule"/>, the rule of CopyOnWriteMode=Required, over
/// the copies a build makes, assuming the worse where a fact is missing (docs/volumes.md, "The rule").
/// </summary>
internal sealed class CloneVerdict
{
    private CloneVerdict(IReadOnlyList<BuildCopy> copies, IReadOnlyList<string> facts, IReadOnlyList<string> assumptions, RestoredPackages? restored = null)
    {
        Restored = restored;
        Copies = copies;
        Facts = facts;
        Assumptions = assumptions;
    }

    /// <summary>What restore wrote, when the verdict read it.</summary>
    public RestoredPackages? Restored { get; }

    /// <summary>The copies judged.</summary>
    public IReadOnlyList<BuildCopy> Copies { get; }

    /// <summary>What the verdict rests on, as sentences.</summary>
    public IReadOnlyList<string> Facts { get; }

    /// <summary>What it assumed where it lacked a fact, each with how to make it sure.</summary>
    public IReadOnlyList<string> Assumptions { get; }

    /// <summary>True: a Required build passes; false: it fails with COW001; null: cannot be told.</summary>
    public bool? Clones => Copies.Count == 0 ? null
        : Copies.Any(c => c.Passes == false) ? false
        : Copies.Any(c => c.Passes is null) ? null
        : true;

    /// <summary>The rule in one sentence, as the doctor prints it and docs/volumes.md states it (the build's own: <see cref="CloneRule"/>).</summary>
    public const string Statement =
        "every file the build copies must go as a clone (source and destination on one file system that clones), "
        + "unless it comes from the .NET or MSBuild installation, a NuGet fallback folder named in NUGET_FALLBACK_PACKAGES, "
        + "or a folder listed in CopyOnWriteAcceptCopiesFrom";

    /// <summary>The first copy that fails Required, or cannot be told.</summary>
    public BuildCopy? FirstFailing => Copies.FirstOrDefault(c => c.Passes == false) ?? Copies.FirstOrDefault(c => c.Passes is null);

    /// <param name="copiedFrom">Folders a step of the build copies from, named to the doctor (whatever role their row shows: the temp folder...).</param>
    public static CloneVerdict For(IReadOnlyList<FolderOnVolume> folders, BuildFacts buildFacts, IReadOnlyList<string> copiedFrom, Func<CheckedFolder, FolderOnVolume> inspect)
    {
        var copies = new List<BuildCopy>();
        var facts = new List<string>();
        var assumptions = new List<string>();
        FolderOnVolume? repository = folders.FirstOrDefault(f => f.Folder.Role == FolderRole.Repository);
        if (repository is null)
        {
            return new CloneVerdict(copies, facts, assumptions);
        }

        FolderOnVolume? intermediate = folders.FirstOrDefault(f => f.Folder.Role == FolderRole.IntermediateOutput);
        FolderOnVolume output = folders.FirstOrDefault(f => f.Folder.Role == FolderRole.BuildOutput) ?? intermediate ?? repository;
        copies.Add(Judge(repository, output, SourceOrigin.Movable, "the repository's files (content, references) into the build output"));
        if (intermediate is not null && !ReferenceEquals(intermediate, output))
        {
            copies.Add(Judge(intermediate, output, SourceOrigin.Movable, "the compiled assembly from obj into the build output"));
        }

        RestoredPackages restored = RestoredPackages.Read(repository.Folder.Path, buildFacts.AssetsFiles);
        FolderOnVolume? cache = folders.FirstOrDefault(f => f.Folder.Role == FolderRole.PackageCache);
        if (restored.Known)
        {
            facts.Add(restored.CopiedPackages.Count == 0
                ? $"restore ({restored.AssetsFiles.Count} project.assets.json) lists no package with files a build copies: nothing is copied from a package folder"
                : $"restore ({restored.AssetsFiles.Count} project.assets.json) lists {restored.CopiedPackages.Count} package{(restored.CopiedPackages.Count == 1 ? string.Empty : "s")} with files an application's build copies ({string.Join(", ", restored.CopiedPackages.Take(3))}{(restored.CopiedPackages.Count > 3 ? ", ..." : string.Empty)}), from {string.Join(", ", restored.CopiedFrom)}");
            foreach (string packageFolder in restored.CopiedFrom)
            {
                FolderOnVolume from = folders.FirstOrDefault(f => f.Folder.Role is FolderRole.PackageCache or FolderRole.PackageFallbackFolder && SamePath(f.Folder.Path, packageFolder))
                    ?? inspect(new CheckedFolder(FolderRole.PackageFallbackFolder, packageFolder));
                copies.Add(Judge(from, output, SourceOf(from, buildFacts), "package files into the build output"));
            }

            if (restored.CopiedPackages.Count > 0)
            {
                assumptions.Add("the packages' files are counted as copied into an output: an application's or test project's build copies them; a class library's own build does not (CopyLocalLockFileAssemblies)");
            }
        }
        else if (cache is not null)
        {
            copies.Add(Judge(cache, output, SourceOf(cache, buildFacts), "package files into the build output (assumed)"));
            assumptions.Add($"no restore result was found{(restored.Problem is null ? string.Empty : $" ({restored.Problem})")}, so the build is assumed to copy package files from the package cache {cache.Folder.Path}; run `dotnet restore` first to make it sure");
        }

        foreach (string path in copiedFrom)
        {
            FolderOnVolume from = folders.FirstOrDefault(f => SamePath(f.Folder.Path, path)) ?? inspect(new CheckedFolder(FolderRole.CopiedFrom, path));
            copies.Add(Judge(from, output, SourceOf(from, buildFacts), "files a step of the build copies into the build output"));
        }

        if (folders.FirstOrDefault(f => f.Folder.Role == FolderRole.TempFolder) is FolderOnVolume temp
            && !CloneRule.SameFileSystem(temp.Volume.Location, output.Volume.Location)
            && !copiedFrom.Any(path => SamePath(path, temp.Folder.Path)))
        {
            assumptions.Add($"no build step copies from the temp folder {temp.Folder.Path} (another file system than the output) or from another folder outside those above: one that does fails Required unless listed in CopyOnWriteAcceptCopiesFrom; name such a folder to the doctor to judge it (dotnet cow-measure doctor --copies-from FOLDER)");
        }

        facts.Add($"the rule (CopyOnWriteMode=Required): {Statement}");
        return new CloneVerdict(copies, facts, assumptions, restored);
    }

    /// <summary>Whether files go from <paramref name="source"/> to <paramref name="destination"/> as clones: one file system, and it clones (null: unknown).</summary>
    public static bool? ClonesBetween(VolumeFacts source, VolumeFacts destination)
        => !CloneRule.SameFileSystem(source.Location, destination.Location) ? false : source.CanClone;

    /// <summary>Whether copies from <paramref name="source"/> (of that kind) to <paramref name="destination"/> pass Required: cloned or accepted (null: unknown).</summary>
    public static bool? PassesRequired(SourceOrigin kind, VolumeFacts source, VolumeFacts destination)
        => CloneRule.AcceptsCopiesFrom(kind) ? true : ClonesBetween(source, destination);

    private static BuildCopy Judge(FolderOnVolume from, FolderOnVolume to, SourceOrigin source, string what)
        => new(from, to, source, what, from.Volume.Root == "?" || to.Volume.Root == "?" ? null : PassesRequired(source, from.Volume, to.Volume));

    /// <summary>
    /// Where the build says files from <paramref name="folder"/> come from (<see cref="CopySources.OriginOf"/>, the
    /// task's own rule); where its path says nothing, what MSBuild told the doctor the folder is.
    /// </summary>
    private static SourceOrigin SourceOf(FolderOnVolume folder, BuildFacts facts)
        => facts.Sources.OriginOf(folder.Folder.Path) is var origin && origin != SourceOrigin.Movable ? origin
            : folder.Folder.Role == FolderRole.DotnetInstallation ? SourceOrigin.DotNetInstallation
            : folder.Folder.Role == FolderRole.PackageCache ? SourceOrigin.PackageCache
            : SourceOrigin.Movable;

    private static bool SamePath(string first, string second)
        => CopySources.IsInside(first, second, MSBuildHost.PathComparison) && CopySources.IsInside(second, first, MSBuildHost.PathComparison);

    /// <summary>How a source kind reads in the report and the JSON.</summary>
    public static string Describe(SourceOrigin source) => source switch
    {
        SourceOrigin.PackageCache => "packageCache",
        SourceOrigin.DotNetInstallation => "dotnetInstallation",
        SourceOrigin.MSBuildInstallation => "msbuildInstallation",
        SourceOrigin.NuGetFallbackFolder => "nugetFallbackFolder",
        SourceOrigin.Listed => "listed",
        _ => "movable",
    };
}
