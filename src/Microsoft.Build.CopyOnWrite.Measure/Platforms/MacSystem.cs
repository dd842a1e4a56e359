using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>What macOS answers, as it answers it: a value, or the errno of the call.</summary>
internal interface IMacSystem : IMacVolumeSystem
{
    void SyncAll();

    SystemAnswer<double> LoadAverage();

    /// <summary>A sysctl string value by name, or null.</summary>
    string? Sysctl(string name);
}

/// <summary>The real answers: thin calls into libSystem (64-bit struct statfs, as on every Mac .NET runs on).</summary>
[SupportedOSPlatform("macos")]
internal sealed unsafe partial class MacSystem : MacVolumeSystem, IMacSystem
{
    public void SyncAll() => sync();

    public SystemAnswer<double> LoadAverage()
    {
        double* loads = stackalloc double[3];
        return getloadavg(loads, 3) >= 1 ? SystemAnswer<double>.Ok(loads[0]) : SystemAnswer<double>.Failed(-1);
    }

    public string? Sysctl(string name)
    {
        nuint length = 0;
        if (sysctlbyname(name, null, &length, null, 0) != 0 || length == 0)
        {
            return null;
        }

        byte[] value = new byte[(int)length];
        fixed (byte* pointer = value)
        {
            if (sysctlbyname(name, pointer, &length, null, 0) != 0)
            {
                return null;
            }

            return CString(pointer, (int)length);
        }
    }

    [LibraryImport(LibSystem)]
    private static partial void sync();

    [LibraryImport(LibSystem)]
    private static partial int getloadavg(double* loads, int count);

    [LibraryImport(LibSystem, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int sysctlbyname(string name, void* value, nuint* length, void* newValue, nuint newLength);
}
