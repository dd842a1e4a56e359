using System;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>The one engine of this process, made on first use so that nothing runs when no file is copied.</summary>
/// <remarks>
/// Making an engine only stores the refusal cache: no engine looks at a volume before a file is copied to
/// it, so a locked, RAW or disconnected volume elsewhere on the machine cannot fail the build here.
/// </remarks>
internal static class CloneEngines
{
    private static readonly Lazy<ICloneEngine> ForThisProcess = new(Create);

    /// <summary>Shared by every Copy in the node so that what file systems refused is learnt once.</summary>
    public static ICloneEngine Current => ForThisProcess.Value;

    private static ICloneEngine Create()
    {
        var refusals = new CloneCapabilityCache();
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            return new WindowsCloneEngine(new WindowsNative(), refusals);
        }
#if NET
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Linux))
        {
            return new LinuxCloneEngine(refusals, RuntimeInformation.ProcessArchitecture);
        }

        if (RuntimeInformation.IsOSPlatform(OSPlatform.OSX) && MacNative.KnowsAbiOf(RuntimeInformation.ProcessArchitecture))
        {
            return new MacCloneEngine(new MacNative(), refusals);
        }
#endif
        return new CopyOnlyEngine(RuntimeInformation.OSDescription);
    }
}
