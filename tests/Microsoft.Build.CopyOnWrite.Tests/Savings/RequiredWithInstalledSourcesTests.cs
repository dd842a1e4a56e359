using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Savings;

/// <summary>
/// Some sources of a build cannot move onto its volume: a .NET Framework app gets its .NET Standard facades from the
/// .NET SDK's own folder. CopyOnWriteMode=Required accepts those copies (and any folder listed in
/// CopyOnWriteAcceptCopiesFrom) and still fails on a source the user can move.
/// </summary>
[TestClass]
public sealed class RequiredWithInstalledSourcesTests
{
    private const string Net462 = "net462";

    [TestMethod]
    public void A_net462_app_passes_Required_on_XFS_set_up_as_the_README_says_though_its_facades_come_from_the_SDK_on_another_volume()
    {
        string volume = LoopFileSystems.Xfs.NewFolder("required-net462");
        RequireTheSdkOnAnotherVolumeThan(volume);
        var projects = SavingsProjects.Create(Directory.CreateDirectory(Path.Combine(volume, "repo")).FullName, directoryBuildProps: "<CopyOnWriteMode>Required</CopyOnWriteMode>", appTargetFramework: Net462);
        string facade = Path.Combine(projects.AppOutput(Net462), "netstandard.dll");

        ProcessResult build = BuildWithPackageCacheOn(volume, projects, "-v:n");

        Assert.IsTrue(build.Succeeded, "Required must accept the SDK's facades:\n" + build.Output);
        Assert.IsTrue(File.Exists(facade), "the SDK copied its .NET Standard facades into App's output:\n" + build.Output);
        SharedExtents.AssertNoneShared(facade, "a byte copy from the SDK's folder on another volume");
        SharedExtents.AssertAllShared(Path.Combine(projects.AppOutput(Net462), "first.bin"), "Lib's content cloned on XFS");
        var accepted = SavingsProjects.LinesContaining(build.Output, "(the .NET installation) on another volume than");
        Assert.AreEqual(1, accepted.Count, "the accepted copies are told once:\n" + build.Output);
        StringAssert.EndsWith(accepted[0], "that is expected, and CopyOnWriteMode=Required accepts them.");
    }

    [TestMethod]
    public void Required_fails_on_a_movable_source_on_another_volume_naming_only_it_and_passes_once_it_is_listed_in_CopyOnWriteAcceptCopiesFrom()
    {
        string volume = LoopFileSystems.Xfs.NewFolder("required-net462-movable");
        string assets = LoopFileSystems.Ext4.NewFolder("assets");
        var projects = SavingsProjects.Create(Directory.CreateDirectory(Path.Combine(volume, "repo")).FullName, directoryBuildProps: "<CopyOnWriteMode>Required</CopyOnWriteMode>", contentFolder: assets, appTargetFramework: Net462);

        ProcessResult failed = BuildWithPackageCacheOn(volume, projects, "-v:m");

        Assert.IsFalse(failed.Succeeded, "content from an ext4 folder is a missed clone:\n" + failed.Output);
        var errors = SavingsProjects.DistinctLinesContaining(failed.Output, "error COW001");
        Assert.IsTrue(errors.Count > 0, failed.Output);
        foreach (string error in errors)
        {
            StringAssert.Contains(error, $"Put the sources ({assets}) on the same volume as the destinations");
            StringAssert.Contains(error, $"list {assets} in CopyOnWriteAcceptCopiesFrom if it cannot move");
            Assert.IsFalse(error.Contains("Microsoft.NET.Build.Extensions", System.StringComparison.Ordinal), "the SDK's facades are no error: " + error);
        }

        projects.WriteDirectoryBuildProps($"<CopyOnWriteMode>Required</CopyOnWriteMode><CopyOnWriteAcceptCopiesFrom>/nonexistent/elsewhere;{assets}</CopyOnWriteAcceptCopiesFrom>");
        ProcessResult accepted = BuildWithPackageCacheOn(volume, projects, "-v:n");

        Assert.IsTrue(accepted.Succeeded, "a listed folder is accepted:\n" + accepted.Output);
        var listed = SavingsProjects.LinesContaining(accepted.Output, $"come from {assets} (listed in CopyOnWriteAcceptCopiesFrom) on another volume than");
        Assert.AreEqual(1, listed.Count, accepted.Output);
        SharedExtents.AssertNoneShared(Path.Combine(projects.AppOutput(Net462), "first.bin"), "copied from ext4");
    }

    /// <summary>The README's set-up: the package cache (NUGET_PACKAGES) on the repository's volume.</summary>
    private static ProcessResult BuildWithPackageCacheOn(string volumeFolder, SavingsProjects projects, params string[] arguments)
        => projects.TryBuildWithEnvironment(new Dictionary<string, string?> { ["NUGET_PACKAGES"] = Path.Combine(volumeFolder, "nuget-packages") }, arguments);

    /// <summary>The scenario needs the .NET SDK that runs the builds outside the loop-mounted volume (as on any machine).</summary>
    private static void RequireTheSdkOnAnotherVolumeThan(string volumeFolder)
    {
        // "10.0.401 [/usr/share/dotnet/sdk]"
        ProcessResult sdks = ProcessRunner.Run("dotnet", "--list-sdks");
        string line = sdks.Output.Split('\n').First(l => l.Contains('['));
        string sdkFolder = line.Substring(line.IndexOf('[') + 1).TrimEnd(']', '\r', ' ');
        ProcessResult devices = ProcessRunner.Run("stat", "-c", "%d", sdkFolder, volumeFolder);
        string[] ids = devices.Output.Split('\n', System.StringSplitOptions.RemoveEmptyEntries);
        if (ids.Length != 2 || ids[0] == ids[1])
        {
            Assert.Inconclusive($"SKIPPED: this test needs the .NET SDK ({sdkFolder}) on another volume than the loop-mounted XFS; stat said: {devices.Output}");
        }
    }
}
