using System;
using System.Collections.Generic;
using Microsoft.Build.Evaluation;
using Microsoft.Build.Execution;
using Microsoft.Build.Framework;
using Microsoft.Build.Logging;

// Usage: Microsoft.Build.CopyOnWrite.MSBuild17Host <project file> [target]
// Builds the target (default Build) with a detailed console log; exit code 0 when the build succeeded.
if (args.Length is < 1 or > 2)
{
    Console.Error.WriteLine("usage: Microsoft.Build.CopyOnWrite.MSBuild17Host <project file> [target]");
    return 2;
}

using var projects = new ProjectCollection();
var project = new ProjectInstance(args[0], new Dictionary<string, string>(), toolsVersion: null, projects);
Console.WriteLine($"MSBuildVersion={project.GetPropertyValue("MSBuildVersion")}");
var parameters = new BuildParameters(projects) { Loggers = new ILogger[] { new ConsoleLogger(LoggerVerbosity.Detailed) } };
BuildResult result = BuildManager.DefaultBuildManager.Build(parameters, new BuildRequestData(project, new[] { args.Length > 1 ? args[1] : "Build" }));
return result.OverallResult == BuildResultCode.Success ? 0 : 1;
