using System.Collections.Generic;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;
using Microsoft.Build.CopyOnWrite.TestKit;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// The doctor run in a test process asks that process's MSBuild (the installed SDK's, registered by the Locator) for a
/// project's folders instead of starting `dotnet msbuild`: such tests ask what the doctor makes of MSBuild's answers.
/// The installed tool's tests start it as a user does.
/// </summary>
internal static class DoctorInThisProcess
{
    public static void AskMSBuildHere() => BuildFolders.Evaluate = Properties;

    public static void AskDotnetMSBuild() => BuildFolders.Evaluate = BuildFolders.DotnetMSBuild;

    private static MSBuildAnswer Properties(string project, string? target, IReadOnlyDictionary<string, string> globalProperties, IReadOnlyList<string> names)
    {
        (IReadOnlyDictionary<string, string> values, string output) = InProcessMSBuild.Properties(project, target, globalProperties, names);
        return new MSBuildAnswer(values, output);
    }
}
