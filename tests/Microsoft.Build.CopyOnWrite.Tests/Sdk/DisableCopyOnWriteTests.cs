using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>Where a user sets DisableCopyOnWrite.</summary>
public enum SettingRoute
{
    ProjectFile,
    DirectoryBuildProps,
    CommandLine,
    EnvironmentVariable,
}

/// <summary>
/// DisableCopyOnWrite, the switch of the Windows-only 1.x package of the same ID, brings back MSBuild's own Copy
/// task when it is true or 1 (in any case), however the package is brought in and wherever the switch is set.
/// Each row is a real build in this process (clean, without restoring) of a small repository restored once per package
/// route from the packed package; MSBuild's own "Using Copy task from assembly" line says which task ran.
/// </summary>
[TestClass]
public sealed class DisableCopyOnWriteTests
{
    [TestMethod]
    [DataRow(PackageRoute.SdkElement, SettingRoute.ProjectFile, "true")]
    [DataRow(PackageRoute.SdkElement, SettingRoute.DirectoryBuildProps, "1")]
    [DataRow(PackageRoute.SdkElement, SettingRoute.CommandLine, "1")]
    [DataRow(PackageRoute.SdkElement, SettingRoute.EnvironmentVariable, "TRUE")]
    [DataRow(PackageRoute.PackageReference, SettingRoute.ProjectFile, "1")]
    [DataRow(PackageRoute.PackageReference, SettingRoute.DirectoryBuildProps, "True")]
    [DataRow(PackageRoute.PackageReference, SettingRoute.CommandLine, "true")]
    [DataRow(PackageRoute.PackageReference, SettingRoute.EnvironmentVariable, "1")]
    [DataRow(PackageRoute.GlobalPackageReference, SettingRoute.DirectoryBuildProps, "1")]
    [DataRow(PackageRoute.SdkElement, SettingRoute.DirectoryBuildProps, " true ")]
    public void DisableCopyOnWrite_true_or_1_brings_back_MSBuilds_own_Copy(PackageRoute package, SettingRoute setting, string value)
    {
        (ConsumerRepository repository, ProcessResult build) = BuildWith(package, setting, value);

        repository.AssertStockCopyRan(build);
        Assert.AreEqual(true, CopyOnWriteSettings.IsDisabled(value), "Sdk.targets registered no task of ours where the settings' parser says it is on");
    }

    [TestMethod]
    [DataRow(PackageRoute.SdkElement, SettingRoute.CommandLine, "false")]
    [DataRow(PackageRoute.PackageReference, SettingRoute.EnvironmentVariable, "0")]
    [DataRow(PackageRoute.SdkElement, SettingRoute.ProjectFile, "")]
    public void DisableCopyOnWrite_false_0_or_empty_keeps_our_Copy(PackageRoute package, SettingRoute setting, string value)
    {
        (ConsumerRepository repository, ProcessResult build) = BuildWith(package, setting, value);

        repository.AssertOurCopyRan(build);
        Assert.AreEqual(false, CopyOnWriteSettings.IsDisabled(value), "Sdk.targets registered our task where the settings' parser says it is off");
        Assert.IsFalse(build.Output.Contains("COW010", System.StringComparison.Ordinal), build.Output);
    }

    /// <summary>Neither on nor off: ours stays, as the 1.x package kept it, and the build says so once, naming the values that mean something.</summary>
    [TestMethod]
    public void DisableCopyOnWrite_with_another_value_keeps_our_Copy_and_warns_once_naming_the_values()
    {
        (ConsumerRepository repository, ProcessResult build) = BuildWith(PackageRoute.SdkElement, SettingRoute.DirectoryBuildProps, "banana");

        repository.AssertOurCopyRan(build);
        Assert.IsNull(CopyOnWriteSettings.IsDisabled("banana"));
        IReadOnlyList<string> warnings = Savings.SavingsProjects.DistinctLinesContaining(build.Output, "warning COW010");
        Assert.AreEqual(1, warnings.Count, build.Output);
        StringAssert.Contains(warnings[0], "DisableCopyOnWrite has the value \"banana\", which is neither true or 1 (MSBuild's own Copy task) nor false, 0 or empty (ours)");
    }

    /// <summary>One repository per package route, restored once (what it restores does not depend on the switch).</summary>
    private static readonly ConcurrentDictionary<PackageRoute, Lazy<string>> Restored = new();

    /// <summary>
    /// The route's restored repository with the switch written where <paramref name="setting"/> says (every file
    /// written again, so no other row's switch stays), its outputs removed (bin/, obj/Debug/: every Copy copies
    /// again), built with --no-restore.
    /// </summary>
    private static (ConsumerRepository, ProcessResult) BuildWith(PackageRoute package, SettingRoute setting, string value)
    {
        string folder = Restored.GetOrAdd(package, route => new Lazy<string>(() =>
        {
            ConsumerRepository restored = ConsumerRepository.Create(TestScratch.NewFolder($"disable-{route}"), route);
            ProcessResult restore = InProcessBuild.Restore(Path.Combine(restored.Root, "Lib.csproj"), new Dictionary<string, string?> { ["NUGET_PACKAGES"] = restored.PackageCache });
            Assert.IsTrue(restore.Succeeded, "the restore failed:\n" + restore.Output);
            return restored.Root;
        })).Value;
        string property = $"<DisableCopyOnWrite>{value}</DisableCopyOnWrite>";
        ConsumerRepository repository = ConsumerRepository.Create(
            folder,
            package,
            projectProperties: setting == SettingRoute.ProjectFile ? property : "",
            directoryBuildProps: setting == SettingRoute.DirectoryBuildProps ? property : "");
        foreach (string output in new[] { Path.Combine(folder, "bin"), Path.Combine(folder, "obj", "Debug") })
        {
            if (Directory.Exists(output))
            {
                Directory.Delete(output, recursive: true);
            }
        }

        ProcessResult build = setting switch
        {
            SettingRoute.CommandLine => repository.TryBuildInProcess(null, "--no-restore", $"-p:DisableCopyOnWrite={value}"),
            SettingRoute.EnvironmentVariable => repository.TryBuildInProcess(new Dictionary<string, string?> { ["DisableCopyOnWrite"] = value }, "--no-restore"),
            _ => repository.TryBuildInProcess(null, "--no-restore"),
        };
        return (repository, build);
    }
}
