using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using Microsoft.Build.Evaluation;
using Microsoft.Build.Execution;
using Microsoft.Build.Framework;
using Microsoft.Build.Logging;

namespace Microsoft.Build.CopyOnWrite.FullFrameworkHost;

/// <summary>
/// Usage: mono Microsoft.Build.CopyOnWrite.FullFrameworkHost.exe &lt;project file&gt; [-p:Name=Value]...
/// Builds the project's Build target with MSBuild's .NET Framework engine and a detailed console log, then names every
/// assembly of ours and of MSBuild's that the build loaded and where from. Exit code 0 when the build succeeded.
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length < 1)
        {
            Console.Error.WriteLine("usage: Microsoft.Build.CopyOnWrite.FullFrameworkHost.exe <project file> [-p:Name=Value]...");
            return 2;
        }

        // MSBuild's .NET Framework build finds its tools folder (and so the .tasks files) from MSBUILD_EXE_PATH; outside
        // a Visual Studio or MSBuild.exe layout, and not on Windows, it throws PlatformNotSupportedException without it.
        Environment.SetEnvironmentVariable("MSBUILD_EXE_PATH", typeof(Program).Assembly.Location);
        return Build(args[0], GlobalProperties(args.Skip(1)));
    }

    private static Dictionary<string, string> GlobalProperties(IEnumerable<string> switches)
    {
        var properties = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (string property in switches.Select(argument => argument.StartsWith("-p:", StringComparison.Ordinal) ? argument.Substring(3) : throw new ArgumentException("not a -p: switch: " + argument)))
        {
            int equals = property.IndexOf('=');
            properties[property.Substring(0, equals)] = property.Substring(equals + 1);
        }

        return properties;
    }

    private static int Build(string projectFile, Dictionary<string, string> globalProperties)
    {
        using (var projects = new ProjectCollection(globalProperties))
        {
            var project = new ProjectInstance(projectFile, globalProperties, toolsVersion: null, projects);
            Console.WriteLine($"MSBuildVersion={project.GetPropertyValue("MSBuildVersion")}");
            Console.WriteLine($"MSBuildRuntimeType={project.GetPropertyValue("MSBuildRuntimeType")}");
            var parameters = new BuildParameters(projects) { Loggers = new ILogger[] { new ConsoleLogger(LoggerVerbosity.Detailed) } };
            BuildResult result = BuildManager.DefaultBuildManager.Build(parameters, new BuildRequestData(project, new[] { "Build" }));
            foreach (Assembly assembly in AppDomain.CurrentDomain.GetAssemblies().Where(a => a.GetName().Name.StartsWith("Microsoft.Build", StringComparison.Ordinal)))
            {
                Console.WriteLine($"Loaded assembly: {assembly.FullName} from {assembly.Location}");
                foreach (AssemblyName reference in assembly.GetReferencedAssemblies().Where(r => r.Name.StartsWith("Microsoft.Build", StringComparison.Ordinal)))
                {
                    Console.WriteLine($"  references {reference.FullName}");
                }
            }

            return result.OverallResult == BuildResultCode.Success ? 0 : 1;
        }
    }
}
