using System;
using System.Collections;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.TestKit.Parity;

/// <summary>
/// A logger for `dotnet msbuild -logger:ParityLogger,TestKit.dll;out.jsonl`: writes one JSON line per event
/// that a task named Copy logged (errors, warnings, messages, its output items) and per Copy result, each
/// tagged with the target it ran in and that target's project, so a differential test can compare the stock task and
/// ours, each side a project of its own in one build.
/// </summary>
public sealed class ParityLogger : ILogger
{
    private readonly ConcurrentDictionary<(int Node, int Target), Target> _targets = new();
    private readonly ConcurrentDictionary<(int Node, int Task), Target> _copyTasks = new();
    private StreamWriter? _writer;

    public LoggerVerbosity Verbosity { get; set; } = LoggerVerbosity.Diagnostic;

    public string? Parameters { get; set; }

    public void Initialize(IEventSource eventSource)
    {
        _writer = new StreamWriter(Parameters ?? throw new LoggerException("ParityLogger needs the output file as its parameter."));
        if (eventSource is IEventSource3 source3)
        {
            source3.IncludeTaskInputs(); // makes the engine log task outputs as TaskParameterEventArgs
        }

        eventSource.AnyEventRaised += OnEvent;
    }

    public void Shutdown() => _writer?.Dispose();

    private void OnEvent(object sender, BuildEventArgs e)
    {
        BuildEventContext? context = e.BuildEventContext;
        Target target = TargetOf(context);
        switch (e)
        {
            case TargetStartedEventArgs started when context is not null:
                _targets[(context.NodeId, context.TargetId)] = new Target(started.TargetName, started.ProjectFile ?? string.Empty);
                return;
            case TaskStartedEventArgs started when context is not null && started.TaskName == "Copy":
                _copyTasks[(context.NodeId, context.TaskId)] = target;
                return;
            case TaskFinishedEventArgs finished when context is not null && finished.TaskName == "Copy":
                Write(new { target = target.Name, project = target.Project, kind = "result", success = finished.Succeeded });
                return;
            case TaskParameterEventArgs parameter when IsInCopy(context, out Target copy) && parameter.Kind == TaskParameterMessageKind.TaskOutput:
                Write(new { target = copy.Name, project = copy.Project, kind = "output", name = parameter.ItemType, items = Items(parameter.Items) });
                return;
            case TaskParameterEventArgs:
                return;
            case BuildErrorEventArgs error:
                Write(new { target = target.Name, project = target.Project, kind = "error", code = error.Code, text = error.Message, helpKeyword = error.HelpKeyword, sender = error.SenderName });
                return;
            case BuildWarningEventArgs warning:
                Write(new { target = target.Name, project = target.Project, kind = "warning", code = warning.Code, text = warning.Message, helpKeyword = warning.HelpKeyword, sender = warning.SenderName });
                return;
            case BuildMessageEventArgs message when IsInCopy(context, out Target copy):
                Write(new { target = copy.Name, project = copy.Project, kind = "message", importance = message.Importance.ToString(), text = message.Message });
                return;
            case BuildMessageEventArgs message when message.Message?.StartsWith("PARITY-", StringComparison.Ordinal) == true:
                Write(new { target = target.Name, project = target.Project, kind = "marker", text = message.Message });
                return;
        }
    }

    private bool IsInCopy(BuildEventContext? context, out Target target)
    {
        target = Unknown;
        return context is not null && _copyTasks.TryGetValue((context.NodeId, context.TaskId), out target!);
    }

    private Target TargetOf(BuildEventContext? context)
        => context is not null && _targets.TryGetValue((context.NodeId, context.TargetId), out Target? target) ? target : Unknown;

    private static readonly Target Unknown = new("?", string.Empty);

    private sealed record Target(string Name, string Project);

    private static object Items(IList? items)
    {
        var list = new List<object>();
        foreach (object? item in items ?? Array.Empty<object>())
        {
            if (item is ITaskItem taskItem)
            {
                ObservedItem observed = TaskDriver.Observe(taskItem);
                list.Add(new { spec = observed.ItemSpec, escaped = observed.EscapedSpec, metadata = observed.Metadata.ToDictionary(m => m.Key, m => m.Value) });
            }
            else
            {
                list.Add(new { spec = item?.ToString() ?? string.Empty, escaped = item?.ToString() ?? string.Empty, metadata = new Dictionary<string, string>() });
            }
        }

        return list;
    }

    private void Write(object record)
    {
        string line = JsonSerializer.Serialize(record);
        lock (this)
        {
            _writer!.WriteLine(line);
        }
    }
}
