using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using Microsoft.Build.CopyOnWrite.Settings;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// The folders a build of one project copies between, and the other facts the check needs, from MSBuild's own
/// evaluation of the project (-getProperty after NuGet's _GetRestoreSettings).
/// </summary>
/// <param name="Repository">The folder of the project's Directory.Build.props else the project's folder.</param>
/// <param name="PackageSources">NuGet's package sources for the project (_OutputSources), URLs and folders.</param>
/// <param name="NuGetConfigFiles">The NuGet.config files NuGet read for it (_OutputConfigFilePaths).</param>
/// <param name="UsesOurSdk">Whether the project imports our SDK's targets.</param>
internal sealed record ProjectFolders(string Project, string Repository, IReadOnlyList<CheckedFolder> Folders, BuildFacts Facts,
    IReadOnlyList<string> PackageSources, IReadOnlyList<string> NuGetConfigFiles, bool UsesOurSdk)
{
    /// <summary>
    /// Every property read. NuGet's _GetRestoreSettings sets _OutputPackagesPath and _OutputFallbackFolders before any
    /// restore; NuGetPackageRoot and NuGetPackageFolders, which restore writes into obj/, stand in where it cannot run.
    /// </summary>
    public static IReadOnlyList<string> PropertyNames { get; } =
    [
        "MSBuildProjectFullPath", "DirectoryBuildPropsPath", "OutDir", "IntermediateOutputPath", "TargetFramework", "TargetFrameworks",
        "_OutputPackagesPath", "_OutputFallbackFolders", "NuGetPackageRoot", "NuGetPackageFolders", "NetCoreRoot", "DOTNET_HOST_PATH",
        "ProjectAssetsFile", "NUGET_FALLBACK_PACKAGES", "_OutputSources", "_OutputConfigFilePaths", "_CopyOnWriteSdkTargetsImported",
        .. CopyOnWriteSettings.TaskProperties, .. BuildFacts.LinkProperties,
    ];

    /// <summary>
    /// The folders from the project's evaluated properties (<paramref name="property"/> answers each of
    /// <see cref="PropertyNames"/>, empty or null when unset), the temp folder included.
    /// </summary>
    /// <param name="innerBuilds">Per-framework OutDir and IntermediateOutputPath, instead of the outer build's.</param>
    public static ProjectFolders From(Func<string, string?> property, IReadOnlyList<Func<string, string?>>? innerBuilds = null)
    {
        string Read(string name) => (property(name) ?? string.Empty).Trim();

        string project = Read("MSBuildProjectFullPath");
        string projectFolder = Path.GetDirectoryName(project) ?? project;
        string repository = Read("DirectoryBuildPropsPath") is { Length: > 0 } props ? Path.GetDirectoryName(InFolder(projectFolder, props))!
            : projectFolder;

        var folders = new List<CheckedFolder> { new(FolderRole.Repository, repository) };
        foreach (Func<string, string?> build in innerBuilds is { Count: > 0 } ? innerBuilds : [property])
        {
            if ((build("OutDir") ?? string.Empty).Trim() is { Length: > 0 } output)
            {
                folders.Add(new CheckedFolder(FolderRole.BuildOutput, InFolder(projectFolder, output)));
            }

            if ((build("IntermediateOutputPath") ?? string.Empty).Trim() is { Length: > 0 } intermediate)
            {
                folders.Add(new CheckedFolder(FolderRole.IntermediateOutput, InFolder(projectFolder, intermediate)));
            }
        }

        string packageCache = Read("_OutputPackagesPath") is { Length: > 0 } configured ? configured : Read("NuGetPackageRoot");
        if (packageCache.Length > 0)
        {
            folders.Add(new CheckedFolder(FolderRole.PackageCache, InFolder(projectFolder, packageCache)));
        }

        // NuGetPackageFolders lists the package cache first, then the fallback folders.
        IEnumerable<string> fallbackFolders = Read("_OutputFallbackFolders") is { Length: > 0 } configuredFallbacks
            ? List(configuredFallbacks)
            : List(Read("NuGetPackageFolders")).Where(folder => !SameFolder(folder, packageCache));
        folders.AddRange(fallbackFolders.Select(folder => new CheckedFolder(FolderRole.PackageFallbackFolder, InFolder(projectFolder, folder))));

        string dotnet = Read("NetCoreRoot") is { Length: > 0 } root ? root : CopySources.DotNetInstallation(Read) ?? string.Empty;
        if (dotnet.Length > 0)
        {
            folders.Add(new CheckedFolder(FolderRole.DotnetInstallation, InFolder(projectFolder, dotnet)));
        }

        folders.Add(new CheckedFolder(FolderRole.TempFolder, Path.GetTempPath()));

        // The build's own rules: its settings parser, and its CopySources over the project's environment, where the
        // package cache is the folder NuGet resolved (NUGET_PACKAGES, NuGet.config or RestorePackagesPath).
        CopyOnWriteSettings settings = CopyOnWriteSettings.Parse(Read, out IReadOnlyList<string> problems);
        var sources = CopySources.For(settings.AcceptCopiesFrom, name => name == "NUGET_PACKAGES" && packageCache.Length > 0 ? InFolder(projectFolder, packageCache) : Read(name), MSBuildHost.PathComparison);
        var facts = new BuildFacts(
            Read("ProjectAssetsFile") is { Length: > 0 } assets ? [InFolder(projectFolder, assets)] : [],
            sources,
            BuildFacts.LinkProperties.Where(name => string.Equals(Read(name), "true", StringComparison.OrdinalIgnoreCase)).ToList(),
            settings,
            problems);
        return new ProjectFolders(project, repository, folders, facts,
            List(Read("_OutputSources")).ToList(), List(Read("_OutputConfigFilePaths")).ToList(), string.Equals(Read("_CopyOnWriteSdkTargetsImported"), "true", StringComparison.OrdinalIgnoreCase));
    }

    private static IEnumerable<string> List(string list) => CopyOnWriteSettings.List(list);

    private static bool SameFolder(string a, string b)
        => CopySources.IsInside(a, b, MSBuildHost.PathComparison) && CopySources.IsInside(b, a, MSBuildHost.PathComparison);

    /// <summary>A path as MSBuild gives it (relative to the project, with \ on every OS) as a full path, without a trailing separator.</summary>
    private static string InFolder(string folder, string path)
    {
        string native = RuntimeInformation.IsOSPlatform(OSPlatform.Windows) ? path : path.Replace('\\', '/');
        string full = Path.GetFullPath(Path.Combine(folder, native));
        return full.Length > Path.GetPathRoot(full)!.Length ? full.TrimEnd(Path.DirectorySeparatorChar, Path.AltDirectorySeparatorChar) : full;
    }
}
