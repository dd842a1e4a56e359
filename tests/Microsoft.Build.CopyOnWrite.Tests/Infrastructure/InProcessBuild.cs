using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.TestKit;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// Builds a project in this test process (<see cref="InProcessMSBuild"/>: MSBuild's BuildManager, the installed SDK's
/// MSBuild), with the test run's package cache unless the build names another: for questions about our targets and task,
/// without a `dotnet` process per build. What a user's command does is asked of `dotnet`.
/// </summary>
public static class InProcessBuild
{
    /// <summary>`dotnet msbuild PROJECT ARGUMENTS` in this process (`dotnet build` is "-restore" with them); the switches it takes are <see cref="InProcessMSBuild.Build"/>'s.</summary>
    public static ProcessResult Build(string project, IEnumerable<string> arguments, IDictionary<string, string?>? environment = null)
    {
        (int exitCode, string output) = InProcessMSBuild.Build(project, arguments, WithPackageCache(environment));
        return new ProcessResult(exitCode, output);
    }

    /// <summary>
    /// `dotnet build PROJECT ARGUMENTS` in this process: what `dotnet build` adds to MSBuild's command line (-restore, unless
    /// --no-restore; the console logger's closing counts, -clp:Summary), then <see cref="Build"/>.
    /// </summary>
    public static ProcessResult DotnetBuild(string project, IEnumerable<string> arguments, IDictionary<string, string?>? environment = null)
    {
        string[] given = arguments.ToArray();
        string[] restore = given.Contains("--no-restore") ? [] : ["-restore"];
        return Build(project, [.. restore, "-clp:Summary", .. given.Where(argument => argument != "--no-restore")], environment);
    }

    /// <summary>`dotnet restore PROJECT` in this process.</summary>
    public static ProcessResult Restore(string project, IDictionary<string, string?>? environment = null)
        => Build(project, ["-restore", "-t:Restore", "-v:n"], environment);

    /// <summary>A property of the project as evaluated (what -getProperty: prints), in this process.</summary>
    public static string Property(string project, string name, IDictionary<string, string?>? environment = null)
        => InProcessMSBuild.Property(project, name, WithPackageCache(environment));

    /// <summary>
    /// The run's package cache unless given, and the caller's variables; not the child processes' other variables
    /// (<see cref="SdkPackage.BuildEnvironment"/>): this process's MSBuild variables are the Locator's, which the build needs.
    /// </summary>
    private static Dictionary<string, string?> WithPackageCache(IDictionary<string, string?>? environment)
    {
        var variables = new Dictionary<string, string?> { ["NUGET_PACKAGES"] = SdkPackage.PackageCache };
        foreach ((string name, string? value) in environment ?? new Dictionary<string, string?>())
        {
            variables[name] = value;
        }

        return variables;
    }
}
