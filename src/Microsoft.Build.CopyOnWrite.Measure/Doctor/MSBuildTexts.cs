using System;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.Loader;
using System.Threading;
using Microsoft.Build.Locator;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// Resolves Microsoft.Build.Tasks.Core, which the self-test's Copy task loads by name for MSBuild's texts, to the .NET
/// SDK's copy. Kept out of SelfTest/, which the Windows parity program compiles with a Tasks.Core of its own.
/// </summary>
internal static class MSBuildTexts
{
    private const string TasksAssemblyName = "Microsoft.Build.Tasks.Core";

    private static int s_installed;

    /// <summary>Installs the resolver once per process; the SDK is looked for at the task's first message, not before.</summary>
    public static void FromInstalledSdk()
    {
        if (Interlocked.Exchange(ref s_installed, 1) == 0)
        {
            AssemblyLoadContext.Default.Resolving += (context, name) =>
                name.Name == TasksAssemblyName && FindInSdk() is string path ? context.LoadFromAssemblyPath(path) : null;
        }
    }

    private static string? FindInSdk()
    {
        try
        {
            // The SDK a build in this folder would use (its global.json), newest first when several match.
            return MSBuildLocator.QueryVisualStudioInstances(new VisualStudioInstanceQueryOptions { DiscoveryTypes = DiscoveryType.DotNetSdk, WorkingDirectory = Environment.CurrentDirectory })
                .Select(sdk => Path.Combine(sdk.MSBuildPath, TasksAssemblyName + ".dll"))
                .FirstOrDefault(File.Exists);
        }
        catch (Exception e) when (e is InvalidOperationException or IOException or DllNotFoundException or BadImageFormatException)
        {
            return null; // no usable SDK (hostfxr missing or refusing): the task's fallback names each text instead
        }
    }
}
