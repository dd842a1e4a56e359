using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.TestKit;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;

/// <summary>What to ask our Copy task, run in-process. Plain types only: MSTest reflects over this assembly before MSBuild can load.</summary>
public sealed class CopyRequest
{
    public string[] Sources { get; init; } = Array.Empty<string>();

    public string[]? Destinations { get; init; }

    public string? DestinationFolder { get; init; }

    /// <summary>Small by default so failure paths (MSB3026, MSB3027, MSB3021) show up quickly.</summary>
    public int Retries { get; init; } = 1;

    public int RetryDelayMilliseconds { get; init; }

    public bool UseHardlinksIfPossible { get; init; }

    public bool UseSymboliclinksIfPossible { get; init; }

    /// <summary>Null: the process-wide engine every Copy in an MSBuild node shares.</summary>
    internal ICloneEngine? Engine { get; init; }

    /// <summary>Runs on the test thread while Execute runs on another; may cancel the task.</summary>
    public Action<RunningCopy>? WhileRunning { get; init; }
}

/// <summary>A Copy that is executing: what it logged so far, and its Cancel().</summary>
public sealed class RunningCopy
{
    private readonly Action _cancel;
    private readonly Func<int> _warnings;

    internal RunningCopy(Action cancel, Func<int> warnings)
    {
        _cancel = cancel;
        _warnings = warnings;
    }

    public Stopwatch? CancelledAt { get; private set; }

    public int WarningCount => _warnings();

    public void Cancel()
    {
        CancelledAt = Stopwatch.StartNew();
        _cancel();
    }
}

/// <summary>What the task did: its result, outputs and every diagnostic, as strings.</summary>
public sealed class CopyRun
{
    public bool Succeeded { get; init; }

    public IReadOnlyList<string> ErrorCodes { get; init; } = Array.Empty<string>();

    public IReadOnlyList<string> WarningCodes { get; init; } = Array.Empty<string>();

    public IReadOnlyList<string> ErrorMessages { get; init; } = Array.Empty<string>();

    public IReadOnlyList<string> Messages { get; init; } = Array.Empty<string>();

    public IReadOnlyList<string> CopiedFiles { get; init; } = Array.Empty<string>();

    public string Log { get; init; } = string.Empty;

    /// <summary>From Cancel() to Execute's return, when the test cancelled.</summary>
    public TimeSpan? CancelToReturn { get; init; }

    public override string ToString() => $"Execute returned {Succeeded}; log:\n{Log}";
}

/// <summary>Runs our Copy task in-process with a recording build engine, as an MSBuild node would.</summary>
public static class OurCopy
{
    public static CopyRun Run(CopyRequest request)
    {
        var engine = new RecordingBuildEngine();
        var task = new Copy(request.Engine, _ => null) // a clean environment: no MSBUILD* variable from the test host
        {
            BuildEngine = engine,
            SourceFiles = request.Sources.Select(path => (ITaskItem)new TaskItem(path)).ToArray(),
            DestinationFiles = request.Destinations?.Select(path => (ITaskItem)new TaskItem(path)).ToArray(),
            DestinationFolder = request.DestinationFolder is null ? null : new TaskItem(request.DestinationFolder),
            Retries = request.Retries,
            RetryDelayMilliseconds = request.RetryDelayMilliseconds,
            UseHardlinksIfPossible = request.UseHardlinksIfPossible,
            UseSymboliclinksIfPossible = request.UseSymboliclinksIfPossible,
        };

        var running = new RunningCopy(task.Cancel, () => engine.Warnings.Count);
        var execution = System.Threading.Tasks.Task.Run(task.Execute);
        request.WhileRunning?.Invoke(running);
        if (!execution.Wait(TimeSpan.FromMinutes(2)))
        {
            task.Cancel();
            throw new TimeoutException($"Copy.Execute did not return within 2 minutes (it hangs). Log so far:\n{engine.Log}");
        }

        TimeSpan? cancelToReturn = running.CancelledAt?.Elapsed;
        return new CopyRun
        {
            Succeeded = execution.Result,
            ErrorCodes = engine.Errors.Select(e => e.Code ?? string.Empty).ToList(),
            WarningCodes = engine.Warnings.Select(e => e.Code ?? string.Empty).ToList(),
            ErrorMessages = engine.Errors.Select(e => e.Message ?? string.Empty).ToList(),
            Messages = engine.Messages.Select(e => e.Message ?? string.Empty).ToList(),
            CopiedFiles = task.CopiedFiles?.Select(item => item.ItemSpec).ToList() ?? new List<string>(),
            Log = engine.Log,
            CancelToReturn = cancelToReturn,
        };
    }

    /// <summary>One source to one destination, retries as given.</summary>
    public static CopyRun File(string source, string destination, int retries = 1)
        => Run(new CopyRequest { Sources = new[] { source }, Destinations = new[] { destination }, Retries = retries });
}

/// <summary>MSBuild's own Copy task (from the installed SDK), run in-process the same way, for comparison.</summary>
public static class StockCopy
{
    public static CopyRun Run(CopyRequest request)
    {
        var parameters = new Dictionary<string, object?>
        {
            ["SourceFiles"] = request.Sources.Select(path => new TestKit.Parity.ParityItem(path)).ToArray(),
            ["Retries"] = request.Retries,
            ["RetryDelayMilliseconds"] = request.RetryDelayMilliseconds,
            ["UseHardlinksIfPossible"] = request.UseHardlinksIfPossible,
            ["UseSymboliclinksIfPossible"] = request.UseSymboliclinksIfPossible,
        };
        if (request.Destinations is not null)
        {
            parameters["DestinationFiles"] = request.Destinations.Select(path => new TestKit.Parity.ParityItem(path)).ToArray();
        }

        if (request.DestinationFolder is not null)
        {
            parameters["DestinationFolder"] = new TestKit.Parity.ParityItem(request.DestinationFolder);
        }

        TestKit.Parity.TaskRunResult result = TestKit.Parity.TaskDriver.Run(TestKit.Parity.TaskDriver.CreateStockCopy(), parameters);
        return new CopyRun
        {
            Succeeded = result.Success,
            ErrorCodes = result.Events.Where(e => e.Kind == "error").Select(e => e.Code ?? string.Empty).ToList(),
            WarningCodes = result.Events.Where(e => e.Kind == "warning").Select(e => e.Code ?? string.Empty).ToList(),
            ErrorMessages = result.Events.Where(e => e.Kind == "error").Select(e => e.Text).ToList(),
            Messages = result.Events.Where(e => e.Kind == "message").Select(e => e.Text).ToList(),
            CopiedFiles = result.CopiedFiles?.Select(item => item.ItemSpec).ToList() ?? new List<string>(),
            Log = string.Join(Environment.NewLine, result.Events) + (result.Exception is null ? string.Empty : Environment.NewLine + "exception: " + result.Exception),
        };
    }

    public static CopyRun File(string source, string destination, int retries = 1)
        => Run(new CopyRequest { Sources = new[] { source }, Destinations = new[] { destination }, Retries = retries });
}
