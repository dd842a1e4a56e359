using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using Microsoft.Build.Evaluation;
using Microsoft.Build.Execution;
using Microsoft.Build.Framework;
using Microsoft.Build.Logging;

namespace Microsoft.Build.CopyOnWrite.TestKit;

/// <summary>
/// Builds a project in this test process with MSBuild's BuildManager (the installed SDK's MSBuild, which the test
/// assembly registers through Microsoft.Build.Locator), as MSBuild's own tests build most of theirs: the real
/// evaluation, SDK resolution, restore and tasks, ours loaded from the package the project gets, without a `dotnet`
/// process per build. For questions about our targets and task; what a user's command does is asked of `dotnet`.
/// It takes the command line's switches that those questions use and hands them to MSBuild as its command line does;
/// it prints what that command line would (MSBuild's console logger, after any -logger:) and exits 0 or 1.
/// </summary>
public static class InProcessMSBuild
{
    /// <summary>One build at a time: the environment a build reads is this process's.</summary>
    private static readonly object OneAtATime = new();

    /// <summary>`dotnet msbuild PROJECT ARGUMENTS` in this process; `dotnet build` is "-restore" with them.</summary>
    /// <param name="arguments">
    /// -restore, -t:, -p:, -v:, -clp:, -warnAsError[:codes], -warnNotAsError:codes, -logger:, -bl:, -fl with -flp:; -m:1, -nologo
    /// and -nr are taken and change nothing (one node: this process). Any other switch fails the test: it is not given here.
    /// </param>
    /// <param name="environment">Variables set for this build only (a null value unsets one).</param>
    public static (int ExitCode, string Output) Build(string project, IEnumerable<string> arguments, IDictionary<string, string?> environment)
    {
        CommandLine commandLine = CommandLine.Parse(arguments);
        return WithEnvironment(environment, () =>
        {
            // What a logger prints to the console itself (our summary logger does) goes, in order, where the console logger's
            // lines go, as both go to a `dotnet` process's output.
            var output = new StringBuilder();
            using TextWriter printed = TextWriter.Synchronized(new StringWriter(output));
            TextWriter processConsole = Console.Out;
            Console.SetOut(printed);
            bool succeeded;
            try
            {
                ILogger[] console = [new ConsoleLogger(commandLine.Verbosity, printed.Write, colorSet: _ => { }, colorReset: () => { }) { Parameters = commandLine.ConsoleLoggerParameters }];
                // The loggers of -logger:, -bl and -fl see the build, not its restore (a summary of the build's copies, once).
                succeeded = !commandLine.Restore || Run(project, ["Restore"], commandLine.WithRestoreSession(), console, commandLine);
                succeeded = succeeded && Run(project, commandLine.Targets, commandLine.Properties, [.. commandLine.Loggers.Select(make => make()), .. console], commandLine);
            }
            finally
            {
                Console.SetOut(processConsole);
            }

            // A build that logged an error (a warning made one, too) has failed, for BuildManager as for the command line.
            return (succeeded ? 0 : 1, output.ToString());
        });
    }

    /// <summary>A property of the project as evaluated (what -getProperty: prints), in this process.</summary>
    public static string Property(string project, string name, IDictionary<string, string?> environment)
        => WithEnvironment(environment, () =>
        {
            using var projects = new ProjectCollection();
            return projects.LoadProject(project).GetPropertyValue(name);
        });

    /// <summary>
    /// What `dotnet msbuild PROJECT [-t:TARGET] [-p:NAME=VALUE...] -getProperty:NAME...` answers, in this process: the
    /// properties' values after the target (after evaluation where none is named), none when MSBuild failed, and what
    /// it printed (its errors).
    /// </summary>
    public static (IReadOnlyDictionary<string, string> Values, string Output) Properties(string project, string? target, IReadOnlyDictionary<string, string> globalProperties, IReadOnlyList<string> names)
        => WithEnvironment(new Dictionary<string, string?>(), () =>
        {
            var output = new StringBuilder();
            var console = new ConsoleLogger(LoggerVerbosity.Minimal, text => output.Append(text), colorSet: _ => { }, colorReset: () => { });
            var globals = new Dictionary<string, string>(globalProperties, StringComparer.OrdinalIgnoreCase);
            using var projects = new ProjectCollection(globals, [console], ToolsetDefinitionLocations.Default);
            ProjectInstance? state = null;
            try
            {
                if (target is null)
                {
                    state = new ProjectInstance(project, globals, toolsVersion: null, projects);
                }
                else
                {
                    var parameters = new BuildParameters(projects) { Loggers = [console], MaxNodeCount = 1, EnableNodeReuse = false };
                    var request = new BuildRequestData(project, globals, toolsVersion: null, [target], hostServices: null, BuildRequestDataFlags.ProvideProjectStateAfterBuild | BuildRequestDataFlags.ClearCachesAfterBuild);
                    BuildResult result = BuildManager.DefaultBuildManager.Build(parameters, request);
                    state = result.OverallResult == BuildResultCode.Success ? result.ProjectStateAfterBuild : null;
                }
            }
            catch (Microsoft.Build.Exceptions.InvalidProjectFileException e)
            {
                output.AppendLine($"{e.ProjectFile}: error {e.ErrorCode}: {e.BaseMessage}");
            }

            IReadOnlyDictionary<string, string> values = state is null ? new Dictionary<string, string>() : names.ToDictionary(name => name, state.GetPropertyValue);
            return (values, output.ToString());
        });

    /// <summary>
    /// Runs <paramref name="work"/> alone, with <paramref name="environment"/> over this process's, and puts the variables
    /// back after it.
    /// </summary>
    public static T WithEnvironment<T>(IDictionary<string, string?> environment, Func<T> work)
    {
        lock (OneAtATime)
        {
            Dictionary<string, string?> saved = environment.Keys.ToDictionary(name => name, Environment.GetEnvironmentVariable);
            foreach ((string name, string? value) in environment)
            {
                Environment.SetEnvironmentVariable(name, value);
            }

            try
            {
                return work();
            }
            finally
            {
                foreach ((string name, string? value) in saved)
                {
                    Environment.SetEnvironmentVariable(name, value);
                }
            }
        }
    }

    private static bool Run(string project, string[] targets, Dictionary<string, string> globalProperties, ILogger[] loggers, CommandLine commandLine)
    {
        // A collection of its own for each build: the build after a restore evaluates the project again, with what it restored.
        using var projects = new ProjectCollection(globalProperties);
        var parameters = new BuildParameters(projects)
        {
            Loggers = loggers,
            WarningsAsErrors = commandLine.WarningsAsErrors,
            WarningsNotAsErrors = commandLine.WarningsNotAsErrors,
            MaxNodeCount = 1,
            EnableNodeReuse = false,
        };
        var request = new BuildRequestData(project, globalProperties, toolsVersion: null, targets, hostServices: null, BuildRequestDataFlags.ClearCachesAfterBuild);
        return BuildManager.DefaultBuildManager.Build(parameters, request).OverallResult == BuildResultCode.Success;
    }

    private sealed class CommandLine
    {
        public bool Restore { get; private set; }

        public string[] Targets { get; private set; } = [];

        public Dictionary<string, string> Properties { get; } = new(StringComparer.OrdinalIgnoreCase);

        /// <summary>`dotnet msbuild` and `dotnet build` print at minimal verbosity unless told otherwise.</summary>
        public LoggerVerbosity Verbosity { get; private set; } = LoggerVerbosity.Minimal;

        /// <summary>Null: none; empty: every warning (-warnAsError alone); else those codes.</summary>
        public HashSet<string>? WarningsAsErrors { get; private set; }

        public HashSet<string>? WarningsNotAsErrors { get; private set; }

        /// <summary>The loggers of -logger:, -bl and -fl, made anew for each build.</summary>
        public List<Func<ILogger>> Loggers { get; } = [];

        /// <summary>-clp: (`dotnet build` gives Summary: the warning and error counts at the end).</summary>
        public string? ConsoleLoggerParameters { get; private set; }

        /// <summary>What -restore gives the restore build: a session of its own, and no imports of packages not yet restored.</summary>
        public Dictionary<string, string> WithRestoreSession() => new(Properties, StringComparer.OrdinalIgnoreCase)
        {
            ["MSBuildRestoreSessionId"] = Guid.NewGuid().ToString("D"),
            ["ExcludeRestorePackageImports"] = "true",
        };

        public static CommandLine Parse(IEnumerable<string> arguments)
        {
            var commandLine = new CommandLine();
            foreach (string argument in arguments)
            {
                string name = argument.Split(':', 2)[0].TrimStart('-', '/').ToLowerInvariant();
                string value = argument.Contains(':', StringComparison.Ordinal) ? argument.Split(':', 2)[1] : string.Empty;
                switch (name)
                {
                    case "restore":
                        commandLine.Restore = true;
                        break;
                    case "t" or "target":
                        commandLine.Targets = value.Split(';', ',', StringSplitOptions.RemoveEmptyEntries);
                        break;
                    case "p" or "property":
                        string[] pair = value.Split('=', 2);
                        commandLine.Properties[pair[0]] = pair[1];
                        break;
                    case "v" or "verbosity":
                        commandLine.Verbosity = value.ToLowerInvariant() switch
                        {
                            "q" or "quiet" => LoggerVerbosity.Quiet,
                            "m" or "minimal" => LoggerVerbosity.Minimal,
                            "n" or "normal" => LoggerVerbosity.Normal,
                            "d" or "detailed" => LoggerVerbosity.Detailed,
                            _ => LoggerVerbosity.Diagnostic,
                        };
                        break;
                    case "warnaserror" or "err":
                        commandLine.WarningsAsErrors = Codes(value);
                        break;
                    case "warnnotaserror" or "noerr":
                        commandLine.WarningsNotAsErrors = Codes(value);
                        break;
                    case "logger" or "l":
                        // CLASS,ASSEMBLY[;PARAMETERS], as -logger: takes it; ASSEMBLY a file's path.
                        string[] parts = value.Split(';', 2);
                        string[] classAndFile = parts[0].Split(',', 2);
                        string? loggerParameters = parts.Length > 1 ? parts[1] : null;
                        var description = new LoggerDescription(classAndFile[0].Trim(), null, classAndFile[1].Trim(), loggerParameters, LoggerVerbosity.Normal);
                        commandLine.Loggers.Add(() =>
                        {
                            // Made from its file as the command line makes it; the parameters are set here, as the command line sets them.
                            ILogger logger = description.CreateLogger();
                            logger.Parameters = loggerParameters;
                            return logger;
                        });
                        break;
                    case "bl" or "binarylogger":
                        commandLine.Loggers.Add(() => new BinaryLogger { Parameters = value });
                        break;
                    case "fl" or "filelogger":
                        commandLine._fileLogger = true;
                        break;
                    case "flp" or "fileloggerparameters":
                        commandLine._fileLoggerParameters = value;
                        break;
                    case "clp" or "consoleloggerparameters":
                        commandLine.ConsoleLoggerParameters = value;
                        break;
                    case "m" or "maxcpucount" when value == "1":
                        break;
                    case "nologo" or "nr" or "nodereuse":
                        break;
                    default:
                        throw new ArgumentException($"{argument}: not a switch InProcessBuild gives MSBuild; build with `dotnet` where the command line is the question");
                }
            }

            if (commandLine._fileLogger)
            {
                string? parameters = commandLine._fileLoggerParameters;
                commandLine.Loggers.Add(() => new FileLogger { Parameters = parameters, Verbosity = LoggerVerbosity.Detailed });
            }

            return commandLine;
        }

        private bool _fileLogger;

        private string? _fileLoggerParameters;

        private static HashSet<string> Codes(string list) => list.Split(';', ',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).ToHashSet(StringComparer.OrdinalIgnoreCase);
    }
}
