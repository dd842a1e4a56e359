using System;
using System.Collections.Generic;
using System.IO;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.Settings;

/// <summary>
/// Sorts the sources of files copied from another volume by <see cref="SourceOrigin"/>; copies from folders a user cannot
/// move (installations, NuGet fallback folders) or listed in CopyOnWriteAcceptCopiesFrom are accepted (no COW001/COW002).
/// </summary>
/// <remarks>Made by every Copy: plain loops, no LINQ or generic tuples for the JIT to compile in every MSBuild node.</remarks>
internal sealed class CopySources
{
    /// <summary>The installation of the MSBuild running this process: where these assemblies were loaded from, which never changes.</summary>
    private static readonly Lazy<AcceptedFolder?> MSBuildInstallation = new(FindMSBuildInstallation);

    private readonly List<AcceptedFolder> _accepted;
    private readonly string? _packageCache;
    private readonly StringComparison _pathComparison;

    private CopySources(List<AcceptedFolder> accepted, string? packageCache, StringComparison pathComparison)
    {
        _accepted = accepted;
        _packageCache = packageCache;
        _pathComparison = pathComparison;
    }

    /// <param name="listed">The project's CopyOnWriteAcceptCopiesFrom (full paths).</param>
    /// <param name="environment">The project's environment (DOTNET_HOST_PATH, NUGET_FALLBACK_PACKAGES, NUGET_PACKAGES).</param>
    /// <param name="pathComparison">How the task compares paths (the stock task's way: MSBuildHost.PathComparison).</param>
    public static CopySources For(IEnumerable<string> listed, Func<string, string?> environment, StringComparison pathComparison)
    {
        var accepted = new List<AcceptedFolder>();
        foreach (string folder in listed)
        {
            accepted.Add(new AcceptedFolder(folder, SourceOrigin.Listed));
        }

        AddInstallationsRunningTheBuild(accepted, environment);
        foreach (string folder in CopyOnWriteSettings.List(environment("NUGET_FALLBACK_PACKAGES")))
        {
            if (Path.IsPathRooted(folder))
            {
                accepted.Add(new AcceptedFolder(folder, SourceOrigin.NuGetFallbackFolder));
            }
        }

        string? packageCache = environment("NUGET_PACKAGES");
        return new CopySources(accepted, string.IsNullOrEmpty(packageCache) || !Path.IsPathRooted(packageCache) ? null : packageCache, pathComparison);
    }

    /// <summary>Whether Required accepts a copy from there: the table of <see cref="CloneRule"/>, which the doctor reads too.</summary>
    public static bool IsAccepted(SourceOrigin origin) => CloneRule.AcceptsCopiesFrom(origin);

    /// <summary>Where a source file or folder lives: the one rule, which the build's reports and the doctor's verdict both apply.</summary>
    public SourceOrigin OriginOf(string path)
    {
        foreach (AcceptedFolder accepted in _accepted)
        {
            if (IsInside(path, accepted.Folder, _pathComparison))
            {
                return accepted.Origin;
            }
        }

        // Without NUGET_PACKAGES, NuGet's default cache is ~/.nuget/packages (%USERPROFILE%\.nuget\packages).
        if ((_packageCache is not null && IsInside(path, _packageCache, _pathComparison))
            || (path.Replace('\\', '/').TrimEnd('/') + "/").IndexOf("/.nuget/packages/", StringComparison.OrdinalIgnoreCase) >= 0)
        {
            return SourceOrigin.PackageCache;
        }

        return SourceOrigin.Movable;
    }

    /// <summary>How the advice names the folder of an accepted origin, e.g. "the .NET installation".</summary>
    public static string Describe(SourceOrigin origin) => origin switch
    {
        SourceOrigin.DotNetInstallation => "the .NET installation",
        SourceOrigin.MSBuildInstallation => "MSBuild's installation",
        SourceOrigin.NuGetFallbackFolder => "a NuGet fallback folder",
        SourceOrigin.Listed => "listed in CopyOnWriteAcceptCopiesFrom",
        SourceOrigin.PackageCache => "the NuGet package cache",
        _ => "a folder that can move",
    };

    /// <summary>The .NET installation and MSBuild's, from the MSBuild assemblies this task runs with and DOTNET_HOST_PATH.</summary>
    private static void AddInstallationsRunningTheBuild(List<AcceptedFolder> accepted, Func<string, string?> environment)
    {
        if (MSBuildInstallation.Value is AcceptedFolder msbuild)
        {
            accepted.Add(msbuild);
        }

        if (DotNetInstallation(environment) is string dotnetRoot)
        {
            accepted.Add(new AcceptedFolder(dotnetRoot, SourceOrigin.DotNetInstallation));
        }
    }

    /// <summary>The folder of the dotnet executable DOTNET_HOST_PATH names (the .NET CLI sets it for every build it runs).</summary>
    public static string? DotNetInstallation(Func<string, string?> environment)
        => environment("DOTNET_HOST_PATH") is { Length: > 0 } dotnet && Path.IsPathRooted(dotnet) ? Path.GetDirectoryName(dotnet) : null;

    private static AcceptedFolder? FindMSBuildInstallation()
    {
        string? assemblies = Path.GetDirectoryName(typeof(ITaskItem).Assembly.Location);
        if (string.IsNullOrEmpty(assemblies))
        {
            return null;
        }

        (string folder, SourceOrigin origin) = InstallationOf(assemblies!);
        return new AcceptedFolder(folder, origin);
    }

    /// <summary>The installation of MSBuild's <paramref name="assemblies"/>: DOTNET for DOTNET/sdk/VERSION, else ...\MSBuild\Current\Bin[\amd64|\arm64]'s.</summary>
    public static (string Folder, SourceOrigin Origin) InstallationOf(string assemblies)
    {
        var bin = new DirectoryInfo(assemblies);
        if (bin.Parent is { Name: "sdk", Parent: DirectoryInfo dotnetRoot })
        {
            return (dotnetRoot.FullName, SourceOrigin.DotNetInstallation);
        }

        DirectoryInfo folder = bin.Name is "amd64" or "arm64" && bin.Parent is not null ? bin.Parent : bin;
        return (folder.Name.Equals("Bin", StringComparison.OrdinalIgnoreCase) && folder.Parent?.Parent is DirectoryInfo msbuildRoot ? msbuildRoot.FullName : folder.FullName, SourceOrigin.MSBuildInstallation);
    }

    /// <summary>Whether <paramref name="path"/> is <paramref name="folder"/> or lies below it (either may end with a separator).</summary>
    public static bool IsInside(string path, string folder, StringComparison pathComparison)
    {
        string root = folder.TrimEnd('/', '\\');
        string full = path.TrimEnd('/', '\\');
        return full.StartsWith(root, pathComparison)
            && (full.Length == root.Length || full[root.Length] is '/' or '\\');
    }

    private sealed record AcceptedFolder(string Folder, SourceOrigin Origin);
}
