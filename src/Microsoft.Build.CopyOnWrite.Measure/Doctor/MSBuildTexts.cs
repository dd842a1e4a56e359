using System;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.Loader;
using System.Threading;
using Microsoft.Build.Locator;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// Lets the Copy task that the self-test runs in this process log MSBuild's own texts, as it does in a build: the task
/// asks for Microsoft.Build.Tasks.Core by name (MSBuildHost.TasksAssembly), which a build's process has and this tool
/// does not carry, so the name resolves to the copy in the .NET SDK that Microsoft.Build.Locator finds. Without an SDK
/// the task keeps its fallback (a text's name and arguments). Not in SelfTest/, which the Windows parity program also
/// compiles: that program carries its own Microsoft.Build.Tasks.Core.
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
