using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.Locator;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;

[TestClass]
public static class TestAssembly
{
    /// <summary>
    /// What killed test processes left mounted, swept before this one makes its own volumes. The doctor run in this
    /// process asks the installed SDK's MSBuild, registered here, in this process: its tests ask what the doctor makes of
    /// MSBuild's answers, not what `dotnet msbuild` is (the installed tool's tests start it).
    /// </summary>
    [AssemblyInitialize]
    public static void Initialize(TestContext context)
    {
        System.Console.Write(StaleTestVolumes.Sweep());
        if (!MSBuildLocator.IsRegistered)
        {
            MSBuildLocator.RegisterDefaults();
        }

        DoctorInThisProcess.AskMSBuildHere();
    }

    [AssemblyCleanup]
    public static void Cleanup()
    {
        LoopFileSystems.UnmountAll();
        TestScratch.DeleteAll();
        TestScratchCleanup.DeleteAll();
    }
}
