using System;
using System.Collections.Generic;
using System.CommandLine;
using System.CommandLine.Invocation;
using System.CommandLine.Parsing;
using System.Linq;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Measure;

internal static class Program
{
    /// <summary>Bad input: the command line, a volume, a package (nothing was measured).</summary>
    public const int BadInput = 2;

    /// <summary>The measurement started and failed: a restore or build of the measured repository, a volume that went away.</summary>
    public const int MeasurementFailed = 1;

    /// <summary>How users type the tool (a local or global .NET tool): every message and report names it so.</summary>
    public const string Name = "dotnet cow-measure";

    public static int Main(string[] args)
    {
        RootCommand command = CommandLine.For(args, Run);
        ParseResult parsed = command.Parse(args);
        if (parsed.Action is CommandLineAction { ClearsParseErrors: true })
        {
            return parsed.Invoke(); // --help, --version
        }

        // An option the command does not know would otherwise be taken for its folder or file argument.
        string? unknown = parsed.Tokens.FirstOrDefault(t => t.Type == TokenType.Argument && t.Value.Length > 1 && t.Value[0] == '-' && (char.IsLetter(t.Value[1]) || t.Value[1] == '-'))?.Value;
        if (unknown is not null || parsed.Errors.Count > 0)
        {
            Command chosen = parsed.CommandResult.Command;
            string where = chosen is RootCommand ? Name : $"{Name} {chosen.Name}";
            Console.Error.WriteLine($"{where}: {(unknown is null ? parsed.Errors[0].Message : $"unknown option {unknown}.")}");

            // A value a validator refused (no such file...) is said in its one line; a command line of the wrong shape gets the usage.
            if (unknown is not null || parsed.Errors[0].SymbolResult is not (ArgumentResult or OptionResult { Tokens.Count: > 0 }))
            {
                Console.Error.WriteLine($"Usage: {Usage(chosen)}   ({where} --help says what each does)");
            }

            return BadInput;
        }

        // Ctrl+C ends the running build; the run then unmounts and removes what it made before the process exits.
        return parsed.InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = TimeSpan.FromMinutes(1) }).GetAwaiter().GetResult();
    }

    /// <summary>"dotnet cow-measure doctor [FOLDER...] [--json FILE] ...": the command's arguments and options, as --help lists them.</summary>
    private static string Usage(Command command)
    {
        string name = command is RootCommand ? Name : $"{Name} {command.Name}";
        IEnumerable<string> arguments = command.Arguments.Select(a => a.Arity.MinimumNumberOfValues == 0 ? $"[{a.Name}{(a.Arity.MaximumNumberOfValues > 1 ? "..." : string.Empty)}]" : a.Name);
        IEnumerable<string> options = command.Options.Where(o => !o.Hidden && o.Name is not ("--help" or "--version")).Select(o =>
        {
            string text = o.Name + (o is Option<bool> ? string.Empty : " " + (o.HelpName ?? "VALUE"));
            return o.Required ? text : $"[{text}]";
        });
        string usage = string.Join(" ", new[] { name }.Concat(arguments).Concat(options));
        return command.Subcommands.Count == 0 ? usage : $"{usage}; or {name} {string.Join("|", command.Subcommands.Select(c => c.Name))} ...";
    }

    private static int Run(Options options, CancellationToken cancellation)
    {
        try
        {
            Measurement.Run(options, cancellation);
            return 0;
        }
        catch (MeasureException e)
        {
            Console.Error.WriteLine($"dotnet cow-measure: {e.Message}");
            return e.ExitCode;
        }
        catch (OperationCanceledException)
        {
            Console.Error.WriteLine("dotnet cow-measure: cancelled; volumes unmounted and work folders removed.");
            return MeasurementFailed;
        }
    }
}
