using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.Benchmarks.FreshProcess;

/// <summary>
/// Loaded into a measured build (-logger:Type,Assembly;FILE): when the build ends it writes one tab-separated line per Copy
/// call - node, whether it was that node's first Copy, project, target, milliseconds from the task's TaskStarted to its
/// TaskFinished event, and when it started (UTC, to the microsecond: to match the calls with timestamps taken elsewhere,
/// e.g. inside the task or by strace). Both events are stamped in the node that ran the task, when they happen, so the time is the node's
/// own, whenever the events reach this logger.
/// </summary>
public sealed class CopyCallLogger : ILogger
{
    private readonly Dictionary<(int Node, int ProjectContext, int Target), string> _targets = new();
    private readonly Dictionary<(int Node, int ProjectContext, int Task), DateTime> _started = new();
    private readonly HashSet<int> _nodesWithCopy = new();
    private readonly HashSet<(int Node, int ProjectContext, int Task)> _firstInNode = new();
    private readonly List<string> _lines = new();

    public LoggerVerbosity Verbosity { get; set; } = LoggerVerbosity.Quiet;

    public string? Parameters { get; set; }

    public void Initialize(IEventSource eventSource)
    {
        string output = Parameters ?? throw new LoggerException("CopyCallLogger needs the result file as its parameter.");
        eventSource.TargetStarted += (_, e) =>
        {
            BuildEventContext context = e.BuildEventContext!;
            _targets[(context.NodeId, context.ProjectContextId, context.TargetId)] = e.TargetName;
        };
        eventSource.TaskStarted += (_, e) =>
        {
            if (e.TaskName == "Copy")
            {
                BuildEventContext context = e.BuildEventContext!;
                var task = (context.NodeId, context.ProjectContextId, context.TaskId);
                _started[task] = e.Timestamp;
                if (_nodesWithCopy.Add(context.NodeId))
                {
                    _firstInNode.Add(task);
                }
            }
        };
        eventSource.TaskFinished += (_, e) =>
        {
            BuildEventContext context = e.BuildEventContext!;
            var task = (context.NodeId, context.ProjectContextId, context.TaskId);
            if (e.TaskName == "Copy" && _started.Remove(task, out DateTime started))
            {
                string target = _targets.TryGetValue((context.NodeId, context.ProjectContextId, context.TargetId), out string? name) ? name : "?";
                _lines.Add(string.Join('\t',
                    context.NodeId.ToString(CultureInfo.InvariantCulture),
                    _firstInNode.Contains(task) ? "first" : "later",
                    Path.GetFileNameWithoutExtension(e.ProjectFile),
                    target,
                    (e.Timestamp - started).TotalMilliseconds.ToString("0.000", CultureInfo.InvariantCulture),
                    started.ToUniversalTime().ToString("HH:mm:ss.ffffff", CultureInfo.InvariantCulture)));
            }
        };
        eventSource.BuildFinished += (_, _) => File.WriteAllLines(output, _lines);
    }

    public void Shutdown()
    {
    }
}
