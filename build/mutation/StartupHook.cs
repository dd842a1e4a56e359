using System;
using System.IO;
using System.Reflection;

/// <summary>
/// Finds MSBuild in a test host before test discovery runs, for mutation runs only. Stryker's switch between mutants
/// is found by listing the public types of each assembly as it loads; the task assembly's derive from MSBuild's, which
/// resolve only once Microsoft.Build.Locator is registered. The suites register it in their assembly set-up, after
/// discovery has loaded the task assembly, so without this hook the listing fails, no mutant is ever switched on and
/// every one "survives" (docs/test-strength.md).
/// </summary>
internal static class StartupHook
{
    public static void Initialize()
    {
        string locator = Path.Combine(AppContext.BaseDirectory, "Microsoft.Build.Locator.dll");
        bool testHost = Path.GetFileName(Environment.GetCommandLineArgs()[0]) == "testhost.dll";
        if (!testHost || !File.Exists(locator))
        {
            return;
        }

        Type registry = Assembly.LoadFrom(locator).GetType("Microsoft.Build.Locator.MSBuildLocator", throwOnError: true)!;
        registry.GetMethod("RegisterDefaults", Type.EmptyTypes)!.Invoke(null, null);
    }
}
