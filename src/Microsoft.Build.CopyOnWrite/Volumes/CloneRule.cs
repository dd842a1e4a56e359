namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>Where the source of a copy lives, as far as the clone rule cares: whether a user can move it. The build, its reports and the doctor all name it so.</summary>
internal enum SourceOrigin
{
    /// <summary>A folder the user can move onto the destination's volume (the repository, its outputs, the temp folder...).</summary>
    Movable,

    /// <summary>The NuGet package cache: movable (NUGET_PACKAGES), and the usual culprit.</summary>
    PackageCache,

    /// <summary>The .NET installation that runs the build.</summary>
    DotNetInstallation,

    /// <summary>The installation of the MSBuild that runs the build.</summary>
    MSBuildInstallation,

    /// <summary>A NuGet fallback folder named by NUGET_FALLBACK_PACKAGES: read-only packages shared by every user.</summary>
    NuGetFallbackFolder,

    /// <summary>A folder the project lists in CopyOnWriteAcceptCopiesFrom.</summary>
    Listed,
}

/// <summary>
/// The one rule for CopyOnWriteMode=Required, read by the build (COW001), the doctor and the forecast: a clone needs one file
/// system that clones; a copy is accepted only from a place the user cannot move or CopyOnWriteAcceptCopiesFrom lists.
/// </summary>
internal static class CloneRule
{
    /// <summary>Whether CopyOnWriteMode=Required accepts a file copied (not cloned) from <paramref name="source"/>.</summary>
    public static bool AcceptsCopiesFrom(SourceOrigin origin)
        => origin is SourceOrigin.DotNetInstallation or SourceOrigin.MSBuildInstallation or SourceOrigin.NuGetFallbackFolder or SourceOrigin.Listed;

    /// <summary>Whether two volumes are one file system, which a clone needs (<see cref="VolumeLocation.FileSystemKey"/>).</summary>
    public static bool SameFileSystem(VolumeLocation first, VolumeLocation second) => SameFileSystem(first.FileSystemKey, second.FileSystemKey);

    /// <summary>As <see cref="SameFileSystem(VolumeLocation, VolumeLocation)"/>, from the keys alone (the forecast keeps only those).</summary>
    public static bool SameFileSystem(string firstKey, string secondKey) => VolumeCatalog.RootComparer.Equals(firstKey, secondKey);
}
