using System;
using System.Collections;
using System.Threading;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.Benchmarks;

/// <summary>
/// The host of a task run outside a build: drops messages (a real logger's cost is not the task's), keeps
/// the first error and our task's one-line summary, so a failure or a surprise shows.
/// </summary>
internal sealed class SilentBuildEngine : IBuildEngine
{
    private string? _firstError;
    private string? _summary;

    public string? FirstError => _firstError;

    /// <summary>The last "CopyOnWrite: cloned ..." line our task logged.</summary>
    public string? Summary => _summary;

    public bool ContinueOnError => false;

    public int LineNumberOfTaskNode => 0;

    public int ColumnNumberOfTaskNode => 0;

    public string ProjectFileOfTaskNode => "benchmark.proj";

    public bool BuildProjectFile(string projectFileName, string[] targetNames, IDictionary globalProperties, IDictionary targetOutputs)
        => throw new NotSupportedException();

    public void LogCustomEvent(CustomBuildEventArgs e)
    {
    }

    public void LogErrorEvent(BuildErrorEventArgs e) => Interlocked.CompareExchange(ref _firstError, $"{e.Code}: {e.Message}", null);

    public void LogMessageEvent(BuildMessageEventArgs e)
    {
        if (e.Message is string message && message.StartsWith("CopyOnWrite:", StringComparison.Ordinal))
        {
            _summary = message;
        }
    }

    public void LogWarningEvent(BuildWarningEventArgs e)
    {
    }
}
