using System.CommandLine;
using System.IO;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Forecast;

/// <summary>
/// `dotnet cow-measure predict BUILD.binlog`: what cloning could give a build the user already runs, from its binary
/// log and the files it left on disk, without building anything.
/// </summary>
internal static class PredictCommand
{
    public static Command Create()
    {
        var binaryLog = new Argument<string>("BINLOG")
        {
            Description = "The binary log of a build you already run (dotnet build -bl writes msbuild.binlog), with MSBuild's "
                + "Copy task or ours. Run it soon after that build: the files it copied are looked up on disk.",
        };
        var json = new Option<string?>("--json")
        {
            Description = "Also write the forecast as JSON to this file.",
            HelpName = "FILE",
        };
        var command = new Command("predict", "Forecasts what cloning could give a build, from its binary log: files and bytes that would "
            + "clone, the ceiling on build time saved, the disk space the copies take, grouped by source and destination volume, "
            + "and which move unlocks most. Builds nothing.")
        {
            binaryLog, json,
        };
        command.SetAction(result => Run(result.GetValue(binaryLog)!, result.GetValue(json), Console.Out, Console.Error));
        return command;
    }

    public static int Run(string binaryLog, string? json, TextWriter output, TextWriter error)
    {
        try
        {
            CopyForecast forecast = Forecast(binaryLog);
            output.Write(ForecastReport.Text(forecast));
            if (json is not null)
            {
                string path = Path.GetFullPath(json);
                try
                {
                    File.WriteAllText(path, ForecastReport.Json(forecast));
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                    throw new MeasureException($"predict --json {json}: cannot write it ({e.Message}); name a file in a folder you can write to.");
                }

                output.WriteLine();
                output.WriteLine($"JSON: {path}");
            }

            return 0;
        }
        catch (MeasureException e)
        {
            error.WriteLine($"dotnet cow-measure: {e.Message}");
            return e.ExitCode;
        }
    }

    public static CopyForecast Forecast(string binaryLog)
        => CopyForecast.From(BinaryLogCopies.Read(binaryLog), VolumeFactsInspector.ForThisProcess());
}
