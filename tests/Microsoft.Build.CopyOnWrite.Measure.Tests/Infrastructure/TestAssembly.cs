using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;

[TestClass]
public static class TestAssembly
{
    /// <summary>What killed test processes left mounted, swept before this one makes its own volumes.</summary>
    [AssemblyInitialize]
    public static void Initialize(TestContext context) => System.Console.Write(StaleTestVolumes.Sweep());

    [AssemblyCleanup]
    public static void Cleanup()
    {
        LoopFileSystems.UnmountAll();
        TestScratch.DeleteAll();
        TestScratchCleanup.DeleteAll();
    }
}
