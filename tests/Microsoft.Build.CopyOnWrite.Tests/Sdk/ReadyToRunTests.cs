using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// The package's precompiled (ReadyToRun) task assemblies: one per runtime and platform in tools/&lt;flavour&gt;/&lt;tfm&gt;/
/// &lt;runtime&gt;-&lt;rid&gt;/, read as PE files; and a real build on this machine that loads the right one and runs its
/// precompiled code, with the IL assembly as the fallback where the package has none.
/// </summary>
[TestClass]
public sealed class ReadyToRunTests
{
    /// <summary>What src/ReadyToRun.targets compiles: what the package source serves crossgen2 for (the runtime packs).</summary>
    private static readonly string[] ExpectedPrecompiled =
    [
        "tools/net8.0/net8.0-linux-x64",
        "tools/net8.0/net8.0-win-x64",
        "tools/net8.0/net10.0-linux-x64",
        "tools/net8.0/net10.0-linux-arm64",
        "tools/net8.0/net10.0-win-x64",
        "tools/net8.0/net10.0-osx-x64",
        "tools/net8.0/net10.0-osx-arm64",
        "tools/multithreaded/net10.0/net10.0-linux-x64",
        "tools/multithreaded/net10.0/net10.0-linux-arm64",
        "tools/multithreaded/net10.0/net10.0-win-x64",
        "tools/multithreaded/net10.0/net10.0-osx-x64",
        "tools/multithreaded/net10.0/net10.0-osx-arm64",
    ];

    /// <summary>
    /// The ReadyToRun format version each runtime reads (readytorun.h: .NET 8 writes and reads 9.x; .NET 10 writes 16.x
    /// and refuses anything older, which is why the net8.0 flavour ships a set per runtime). An image in another format
    /// loads, but every method goes to the JIT.
    /// </summary>
    private static readonly Dictionary<string, int> FormatMajorVersionOfRuntime = new() { ["net8.0"] = 9, ["net10.0"] = 16 };

    private const uint ReadyToRunSignature = 0x00525452; // "RTR"

    [TestMethod]
    public void The_package_ships_a_ReadyToRun_image_for_each_runtime_and_platform_the_package_source_serves_and_IL_beside_them()
    {
        string[] precompiled = Directory.GetFiles(Path.Combine(SdkPackage.Extracted, "tools"), "Microsoft.Build.CopyOnWrite.dll", SearchOption.AllDirectories)
            .Select(path => Path.GetRelativePath(SdkPackage.Extracted, Path.GetDirectoryName(path)!).Replace('\\', '/'))
            .Where(folder => Path.GetFileName(folder).Contains('-'))
            .ToArray();

        CollectionAssert.AreEquivalent(ExpectedPrecompiled, precompiled);
        foreach (string il in new[] { "tools/net8.0", "tools/multithreaded/net10.0", "tools/net472", "tools/multithreaded/net472" })
        {
            using var image = new PEReader(File.OpenRead(Path.Combine(SdkPackage.Extracted, il, "Microsoft.Build.CopyOnWrite.dll")));
            Assert.AreEqual(0, image.PEHeaders.CorHeader!.ManagedNativeHeaderDirectory.Size, $"{il} must stay IL: it is the fallback for every other platform");
            Assert.IsTrue(File.Exists(Path.Combine(SdkPackage.Extracted, il, "Microsoft.Build.CopyOnWrite.pdb")), il);
        }
    }

    [TestMethod]
    [DataRow("tools/net8.0/net8.0-linux-x64")]
    [DataRow("tools/net8.0/net8.0-win-x64")]
    [DataRow("tools/net8.0/net10.0-linux-x64")]
    [DataRow("tools/net8.0/net10.0-linux-arm64")]
    [DataRow("tools/net8.0/net10.0-win-x64")]
    [DataRow("tools/net8.0/net10.0-osx-x64")]
    [DataRow("tools/net8.0/net10.0-osx-arm64")]
    [DataRow("tools/multithreaded/net10.0/net10.0-linux-x64")]
    [DataRow("tools/multithreaded/net10.0/net10.0-linux-arm64")]
    [DataRow("tools/multithreaded/net10.0/net10.0-win-x64")]
    [DataRow("tools/multithreaded/net10.0/net10.0-osx-x64")]
    [DataRow("tools/multithreaded/net10.0/net10.0-osx-arm64")]
    public void Each_precompiled_assembly_is_ReadyToRun_code_for_its_runtime_OS_and_architecture_made_from_the_packed_IL(string folder)
    {
        string[] parts = Path.GetFileName(folder).Split('-'); // net10.0, linux, x64
        string ilFolder = folder[..folder.LastIndexOf('/')];
        using var image = new PEReader(File.OpenRead(Path.Combine(SdkPackage.Extracted, folder, "Microsoft.Build.CopyOnWrite.dll")));
        using var il = new PEReader(File.OpenRead(Path.Combine(SdkPackage.Extracted, ilFolder, "Microsoft.Build.CopyOnWrite.dll")));

        CorHeader cor = image.PEHeaders.CorHeader!;
        DirectoryEntry nativeHeader = cor.ManagedNativeHeaderDirectory;
        Assert.AreNotEqual(0, nativeHeader.Size, $"{folder}: no ManagedNativeHeader, so no precompiled code");
        BlobReader header = image.GetSectionData(nativeHeader.RelativeVirtualAddress).GetReader();
        uint signature = header.ReadUInt32();
        ushort majorVersion = header.ReadUInt16();

        Assert.AreEqual(ReadyToRunSignature, signature, $"{folder}: the native header is not a ReadyToRun header");
        Assert.AreEqual(FormatMajorVersionOfRuntime[parts[0]], majorVersion, $"{folder}: ReadyToRun format {majorVersion}.x is not what {parts[0]} reads");
        Assert.IsTrue(cor.Flags.HasFlag(CorFlags.ILLibrary), $"{folder}: not flagged as a ReadyToRun library ({cor.Flags})");
        Assert.AreEqual(MachineOf(parts[1], parts[2]), (ushort)image.PEHeaders.CoffHeader.Machine, $"{folder}: compiled for another OS or architecture");
        Assert.AreEqual(il.GetMetadataReader().GetGuid(il.GetMetadataReader().GetModuleDefinition().Mvid), image.GetMetadataReader().GetGuid(image.GetMetadataReader().GetModuleDefinition().Mvid),
            $"{folder}: not compiled from the IL assembly packed beside it");
    }

    [TestMethod]
    public void A_fresh_build_on_this_machine_loads_the_precompiled_task_and_the_JIT_compiles_none_of_our_methods()
    {
        string expected = $"tools/multithreaded/net10.0/{SdkPackage.PrecompiledFolderForThisMachine}/Microsoft.Build.CopyOnWrite.dll";
        if (!ExpectedPrecompiled.Contains(Path.GetDirectoryName(expected)!.Replace('\\', '/')))
        {
            Assert.Inconclusive($"SKIPPED: the package has no precompiled task for this machine ({SdkPackage.PrecompiledFolderForThisMachine}); the IL fallback is tested below.");
        }

        (string folder, string project) = SdkPackage.ProjectImportingTheSdk("r2r-this-machine", SdkPackage.Extracted);
        // A second Copy onto another volume (tmpfs, which never clones), so that the paths of a file copied, not cloned,
        // run whatever the scratch folder's file system: the refused clone and its cache, the cross-volume diagnosis,
        // the data line and the volumes it names.
        string otherVolume = Directory.CreateDirectory(Path.Combine("/dev/shm", "cow-r2r-" + Guid.NewGuid().ToString("N")[..8])).FullName;
        File.WriteAllText(project, File.ReadAllText(project).Replace(
            "<Copy SourceFiles=\"a.txt\" DestinationFolder=\"out\" />",
            $"<Copy SourceFiles=\"a.txt\" DestinationFolder=\"out\" /><Copy SourceFiles=\"a.txt\" DestinationFolder=\"{otherVolume}\" />"));
        string jitLog = Path.Combine(folder, "jit.txt");
        IDictionary<string, string?> environment = SdkPackage.BuildEnvironment;
        environment["DOTNET_JitStdOutFile"] = jitLog;
        environment["DOTNET_JitDisasmSummary"] = "1";

        ProcessResult build;
        try
        {
            build = ProcessRunner.Run("dotnet", ["msbuild", project, "-v:d", "-nologo", "-nr:false"], folder, environment, TimeSpan.FromMinutes(5));
            Assert.AreEqual("payload", File.ReadAllText(Path.Combine(otherVolume, "a.txt")), build.Output);
        }
        finally
        {
            Directory.Delete(otherVolume, recursive: true);
        }

        Assert.IsTrue(build.Succeeded, build.Output);
        StringAssert.Contains(build.Output, SdkPackage.TaskLoadedFrom(SdkPackage.Extracted, expected), "Sdk.targets must pick the copy precompiled for this runtime, OS and architecture:\n" + build.Output);
        StringAssert.Contains(build.Output, "crossvolume=", "the data line names the other volume");
        Assert.AreEqual("payload", File.ReadAllText(Path.Combine(folder, "out", "a.txt")));
        string[] compiled = File.ReadAllLines(jitLog);
        Assert.IsTrue(compiled.Length > 100, $"the JIT listed only {compiled.Length} methods: DOTNET_JitStdOutFile did not work, so this test sees nothing");
        string[] ours = compiled.Where(line => line.Contains("Microsoft.Build.CopyOnWrite.", StringComparison.Ordinal)).ToArray();
        Assert.AreEqual(0, ours.Length, "the JIT compiled methods of our assembly, or framework generics over its types (which precompiled code cannot hold):\n" + string.Join("\n", ours));
    }

    /// <remarks>
    /// A marshalling stub (for a [DllImport] taking strings, or with SetLastError) is made by the JIT at run time and
    /// named by its signature only, so the test above cannot see it: our rename(2) had one on the first replace of
    /// every node. A replace, not a new file, so that the rename runs; the stock task's build is the baseline, as
    /// MSBuild and .NET have stubs of their own.
    /// </remarks>
    [TestMethod]
    public void A_fresh_build_that_replaces_a_file_needs_no_marshalling_stub_the_stock_task_does_not()
    {
        if (!ExpectedPrecompiled.Contains($"tools/multithreaded/net10.0/{SdkPackage.PrecompiledFolderForThisMachine}"))
        {
            Assert.Inconclusive($"SKIPPED: the package has no precompiled task for this machine ({SdkPackage.PrecompiledFolderForThisMachine}).");
        }

        string[] stock = MarshallingStubsOfAReplace("r2r-stubs-stock", "-p:DisableCopyOnWrite=true");
        string[] ours = MarshallingStubsOfAReplace("r2r-stubs-ours");

        string[] oursOnly = ours.Except(stock).ToArray();
        Assert.AreEqual(0, oursOnly.Length, "marshalling stubs the JIT made for our task only (declare the import with [LibraryImport]):\n" + string.Join("\n", oursOnly));
    }

    private static string[] MarshallingStubsOfAReplace(string name, params string[] arguments)
    {
        (string folder, string project) = SdkPackage.ProjectImportingTheSdk(name, SdkPackage.Extracted);
        Directory.CreateDirectory(Path.Combine(folder, "out"));
        File.WriteAllText(Path.Combine(folder, "out", "a.txt"), "the old content");
        string jitLog = Path.Combine(folder, "jit.txt");
        IDictionary<string, string?> environment = SdkPackage.BuildEnvironment;
        environment["DOTNET_JitStdOutFile"] = jitLog;
        environment["DOTNET_JitDisasmSummary"] = "1";

        ProcessResult build = ProcessRunner.Run("dotnet", ["msbuild", project, "-v:m", "-nologo", "-nr:false", .. arguments], folder, environment, TimeSpan.FromMinutes(5));

        Assert.IsTrue(build.Succeeded, build.Output);
        Assert.AreEqual("payload", File.ReadAllText(Path.Combine(folder, "out", "a.txt")), $"{name}: the destination was not replaced");
        string[] compiled = File.ReadAllLines(jitLog);
        Assert.IsTrue(compiled.Length > 100, $"{name}: the JIT listed only {compiled.Length} methods: DOTNET_JitStdOutFile did not work, so this test sees nothing");
        return compiled
            .Where(line => line.Contains("IL_STUB_PInvoke", StringComparison.Ordinal))
            .Select(line => line.Substring(line.IndexOf("IL_STUB_PInvoke", StringComparison.Ordinal)).Split(' ')[0])
            .Distinct()
            .ToArray();
    }

    [TestMethod]
    public void Where_the_package_has_no_precompiled_copy_for_the_platform_the_SDK_loads_the_IL_assembly()
    {
        string package = TestScratch.NewFolder("package-without-precompiled");
        CopyFolder(SdkPackage.Extracted, package);
        foreach (string precompiled in ExpectedPrecompiled)
        {
            Directory.Delete(Path.Combine(package, precompiled), recursive: true);
        }

        (string folder, string project) = SdkPackage.ProjectImportingTheSdk("r2r-fallback", package);

        ProcessResult build = SdkPackage.Dotnet(folder, "msbuild", project, "-v:d", "-nologo", "-nr:false");

        StringAssert.Contains(build.Output, SdkPackage.TaskLoadedFrom(package, "tools/multithreaded/net10.0/Microsoft.Build.CopyOnWrite.dll"), build.Output);
        Assert.AreEqual("payload", File.ReadAllText(Path.Combine(folder, "out", "a.txt")));
        Assert.AreEqual(1, new BuildLog(build.Output).SummaryLines.Count(line => line.StartsWith("CopyOnWrite: copied 1 file", StringComparison.Ordinal)), build.Output);
    }

    /// <summary>IMAGE_FILE_MACHINE of a ReadyToRun image: the architecture's, XOR-ed with a value per OS off Windows (so no other OS loads it).</summary>
    private static ushort MachineOf(string os, string architecture)
    {
        ushort machine = architecture switch { "x64" => 0x8664, "arm64" => 0xAA64, _ => throw new ArgumentException(architecture) };
        ushort osOverride = os switch { "win" => 0, "linux" => 0x7B79, "osx" => 0x4644, _ => throw new ArgumentException(os) };
        return (ushort)(machine ^ osOverride);
    }

    private static void CopyFolder(string from, string to)
    {
        foreach (string file in Directory.GetFiles(from, "*", SearchOption.AllDirectories))
        {
            string target = Path.Combine(to, Path.GetRelativePath(from, file));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }
    }
}
