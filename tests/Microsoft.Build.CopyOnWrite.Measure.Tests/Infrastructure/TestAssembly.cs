using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;

[TestClass]
public static class TestAssembly
{
    [AssemblyCleanup]
    public static void Cleanup()
    {
        LoopFileSystems.UnmountAll();
        TestScratch.DeleteAll();
        TestScratchCleanup.DeleteAll();
    }
}
