using System;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>The one engine of this process, made on first use so that nothing runs when no file is copied.</summary>
internal static class CloneEngines
{
    private static readonly Lazy<ICloneEngine> ForThisProcess = new(Create);

    /// <summary>Shared by every Copy in the node so that what file systems refused is learnt once.</summary>
    public static ICloneEngine Current => ForThisProcess.Value;

    private static ICloneEngine Create()
    {
        var refusals = new CloneCapabilityCache();
#if NET
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Linux))
        {
            return new LinuxCloneEngine(refusals, RuntimeInformation.ProcessArchitecture);
        }
#endif
        return new CopyOnlyEngine(RuntimeInformation.OSDescription);
    }
}
