using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Settings;

/// <summary>
/// Where the source of a file copied from another volume lives (src/Microsoft.Build.CopyOnWrite/Settings/CopySources.cs),
/// row by row: the project's list and environment in, the origin of a path out. The origin decides whether
/// CopyOnWriteMode=Required accepts the copy (CloneRule) and how COW001/COW002 name the folder.
/// </summary>
[TestClass]
public sealed class CopySourcesTests
{
    // The installation of the MSBuild that runs this test process (the .NET SDK's), filled in when the row runs.
    private const string RunningMSBuild = "$(RunningMSBuild)";

    private static readonly (string Row, string[] Listed, Dictionary<string, string> Environment, string Path, SourceOrigin Expected)[] OriginTable =
    {
        ("a listed folder", ["/srv/assets"], new(), "/srv/assets/logo.png", SourceOrigin.Listed),
        ("a listed folder given with a trailing separator", ["/srv/assets/"], new(), "/srv/assets/logo.png", SourceOrigin.Listed),
        ("the listed folder itself", ["/srv/assets"], new(), "/srv/assets", SourceOrigin.Listed),
        ("a sibling whose name starts like a listed folder is not in it", ["/srv/assets"], new(), "/srv/assets2/logo.png", SourceOrigin.Movable),
        ("the .NET installation that runs the build (DOTNET_HOST_PATH)", [], new() { ["DOTNET_HOST_PATH"] = "/opt/dotnet/dotnet" }, "/opt/dotnet/packs/a.dll", SourceOrigin.DotNetInstallation),
        ("a relative DOTNET_HOST_PATH names nothing", [], new() { ["DOTNET_HOST_PATH"] = "dotnet" }, "dotnet/a.dll", SourceOrigin.Movable),
        ("the installation of the MSBuild that runs the build, without any variable", [], new(), RunningMSBuild + "/packs/a.dll", SourceOrigin.DotNetInstallation),
        ("a NuGet fallback folder", [], new() { ["NUGET_FALLBACK_PACKAGES"] = "rel;/usr/share/nuget-fallback" }, "/usr/share/nuget-fallback/dep/1.0.0/dep.dll", SourceOrigin.NuGetFallbackFolder),
        ("a relative fallback folder names nothing", [], new() { ["NUGET_FALLBACK_PACKAGES"] = "fallback" }, "fallback/dep.dll", SourceOrigin.Movable),
        ("the package cache NUGET_PACKAGES names", [], new() { ["NUGET_PACKAGES"] = "/cache/nuget" }, "/cache/nuget/dep/1.0.0/dep.dll", SourceOrigin.PackageCache),
        ("a relative NUGET_PACKAGES names nothing", [], new() { ["NUGET_PACKAGES"] = "cache" }, "cache/dep.dll", SourceOrigin.Movable),
        ("NuGet's default cache in any home, without NUGET_PACKAGES", [], new(), "/home/me/.NuGet/packages/dep/1.0.0/dep.dll", SourceOrigin.PackageCache),
        ("NuGet's default cache of a home at the root", [], new(), "/.nuget/packages/dep/1.0.0/dep.dll", SourceOrigin.PackageCache),
        ("the default cache folder itself, on Windows", [], new(), @"C:\Users\me\.nuget\packages", SourceOrigin.PackageCache),
        ("a listed folder wins over the cache it is in", ["/cache/nuget/vendored"], new() { ["NUGET_PACKAGES"] = "/cache/nuget" }, "/cache/nuget/vendored/a.dll", SourceOrigin.Listed),
        ("anything else can move", ["/srv/assets"], new() { ["NUGET_PACKAGES"] = "/cache/nuget" }, "/src/app/obj/a.dll", SourceOrigin.Movable),
    };

    public static IEnumerable<object[]> OriginRows => OriginTable.Select(row => new object[] { row.Row });

    [TestMethod]
    [DynamicData(nameof(OriginRows))]
    public void The_origin_of_a_source(string row)
    {
        (_, string[] listed, Dictionary<string, string> environment, string path, SourceOrigin expected) = OriginTable.Single(r => r.Row == row);

        CopySources sources = CopySources.For(listed, name => environment.GetValueOrDefault(name), StringComparison.Ordinal);
        string runningMSBuild = CopySources.InstallationOf(Path.GetDirectoryName(typeof(Microsoft.Build.Framework.ITaskItem).Assembly.Location)!).Folder;

        Assert.AreEqual(expected, sources.OriginOf(path.Replace(RunningMSBuild, runningMSBuild)), row);
    }

    [TestMethod]
    public void Paths_compare_as_the_task_compares_them()
    {
        CopySources ignoringCase = CopySources.For(["/Srv/Assets"], _ => null, StringComparison.OrdinalIgnoreCase);
        CopySources ordinal = CopySources.For(["/Srv/Assets"], _ => null, StringComparison.Ordinal);

        Assert.AreEqual(SourceOrigin.Listed, ignoringCase.OriginOf("/srv/assets/a"));
        Assert.AreEqual(SourceOrigin.Movable, ordinal.OriginOf("/srv/assets/a"));
    }

    [TestMethod]
    [DataRow("/usr/share/dotnet/sdk/10.0.401", "/usr/share/dotnet", "DotNetInstallation")]
    [DataRow("/vs/MSBuild/Current/Bin", "/vs/MSBuild", "MSBuildInstallation")]
    [DataRow("/vs/MSBuild/Current/Bin/amd64", "/vs/MSBuild", "MSBuildInstallation")]
    [DataRow("/vs/MSBuild/Current/bin/arm64", "/vs/MSBuild", "MSBuildInstallation")]
    [DataRow("/opt/msbuild/amd64", "/opt/msbuild", "MSBuildInstallation")]
    [DataRow("/opt/msbuild", "/opt/msbuild", "MSBuildInstallation")]
    [DataRow("/Bin", "/Bin", "MSBuildInstallation")]
    public void The_installation_MSBuilds_assemblies_belong_to(string assemblies, string folder, string origin)
        => Assert.AreEqual((folder, Enum.Parse<SourceOrigin>(origin)), CopySources.InstallationOf(assemblies), assemblies);

    [TestMethod]
    public void The_dotnet_installation_is_the_folder_of_the_dotnet_that_runs_the_build()
    {
        Assert.AreEqual("/opt/dotnet", CopySources.DotNetInstallation(name => name == "DOTNET_HOST_PATH" ? "/opt/dotnet/dotnet" : null));
        Assert.IsNull(CopySources.DotNetInstallation(_ => ""));
        Assert.IsNull(CopySources.DotNetInstallation(_ => "dotnet"));
    }

    [TestMethod]
    [DataRow("DotNetInstallation", "the .NET installation", true)]
    [DataRow("MSBuildInstallation", "MSBuild's installation", true)]
    [DataRow("NuGetFallbackFolder", "a NuGet fallback folder", true)]
    [DataRow("Listed", "listed in CopyOnWriteAcceptCopiesFrom", true)]
    [DataRow("PackageCache", "the NuGet package cache", false)]
    [DataRow("Movable", "a folder that can move", false)]
    public void Each_origin_is_named_for_the_advice_and_only_those_a_user_cannot_move_are_accepted(string origin, string name, bool accepted)
    {
        Assert.AreEqual(name, CopySources.Describe(Enum.Parse<SourceOrigin>(origin)));
        Assert.AreEqual(accepted, CopySources.IsAccepted(Enum.Parse<SourceOrigin>(origin)), origin);
    }
}
