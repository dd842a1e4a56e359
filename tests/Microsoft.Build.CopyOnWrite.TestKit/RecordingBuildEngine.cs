using System;
using System.Collections;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.TestKit;

/// <summary>Runs a task in-process the way MSBuild does and keeps every event it logs.</summary>
public sealed class RecordingBuildEngine : IBuildEngine
{
    private readonly ConcurrentQueue<BuildEventArgs> _events = new();

    public IReadOnlyList<BuildEventArgs> Events => _events.ToList();

    public IReadOnlyList<BuildErrorEventArgs> Errors => _events.OfType<BuildErrorEventArgs>().ToList();

    public IReadOnlyList<BuildWarningEventArgs> Warnings => _events.OfType<BuildWarningEventArgs>().ToList();

    public IReadOnlyList<BuildMessageEventArgs> Messages => _events.OfType<BuildMessageEventArgs>().ToList();

    public IEnumerable<string> ErrorCodes => Errors.Select(e => e.Code);

    public IEnumerable<string> WarningCodes => Warnings.Select(e => e.Code);

    public string Log => string.Join(Environment.NewLine, _events.Select(Describe));

    public bool ContinueOnError => false;

    public int LineNumberOfTaskNode => 0;

    public int ColumnNumberOfTaskNode => 0;

    public string ProjectFileOfTaskNode => "test.proj";

    public bool BuildProjectFile(string projectFileName, string[] targetNames, IDictionary globalProperties, IDictionary targetOutputs) => throw new NotSupportedException();

    public void LogCustomEvent(CustomBuildEventArgs e) => _events.Enqueue(e);

    public void LogErrorEvent(BuildErrorEventArgs e) => _events.Enqueue(e);

    public void LogMessageEvent(BuildMessageEventArgs e) => _events.Enqueue(e);

    public void LogWarningEvent(BuildWarningEventArgs e) => _events.Enqueue(e);

    private static string Describe(BuildEventArgs e) => e switch
    {
        BuildErrorEventArgs error => $"error {error.Code}: {error.Message}",
        BuildWarningEventArgs warning => $"warning {warning.Code}: {warning.Message}",
        BuildMessageEventArgs message => $"message ({message.Importance}): {message.Message}",
        _ => $"{e.GetType().Name}: {e.Message}",
    };
}
