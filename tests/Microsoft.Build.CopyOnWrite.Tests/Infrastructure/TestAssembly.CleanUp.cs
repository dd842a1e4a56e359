namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>Tests' and Reliability.Tests' cleanup: the loop file systems and the scratch folders of the run.</summary>
public static partial class TestAssembly
{
    static partial void CleanUp()
    {
        LoopFileSystems.UnmountAll();
        TestScratch.DeleteAll();
    }
}
