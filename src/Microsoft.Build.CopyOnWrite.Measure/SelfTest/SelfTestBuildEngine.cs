using System.Collections;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.Measure.SelfTest;

/// <summary>Where the Copy tasks of the self-test log, outside a build: keeps the first error, drops the rest.</summary>
internal sealed class SelfTestBuildEngine : IBuildEngine
{
    public string? FirstError { get; private set; }

    public bool ContinueOnError => false;

    public int LineNumberOfTaskNode => 0;

    public int ColumnNumberOfTaskNode => 0;

    public string ProjectFileOfTaskNode => "CopyOnWrite self-test";

    public void LogErrorEvent(BuildErrorEventArgs e) => FirstError ??= $"{e.Code}: {e.Message}";

    public void LogWarningEvent(BuildWarningEventArgs e)
    {
    }

    public void LogMessageEvent(BuildMessageEventArgs e)
    {
    }

    public void LogCustomEvent(CustomBuildEventArgs e)
    {
    }

    public bool BuildProjectFile(string projectFileName, string[] targetNames, IDictionary globalProperties, IDictionary targetOutputs) => false;
}
