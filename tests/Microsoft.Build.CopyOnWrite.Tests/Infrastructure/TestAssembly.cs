using Microsoft.Build.Locator;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

[TestClass]
public static class TestAssembly
{
    /// <summary>MSBuild's assemblies come from the installed .NET SDK; register before any test touches them.</summary>
    [AssemblyInitialize]
    public static void Initialize(TestContext context)
    {
        if (!MSBuildLocator.IsRegistered)
        {
            MSBuildLocator.RegisterDefaults();
        }
    }

    [AssemblyCleanup]
    public static void Cleanup()
    {
        LoopFileSystems.UnmountAll();
        TestScratch.DeleteAll();
    }
}
