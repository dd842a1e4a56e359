using System.Linq;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;

namespace Microsoft.Build.CopyOnWrite.Measure;

internal sealed record MachineInfo(string Cpu, int Cores, string Memory, string OperatingSystem, string DotnetSdk, string Msbuild)
{
    public static MachineInfo Read(IMeasurementPlatform platform, string workingDirectory)
    {
        MachineDescription machine = platform.DescribeMachine();
        string sdk = Shell.Run("dotnet", ["--version"], workingDirectory).Output.Trim();
        string msbuild = Shell.Run("dotnet", ["msbuild", "-version", "-nologo"], workingDirectory).Output.Trim().Split('\n').Last().Trim();
        return new MachineInfo(machine.Cpu, machine.Cores, machine.Memory, machine.OperatingSystem, sdk, msbuild);
    }
}
