using System;
using Microsoft.Build.Locator;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// The one assembly set-up of the suites that run MSBuild in their own process: Tests, Reliability.Tests (which links
/// all of Infrastructure/) and Parity.Tests (which links this file). Each suite removes what it made in its CleanUp.
/// </summary>
[TestClass]
public static partial class TestAssembly
{
    /// <summary>
    /// MSBuild's assemblies (and so the stock Copy task) come from the installed .NET SDK; register before any test
    /// touches them. First, what killed test processes left mounted is swept (<see cref="StaleTestVolumes"/>).
    /// </summary>
    [AssemblyInitialize]
    public static void Initialize(TestContext context)
    {
        Console.Write(StaleTestVolumes.Sweep());
        if (!MSBuildLocator.IsRegistered)
        {
            MSBuildLocator.RegisterDefaults();
        }
    }

    [AssemblyCleanup]
    public static void Cleanup() => CleanUp();

    /// <summary>The suite's own: unmounts and deletes what its tests made.</summary>
    static partial void CleanUp();
}
