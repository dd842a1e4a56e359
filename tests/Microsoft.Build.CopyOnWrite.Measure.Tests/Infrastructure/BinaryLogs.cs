using System.Collections.Generic;
using Microsoft.Build.CopyOnWrite.TestKit;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;

/// <summary>
/// Binary logs of real builds, built in this process (<see cref="InProcessMSBuild"/>: the installed SDK's MSBuild): the
/// forecast's tests ask what it reads in a build's log, not what a `dotnet` command is.
/// </summary>
internal static class BinaryLogs
{
    /// <summary>`dotnet msbuild PROJECT -bl:LOG` (with <paramref name="restore"/>, `dotnet build`), in this process; the log.</summary>
    public static string Of(string project, string log, bool restore = false)
    {
        (int exitCode, string output) = InProcessMSBuild.Build(project, restore ? ["-restore", "-bl:" + log] : ["-bl:" + log], new Dictionary<string, string?>());
        Assert.AreEqual(0, exitCode, output);
        return log;
    }
}
