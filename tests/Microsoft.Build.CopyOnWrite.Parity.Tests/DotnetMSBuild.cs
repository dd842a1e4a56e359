using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Shared;

namespace Microsoft.Build.CopyOnWrite.Parity.Tests;

/// <summary>
/// `dotnet msbuild` in a fresh process, as a user would run it: no response files, no node reuse, no build server,
/// no terminal logger, and none of the test host's own MSBuild variables (set by the Locator).
/// </summary>
public static class DotnetMSBuild
{
    public static (int ExitCode, string Output) Run(string workingDirectory, IEnumerable<string> arguments, IReadOnlyDictionary<string, string>? environment = null)
    {
        var variables = new Dictionary<string, string?>
        {
            ["MSBuildExtensionsPath"] = null,
            ["MSBuildSDKsPath"] = null,
            ["MSBUILD_EXE_PATH"] = null,
            ["MSBuildLoadMicrosoftTargetsReadOnly"] = null,
            ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
            ["MSBUILDDISABLENODEREUSE"] = "1",
            ["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0",
            ["MSBUILDTERMINALLOGGER"] = "off",
        };
        foreach ((string name, string value) in environment ?? new Dictionary<string, string>())
        {
            variables[name] = value;
        }

        string[] fullArguments = new[] { "msbuild", "-nologo", "-noAutoResponse", "-nodeReuse:false" }.Concat(arguments).ToArray();
        (int exitCode, string output, _) = ChildProcess.Run("dotnet", fullArguments, workingDirectory, variables, TimeSpan.FromMinutes(3));
        return (exitCode, output);
    }
}
