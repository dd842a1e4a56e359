using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// Whether something is said for the first time in this build on this MSBuild node: a key registered with the
/// engine for the build's lifetime, so a diagnosis is said once, not by every Copy or project on the node.
/// </summary>
internal static class OncePerBuild
{
    private static readonly object Lock = new();

    /// <summary>True the first time <paramref name="key"/> is asked in this build (per node); true when the engine cannot tell.</summary>
    public static bool First(IBuildEngine? engine, string key)
    {
        if (engine is not IBuildEngine4 registry)
        {
            return true;
        }

        lock (Lock)
        {
            if (registry.GetRegisteredTaskObject(key, RegisteredTaskObjectLifetime.Build) is not null)
            {
                return false;
            }

            registry.RegisterTaskObject(key, new object(), RegisteredTaskObjectLifetime.Build, allowEarlyCollection: false);
            return true;
        }
    }
}
