using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// Which engine a platform gets. The Linux engine's system calls take 64-bit time_t and off_t, so only a 64-bit
/// process may use it: a 32-bit one (linux-arm, x86) would set every destination's time near 1970.
/// </summary>
[TestClass]
public sealed class CloneEngineChoiceTests
{
    [TestMethod]
    [DataRow(Architecture.X64)]
    [DataRow(Architecture.Arm64)]
    [DataRow(Architecture.S390x)]
    [DataRow(Architecture.Ppc64le)]
    [DataRow(Architecture.RiscV64)]
    [DataRow(Architecture.LoongArch64)]
    public void A_64_bit_Linux_process_gets_the_Linux_engine(Architecture architecture)
    {
        EngineChoice choice = CloneEngines.Choose(OSPlatform.Linux, architecture, is64BitProcess: true, cLibraryHasStatx: true);

        Assert.AreEqual(EngineKind.Linux, choice.Kind);
        Assert.AreEqual(architecture, choice.Architecture);
    }

    [TestMethod]
    [DataRow(Architecture.Arm, "Linux, 32-bit Arm process")]
    [DataRow(Architecture.Armv6, "Linux, 32-bit Armv6 process")]
    [DataRow(Architecture.X86, "Linux, 32-bit X86 process")]
    public void A_32_bit_Linux_process_copies_with_the_plain_engine_and_says_why(Architecture architecture, string reason)
    {
        EngineChoice choice = CloneEngines.Choose(OSPlatform.Linux, architecture, is64BitProcess: false, cLibraryHasStatx: true);

        Assert.AreEqual(EngineKind.CopyOnly, choice.Kind);
        Assert.AreEqual(reason, choice.CopyOnlyReason);
        Assert.AreEqual(
            $"this platform has no clone support ({reason})",
            CopySummary.DescribeFallback(FallbackReason.PlatformCannotClone, choice.CopyOnlyReason));
    }

    [TestMethod]
    [DataRow(Architecture.X64)]
    [DataRow(Architecture.Arm64)]
    public void A_32_bit_process_is_never_given_the_Linux_engine_whatever_the_processor_says(Architecture architecture)
    {
        Assert.AreEqual(EngineKind.CopyOnly, CloneEngines.Choose(OSPlatform.Linux, architecture, is64BitProcess: false, cLibraryHasStatx: true).Kind);
    }

    [TestMethod]
    public void A_64_bit_processor_whose_encodings_are_unchecked_copies()
    {
        EngineChoice choice = CloneEngines.Choose(OSPlatform.Linux, Architecture.Wasm, is64BitProcess: true, cLibraryHasStatx: true);

        Assert.AreEqual(EngineKind.CopyOnly, choice.Kind);
        Assert.AreEqual("Linux on Wasm", choice.CopyOnlyReason);
    }

    [TestMethod]
    [DataRow(Architecture.X64, true)]
    [DataRow(Architecture.Arm64, true)]
    [DataRow(Architecture.X86, false)]
    [DataRow(Architecture.Arm, false)]
    public void Windows_gets_the_Windows_engine_on_every_processor(Architecture architecture, bool is64BitProcess)
    {
        Assert.AreEqual(EngineKind.Windows, CloneEngines.Choose(OSPlatform.Windows, architecture, is64BitProcess, cLibraryHasStatx: false).Kind);
    }

    [TestMethod]
    [DataRow(Architecture.X64, "Mac")]
    [DataRow(Architecture.Arm64, "Mac")]
    [DataRow(Architecture.X86, "CopyOnly")]
    public void macOS_gets_the_Mac_engine_only_where_its_struct_layouts_are_known(Architecture architecture, string expected)
    {
        Assert.AreEqual(expected, CloneEngines.Choose(OSPlatform.OSX, architecture, is64BitProcess: architecture != Architecture.X86, cLibraryHasStatx: false).Kind.ToString());
    }

    [TestMethod]
    public void Another_OS_copies_and_names_itself_in_the_reason()
    {
        EngineChoice choice = CloneEngines.Choose(OSPlatform.FreeBSD, Architecture.X64, is64BitProcess: true, cLibraryHasStatx: true);

        Assert.AreEqual(EngineKind.CopyOnly, choice.Kind);
        Assert.IsNull(choice.CopyOnlyReason, "the engine then gives the OS description");
    }

    [TestMethod]
    public void This_x64_Linux_machine_keeps_the_Linux_engine()
    {
        Assert.AreEqual(EngineKind.Linux, CloneEngines.Choose(OSPlatform.Linux, RuntimeInformation.ProcessArchitecture, System.Environment.Is64BitProcess, LinuxNative.HasStatx).Kind);
        string folder = TestScratch.NewFolder("engine-choice-current");
        string source = TestFiles.Write(folder, "source.bin", 10_000);
        CloneResult result = CloneEngines.Current.CloneOrCopy(source, Path.Combine(folder, "out.bin"), CancellationToken.None);
        Assert.IsNull(CloneEngines.SelectionFault, "the Linux engine was made");
        Assert.AreNotEqual(FallbackReason.PlatformCannotClone, result.Reason, "the Linux engine, inside the fallback ladder, not the copy-only engine: " + result.Detail);
    }

    [TestMethod]
    public void The_plain_engine_chosen_for_a_32_bit_process_copies_the_bytes_and_the_times_and_says_why()
    {
        string folder = TestScratch.NewFolder("engine-choice-32");
        string source = TestFiles.Write(folder, "source.bin", 100_000);
        var written = new System.DateTime(2021, 3, 4, 5, 6, 7, System.DateTimeKind.Utc).AddTicks(1234567);
        File.SetLastWriteTimeUtc(source, written);
        string destination = Path.Combine(folder, "destination.bin");
        ICloneEngine engine = CloneEngines.Create(CloneEngines.Choose(OSPlatform.Linux, Architecture.Arm, is64BitProcess: false, cLibraryHasStatx: true), new CloneCapabilityCache());

        CloneResult result = engine.CloneOrCopy(source, destination, CancellationToken.None);

        Assert.IsInstanceOfType<CopyOnlyEngine>(engine);
        Assert.AreEqual(CloneMethod.Copied, result.Method);
        Assert.AreEqual(FallbackReason.PlatformCannotClone, result.Reason);
        Assert.AreEqual("Linux, 32-bit Arm process", result.Detail);
        Assert.AreEqual(100_000L, result.Bytes);
        Assert.IsTrue(TestFiles.SameBytes(source, destination));
        Assert.AreEqual(written, File.GetLastWriteTimeUtc(destination));
    }
}
