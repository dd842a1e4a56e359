using System.Collections.Generic;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;
using Microsoft.Build.CopyOnWrite.TestKit;
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

        BuildFolders.Evaluate = InThisProcess;
    }

    [AssemblyCleanup]
    public static void Cleanup()
    {
        LoopFileSystems.UnmountAll();
        TestScratch.DeleteAll();
        TestScratchCleanup.DeleteAll();
    }

    private static MSBuildAnswer InThisProcess(string project, string? target, IReadOnlyDictionary<string, string> globalProperties, IReadOnlyList<string> names)
    {
        (IReadOnlyDictionary<string, string> values, string output) = InProcessMSBuild.Properties(project, target, globalProperties, names);
        return new MSBuildAnswer(values, output);
    }
}
