using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;
using Microsoft.Build.CopyOnWrite.TestKit;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Doctor;

/// <summary>
/// The doctor's verdict equals the build's, layout by layout, on real loop-mounted volumes: for each layout a small
/// application that imports the packed SDK is restored and checked by the doctor with --require-clone (exit code 3
/// when it says "does not clone"), then built for real with `-p:CopyOnWriteMode=Required` (COW001 when a file was copied
/// that could have been cloned). The two must agree. Both run in this process, each with its own copy of our assembly
/// (the doctor the test's, the build the package's), so neither sees what the other found.
/// </summary>
[TestClass]
public sealed class DoctorAgreesWithTheBuildTests
{
    internal static readonly Lazy<string> DependencyFeed = new(PackDependency);

    [ClassInitialize]
    public static void AskMSBuildHere(TestContext context) => DoctorInThisProcess.AskMSBuildHere();

    [ClassCleanup]
    public static void AskDotnetMSBuildAgain() => DoctorInThisProcess.AskDotnetMSBuild();

    [TestMethod]
    public void Everything_on_one_XFS_volume_both_say_it_clones_and_the_outputs_share_extents()
    {
        LoopFileSystem xfs = LoopFileSystems.Xfs;
        BuildLayout layout = BuildLayout.Create(xfs.NewFolder("agree-one"), xfs.NewFolder("agree-cache"), withPackage: true);

        BuildVerdicts verdicts = layout.Judge();

        verdicts.AssertBoth(clones: true);
        SharedExtents.AssertAllShared(Path.Combine(layout.Output, ConsumerRepository.ContentFile), "the content file was cloned into bin");
        SharedExtents.AssertAllShared(Path.Combine(layout.Output, "Dep.dll"), "the package's assembly was cloned from the package cache");
        Assert.IsTrue(verdicts.Facts.Any(f => f.Contains("lists 1 package", StringComparison.Ordinal) && f.Contains("Dep/1.0.0", StringComparison.Ordinal)), "the doctor read restore's result:\n" + string.Join("\n", verdicts.Facts));
    }

    /// <summary>The bug of issue 32: the doctor said "clones" here while the Required build failed.</summary>
    [TestMethod]
    public void A_package_cache_on_ext4_with_a_package_reference_both_say_it_does_not_clone()
    {
        BuildLayout layout = BuildLayout.Create(LoopFileSystems.Xfs.NewFolder("agree-cache-ext4"), LoopFileSystems.Ext4.NewFolder("agree-cache"), withPackage: true);

        BuildVerdicts verdicts = layout.Judge();

        verdicts.AssertBoth(clones: false);
        StringAssert.Contains(verdicts.Build.Output, "Dep.dll");
        StringAssert.Contains(verdicts.Doctor.Output, "CopyOnWriteMode=Required fails on them (COW001)");
    }

    [TestMethod]
    public void A_package_cache_on_ext4_without_package_references_both_say_it_clones()
    {
        BuildLayout layout = BuildLayout.Create(LoopFileSystems.Xfs.NewFolder("agree-nopkg"), LoopFileSystems.Ext4.NewFolder("agree-cache"), withPackage: false);

        BuildVerdicts verdicts = layout.Judge();

        verdicts.AssertBoth(clones: true);
        Assert.IsTrue(verdicts.Facts.Any(f => f.Contains("lists no package", StringComparison.Ordinal)), string.Join("\n", verdicts.Facts));
    }

    [TestMethod]
    [DataRow("ArtifactsPath")]
    [DataRow("OutDir")]
    public void Outputs_on_another_volume_set_in_Directory_Build_props_both_say_it_does_not_clone(string property)
    {
        string outputs = LoopFileSystems.Btrfs.NewFolder("agree-outputs");
        LoopFileSystem xfs = LoopFileSystems.Xfs;
        BuildLayout layout = BuildLayout.Create(xfs.NewFolder("agree-outputs"), xfs.NewFolder("agree-cache"), withPackage: false, directoryBuildProps: $"<{property}>{outputs}/</{property}>");

        BuildVerdicts verdicts = layout.Judge();

        verdicts.AssertBoth(clones: false);
        Assert.IsTrue(Directory.EnumerateFiles(outputs, ConsumerRepository.ContentFile, SearchOption.AllDirectories).Any(), $"the build wrote its outputs under {property}");
    }

    [TestMethod]
    public void A_repository_on_ext4_both_say_it_does_not_clone()
    {
        LoopFileSystem ext4 = LoopFileSystems.Ext4;
        BuildLayout layout = BuildLayout.Create(ext4.NewFolder("agree-ext4"), ext4.NewFolder("agree-cache"), withPackage: true);

        BuildVerdicts verdicts = layout.Judge();

        verdicts.AssertBoth(clones: false);
    }

    /// <summary>
    /// Dep restored only into a fallback folder on ext4: named in NUGET_FALLBACK_PACKAGES, Required accepts the copies
    /// (a folder every user shares, which cannot move); named only in NuGet.config, the build counts it as a folder
    /// that can move, and fails; the doctor says the same in both cases.
    /// </summary>
    [TestMethod]
    [DataRow(true)]
    [DataRow(false)]
    public void A_NuGet_fallback_folder_on_ext4_is_accepted_when_NUGET_FALLBACK_PACKAGES_names_it_and_both_say_so(bool inEnvironment)
    {
        LoopFileSystem xfs = LoopFileSystems.Xfs;
        string fallback = LoopFileSystems.Ext4.NewFolder("agree-fallback");
        BuildLayout layout = BuildLayout.Create(xfs.NewFolder("agree-fallback"), fallback, withPackage: true);
        layout.Restore("restore into what becomes the fallback folder");
        Directory.Delete(Path.Combine(layout.Root, "obj"), recursive: true);
        layout.PackageCache = xfs.NewFolder("agree-cache");
        if (inEnvironment)
        {
            layout.Environment["NUGET_FALLBACK_PACKAGES"] = fallback;
        }
        else
        {
            layout.FallbackInNuGetConfig = fallback;
        }

        BuildVerdicts verdicts = layout.Judge();

        Assert.IsFalse(Directory.Exists(Path.Combine(layout.PackageCache, "dep")), "Dep came from the fallback folder, not the package cache");
        verdicts.AssertBoth(clones: inEnvironment);
    }

    /// <summary>
    /// A project whose own target copies a file from the temp folder (TMPDIR on ext4): the build fails Required. The
    /// doctor cannot see a target's sources; it says what it assumed, and with the temp folder named to it as a folder
    /// the build copies from (--copies-from) it says what the build does.
    /// </summary>
    [TestMethod]
    public void The_temp_folder_on_ext4_for_a_project_that_copies_from_it_both_say_it_does_not_clone_once_the_doctor_is_told()
    {
        LoopFileSystem xfs = LoopFileSystems.Xfs;
        string temp = LoopFileSystems.Ext4.NewFolder("agree-temp");
        TestFiles.Write(temp, "staged.bin", 50_000);
        BuildLayout layout = BuildLayout.Create(xfs.NewFolder("agree-temp"), xfs.NewFolder("agree-cache"), withPackage: false, target: """
            <Target Name="CopyFromTemp" AfterTargets="Build">
              <Copy SourceFiles="$([System.IO.Path]::GetTempPath())staged.bin" DestinationFolder="$(OutDir)" />
            </Target>
            """);
        layout.Environment["TMPDIR"] = temp + "/";

        BuildVerdicts untold = layout.Judge();
        Assert.IsFalse(untold.BuildPasses, "the build copies from the temp folder on ext4:\n" + untold.Build.Output);
        Assert.IsTrue(untold.Assumptions.Any(a => a.Contains("temp folder", StringComparison.Ordinal)), "the doctor says what it assumed:\n" + string.Join("\n", untold.Assumptions));

        BuildVerdicts told = layout.Judge(copiesFrom: temp);
        told.AssertBoth(clones: false);

        // Listed in CopyOnWriteAcceptCopiesFrom (here from the environment, as CI would set it), both accept the copy.
        layout.Environment["CopyOnWriteAcceptCopiesFrom"] = temp;
        BuildVerdicts accepted = layout.Judge(copiesFrom: temp);
        accepted.AssertBoth(clones: true);
    }

    private static string PackDependency()
    {
        string folder = TestScratch.NewFolder("agree-dependency");
        File.WriteAllText(Path.Combine(folder, "Dep.csproj"), """
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <TargetFramework>net10.0</TargetFramework>
                <PackageId>Dep</PackageId>
                <Version>1.0.0</Version>
              </PropertyGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(folder, "Dep.cs"), "namespace Dep; public static class Payload { public static readonly byte[] Data = new byte[" + 40_000 + "]; }");
        File.WriteAllText(Path.Combine(folder, "NuGet.config"), """
            <?xml version="1.0" encoding="utf-8"?>
            <configuration><packageSources><clear /></packageSources></configuration>
            """);
        string feed = Path.Combine(folder, "feed");
        SdkPackage.Dotnet(folder, "pack", "Dep.csproj", "-c", "Release", "-o", feed, "-nologo");
        return feed;
    }
}

internal sealed record BuildVerdicts(ProcessResult Doctor, ProcessResult Build, JsonDocument Json)
{
    public bool BuildPasses => Build.Succeeded;

    public bool DoctorPasses => Doctor.Succeeded;

    public IReadOnlyList<string> Facts => Strings("facts");

    public IReadOnlyList<string> Assumptions => Strings("assumptions");

    public void AssertBoth(bool clones)
    {
        string both = $"--- doctor ---\n{Doctor.Output}\n--- Required build ---\n{Build.Output}";
        Assert.AreEqual(clones, BuildPasses, $"the Required build {(BuildPasses ? "passed" : "failed")}:\n{both}");
        Assert.AreEqual(clones ? 0 : DoctorCommand.CannotClone, Doctor.ExitCode, $"the doctor with --require-clone {(DoctorPasses ? "passed" : "failed")}:\n{both}");
        Assert.AreEqual(clones, Json.RootElement.GetProperty("repositoryClones").GetBoolean(), both);
        Assert.AreEqual(clones, Json.RootElement.GetProperty("verdict").GetProperty("clones").GetBoolean(), both);
        if (!clones)
        {
            StringAssert.Contains(Build.Output, "error COW001", both);
        }
    }

    private IReadOnlyList<string> Strings(string name)
        => Json.RootElement.GetProperty("verdict").GetProperty(name).EnumerateArray().Select(e => e.GetString()!).ToList();
}

/// <summary>An application (content file, optionally a reference to the package Dep) that imports the packed SDK, with its package cache.</summary>
internal sealed class BuildLayout
{
    private BuildLayout(string root, string packageCache)
    {
        Root = root;
        PackageCache = packageCache;
    }

    public string Root { get; }

    public string PackageCache { get; set; }

    public string? FallbackInNuGetConfig { get; set; }

    public Dictionary<string, string?> Environment { get; } = new();

    public string Output => Directory.GetDirectories(Root, "net10.0", SearchOption.AllDirectories).FirstOrDefault(d => d.Contains("/bin/", StringComparison.Ordinal)) ?? Path.Combine(Root, "bin", "Debug", "net10.0");

    public static BuildLayout Create(string root, string packageCache, bool withPackage, string directoryBuildProps = "", string target = "")
    {
        string dependency = withPackage ? DoctorAgreesWithTheBuildTests.DependencyFeed.Value : string.Empty;
        ConsumerRepository.Create(root, PackageRoute.SdkElement, directoryBuildProps: directoryBuildProps, projectProperties:
            "<OutputType>Exe</OutputType></PropertyGroup>"
            + (withPackage ? """<ItemGroup><PackageReference Include="Dep" Version="1.0.0" /></ItemGroup>""" : string.Empty)
            + target + "<PropertyGroup>");
        File.Move(Path.Combine(root, "Lib.csproj"), Path.Combine(root, "App.csproj"));
        File.WriteAllText(Path.Combine(root, "Lib.cs"), withPackage ? "System.Console.WriteLine(Dep.Payload.Data.Length);" : "System.Console.WriteLine(1);");
        var layout = new BuildLayout(root, packageCache);
        layout.WriteNuGetConfig(withPackage ? dependency : null);
        return layout;
    }

    /// <summary>The package cache and <see cref="Environment"/>, for a build in this process.</summary>
    private Dictionary<string, string?> BuildVariables => new(Environment) { ["NUGET_PACKAGES"] = PackageCache };

    /// <summary>`dotnet restore` of the application, in this process, with the layout's package cache and environment.</summary>
    public void Restore(string why) => InProcessBuild.Restore(Path.Combine(Root, "App.csproj"), BuildVariables).AssertSucceeded(why);

    /// <summary>
    /// The doctor (restoring first, as the README says; told where the build copies from, with
    /// <paramref name="copiesFrom"/>), then the Required build of what it checked, all in this process with the layout's
    /// environment.
    /// </summary>
    public BuildVerdicts Judge(string? copiesFrom = null)
    {
        WriteNuGetConfig(_dependencyFeed);
        string project = Path.Combine(Root, "App.csproj");
        Restore("restore before the doctor");
        string json = Path.Combine(Root, $"doctor-{Guid.NewGuid():N}.json");
        var said = new StringWriter();
        int exitCode = InProcessMSBuild.WithEnvironment(BuildVariables, () => DoctorCommand.Run([project], json, requireClone: true, said, said, copiesFrom is null ? null : [copiesFrom]));
        var doctor = new ProcessResult(exitCode, said.ToString());
        Assert.IsTrue(File.Exists(json), "the doctor wrote no JSON:\n" + doctor.Output);
        ProcessResult build = InProcessBuild.DotnetBuild(project, ["--no-restore", "-p:CopyOnWriteMode=Required"], BuildVariables);
        return new BuildVerdicts(doctor, build, JsonDocument.Parse(File.ReadAllText(json)));
    }

    private string? _dependencyFeed;

    private void WriteNuGetConfig(string? dependencyFeed)
    {
        _dependencyFeed = dependencyFeed;
        File.WriteAllText(Path.Combine(Root, "NuGet.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="CopyOnWriteUnderTest" value="{SdkPackage.Folder}" />
                {(dependencyFeed is null ? string.Empty : $"<add key=\"Dependency\" value=\"{dependencyFeed}\" />")}
              </packageSources>
              {(FallbackInNuGetConfig is null ? string.Empty : $"<fallbackPackageFolders><clear /><add key=\"shared\" value=\"{FallbackInNuGetConfig}\" /></fallbackPackageFolders>")}
            </configuration>
            """);
    }
}

internal static class ProcessResultAssertions
{
    public static void AssertSucceeded(this ProcessResult result, string what)
        => Assert.IsTrue(result.Succeeded, $"{what} failed:\n{result.Output}");
}
