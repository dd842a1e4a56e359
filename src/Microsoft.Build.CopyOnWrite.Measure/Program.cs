using System;
using System.CommandLine;
using System.CommandLine.Invocation;
using System.Linq;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Measure;

internal static class Program
{
    /// <summary>Bad input: the command line, a volume, a package (nothing was measured).</summary>
    public const int BadInput = 2;

    /// <summary>The measurement started and failed: a restore or build of the measured repository, a volume that went away.</summary>
    public const int MeasurementFailed = 1;

    public static int Main(string[] args)
    {
        RootCommand command = CommandLine.For(args, Run);
        ParseResult parsed = command.Parse(args);
        if (parsed.Errors.Count > 0 && parsed.Action is not CommandLineAction { ClearsParseErrors: true })
        {
            Console.Error.WriteLine($"dotnet-cow-measure: {parsed.Errors[0].Message} (dotnet-cow-measure --help shows every option)");
            return BadInput;
        }

        // Ctrl+C ends the running build; the run then unmounts and removes what it made before the process exits.
        return parsed.InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = TimeSpan.FromMinutes(1) }).GetAwaiter().GetResult();
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
            Console.Error.WriteLine($"dotnet-cow-measure: {e.Message}");
            return e.ExitCode;
        }
        catch (OperationCanceledException)
        {
            Console.Error.WriteLine("dotnet-cow-measure: cancelled; volumes unmounted and work folders removed.");
            return MeasurementFailed;
        }
    }
}
