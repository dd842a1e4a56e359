using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.IO;
using System.IO.Compression;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// Visual Studio and MSBuild.exe run MSBuild's .NET Framework build, where MSBuildRuntimeType is Full and Sdk.targets
/// hands Copy to the package's tools/net472/ assembly. Here that build is MSBuild 17.7's own .NET Framework assemblies
/// (tests/Microsoft.Build.CopyOnWrite.FullFrameworkHost) run by Mono, building a project that gets our packed SDK by
/// its &lt;Sdk&gt; element (MSBuild's default resolver, from MSBuildSDKsPath: the host has no NuGet resolver).
/// What this does not show (the Windows clone engine, MSBuild.exe's own process, Visual Studio's in-process build,
/// the multi-threaded flavour): docs/full-framework-under-mono.md.
/// </summary>
[TestClass]
public sealed class FullFrameworkFlavourTests
{
    private const string TaskAssemblyName = "Microsoft.Build.CopyOnWrite";

    /// <summary>The assembly version of every MSBuild assembly, which MSBuild.exe binds task assemblies' references to.</summary>
    private const string MSBuildAssemblyVersion = "Version=15.1.0.0";

    /// <summary>The content the consumer copies: a large and a small file, an empty one, one in a subfolder.</summary>
    private static readonly (string Name, int Bytes)[] Content = [("big.bin", 3_000_000), ("small.txt", 17), ("empty.dat", 0), ("nested/deep.bin", 65_537)];

    /// <summary>The packed SDK where MSBuild's default SDK resolver looks: MSBuildSDKsPath/&lt;SDK name&gt;/Sdk/.</summary>
    private static readonly Lazy<string> SdksFolder = new(() =>
    {
        string folder = TestScratch.NewFolder("msbuild-sdks");
        ZipFile.ExtractToDirectory(SdkPackage.PackagePath, Path.Combine(folder, TaskAssemblyName));
        return folder;
    });

    /// <summary>Before the package is packed for it: without Mono every test here is skipped with the reason, at no cost.</summary>
    [TestInitialize]
    public void RequireMono()
    {
        try
        {
            ProcessRunner.Run("mono", "--version");
        }
        catch (Win32Exception e)
        {
            Assert.Inconclusive($"SKIPPED: MSBuild's .NET Framework build runs here under Mono, which is not installed ({e.Message}); .ci/run installs Debian's mono-runtime and libmono-system-xaml4.0-cil");
        }
    }

    private static string Net472TaskAssembly => Path.Combine(SdksFolder.Value, TaskAssemblyName, "tools", "net472", "Microsoft.Build.CopyOnWrite.dll");

    [TestMethod]
    public void The_Full_flavour_is_our_net472_assembly_bound_to_MSBuild_15_1_and_copies_every_file_byte_for_byte()
    {
        string consumer = Consumer("full-flavour-copies");

        ProcessResult build = BuildWithFullFrameworkMSBuild(consumer);

        Assert.IsTrue(build.Succeeded, "MSBuild's .NET Framework build failed:\n" + build.Output);
        StringAssert.Contains(build.Output, "MSBuildRuntimeType=Full");
        StringAssert.Contains(build.Output, "MSBuildVersion=17.7.");
        Assert.AreEqual(Path.GetFullPath(Net472TaskAssembly), Path.GetFullPath(LoadedFrom(build, TaskAssemblyName)), "the Full flavour must be tools/net472/:\n" + build.Output);
        CollectionAssert.AreEquivalent(
            new[] { $"Microsoft.Build.Framework, {MSBuildAssemblyVersion}", $"Microsoft.Build.Utilities.Core, {MSBuildAssemblyVersion}" },
            MSBuildReferencesOf(build, TaskAssemblyName).Select(reference => string.Join(", ", reference.Split(", ").Take(2))).ToArray());
        StringAssert.Contains(LoadedFullName(build, "Microsoft.Build.Framework"), MSBuildAssemblyVersion);
        foreach ((string name, _) in Content)
        {
            Assert.IsTrue(TestFiles.SameBytes(Path.Combine(consumer, "content", name), Path.Combine(consumer, "out", name)), $"out/{name} differs from its source");
        }

        Assert.AreEqual(0, TestFiles.TemporaryLeftovers(consumer).Length, "a temporary file was left beside a destination");
        Assert.IsFalse(build.Output.Contains("COW006", StringComparison.Ordinal), "every copy must take the copy-only engine's own path, not the fallback:\n" + build.Output);
        Assert.AreEqual(Content.Length, new BuildLog(build.Output).CopiedFiles, build.Output);
    }

    [TestMethod]
    public void A_setting_in_the_project_file_reaches_the_task_through_CopyTaskFactory()
    {
        string consumer = Consumer("full-flavour-project-setting", projectProperties: "<CopyOnWriteMode>Required</CopyOnWriteMode>");

        ProcessResult build = BuildWithFullFrameworkMSBuild(consumer);

        StringAssert.Contains(build.Output, "Using \"Copy\" task from the task factory \"CopyTaskFactory\".");
        AssertRequiredRefusedTheCopies(build);
    }

    [TestMethod]
    public void A_global_property_reaches_the_task_registered_without_the_factory()
    {
        string consumer = Consumer("full-flavour-global-property");

        ProcessResult build = BuildWithFullFrameworkMSBuild(consumer, "-p:CopyOnWriteMode=Required");

        CollectionAssert.AreEqual(new[] { SdkPackage.TaskLoadedFrom(Path.Combine(SdksFolder.Value, TaskAssemblyName), "tools/net472/Microsoft.Build.CopyOnWrite.dll") },
            build.Output.Split('\n').Select(line => line.Trim()).Where(line => line.StartsWith("Using \"Copy\" task from", StringComparison.Ordinal)).Select(line => line.TrimEnd('.')).ToArray(),
            build.Output);
        AssertRequiredRefusedTheCopies(build);
    }

    [TestMethod]
    public void A_bad_setting_is_COW003_before_anything_is_copied()
    {
        string consumer = Consumer("full-flavour-bad-setting");

        ProcessResult build = BuildWithFullFrameworkMSBuild(consumer, "-p:CopyOnWriteMode=Sometimes");

        Assert.IsFalse(build.Succeeded, build.Output);
        StringAssert.Contains(build.Output, "error COW003");
        StringAssert.Contains(build.Output, "\"Sometimes\"");
        Assert.IsFalse(Directory.Exists(Path.Combine(consumer, "out")), "something was copied before the setting was refused:\n" + build.Output);
    }

    [TestMethod]
    public void The_stock_messages_are_MSBuild_17_7s_own_texts_and_one_it_has_none_for_names_its_text()
    {
        string folder = TestScratch.NewFolder("full-flavour-texts");
        string project = StockMessagesOn17_7.WriteProject(folder, Net472TaskAssembly);

        ProcessResult build = ProcessRunner.Run("mono", [RepositoryLayout.FullFrameworkHost, project], folder, SdkPackage.BuildEnvironment, TimeSpan.FromMinutes(5));

        StockMessagesOn17_7.AssertSaidInItsWords(build, Path.Combine(Path.GetDirectoryName(RepositoryLayout.FullFrameworkHost)!, "Microsoft.Build.Tasks.Core.dll"));
    }

    /// <summary>Required fails the build with COW001 here: the copy-only engine of the .NET Framework build cannot clone off Windows.</summary>
    private static void AssertRequiredRefusedTheCopies(ProcessResult build)
    {
        Assert.IsFalse(build.Succeeded, "Required must fail a build whose files were copied, not cloned:\n" + build.Output);
        StringAssert.Contains(build.Output, "error COW001");
        StringAssert.Contains(build.Output, "no clone support");
    }

    /// <summary>A project in a new scratch folder that gets our SDK by its &lt;Sdk&gt; element and copies <see cref="Content"/> from content/ to out/.</summary>
    private static string Consumer(string name, string projectProperties = "")
    {
        string folder = TestScratch.NewFolder(name);
        foreach ((string file, int bytes) in Content)
        {
            TestFiles.Write(Path.Combine(folder, "content"), file, bytes);
        }

        File.WriteAllText(Path.Combine(folder, "consumer.proj"), $"""
            <Project>
              <Sdk Name="{TaskAssemblyName}" />
              <PropertyGroup>
                {projectProperties}
              </PropertyGroup>
              <ItemGroup>
                <Payload Include="content/**/*" />
              </ItemGroup>
              <Target Name="Build">
                <Copy SourceFiles="@(Payload)" DestinationFolder="out/%(RecursiveDir)" />
              </Target>
            </Project>
            """);
        return folder;
    }

    /// <summary>Builds consumer.proj in <paramref name="consumer"/> with the host under Mono, with these -p: switches.</summary>
    private static ProcessResult BuildWithFullFrameworkMSBuild(string consumer, params string[] globalProperties)
    {
        IDictionary<string, string?> environment = SdkPackage.BuildEnvironment;
        environment["MSBuildSDKsPath"] = SdksFolder.Value;
        return ProcessRunner.Run("mono", [RepositoryLayout.FullFrameworkHost, Path.Combine(consumer, "consumer.proj"), .. globalProperties], consumer, environment, TimeSpan.FromMinutes(5));
    }

    /// <summary>The "Loaded assembly: NAME, Version=... from PATH" line the host prints after the build, split.</summary>
    private static (string FullName, string Location) Loaded(ProcessResult build, string assemblyName)
    {
        string prefix = $"Loaded assembly: {assemblyName}, ";
        string[] lines = build.Output.Split('\n').Select(line => line.TrimEnd('\r')).Where(line => line.StartsWith(prefix, StringComparison.Ordinal)).ToArray();
        Assert.AreEqual(1, lines.Length, $"{assemblyName} must be loaded once:\n" + build.Output);
        int from = lines[0].LastIndexOf(" from ", StringComparison.Ordinal);
        return (lines[0].Substring("Loaded assembly: ".Length, from - "Loaded assembly: ".Length), lines[0].Substring(from + " from ".Length));
    }

    private static string LoadedFrom(ProcessResult build, string assemblyName) => Loaded(build, assemblyName).Location;

    private static string LoadedFullName(ProcessResult build, string assemblyName) => Loaded(build, assemblyName).FullName;

    /// <summary>The MSBuild assemblies the loaded <paramref name="assemblyName"/> references, as the host lists them below its line.</summary>
    private static string[] MSBuildReferencesOf(ProcessResult build, string assemblyName)
        => build.Output.Split('\n').Select(line => line.TrimEnd('\r'))
            .SkipWhile(line => !line.StartsWith($"Loaded assembly: {assemblyName}, ", StringComparison.Ordinal)).Skip(1)
            .TakeWhile(line => line.StartsWith("  references ", StringComparison.Ordinal))
            .Select(line => line.Substring("  references ".Length))
            .ToArray();
}
