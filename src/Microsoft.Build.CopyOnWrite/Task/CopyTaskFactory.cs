using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// Makes our <see cref="Copy"/> task with the CopyOnWrite settings a project file set: a task cannot read project
/// properties, but a UsingTask body is expanded with them (docs/how-it-works.md, "How the settings reach the task").
/// </summary>
public sealed class CopyTaskFactory : ITaskFactory
{
    private CopyOnWriteSettings _settings = CopyOnWriteSettings.Default;
    private string? _problem;

    public string FactoryName => nameof(CopyTaskFactory);

    public Type TaskType => typeof(Copy);

    public bool Initialize(string taskName, IDictionary<string, TaskPropertyInfo> parameterGroup, string taskBody, IBuildEngine taskFactoryLoggingHost)
    {
        Func<string, string?> projectValues = CopyOnWriteSettings.FromTaskBody(taskBody);
        _settings = CopyOnWriteSettings.Parse(projectValues, out _problem);
        if (IsMultiThreadedBuild(taskFactoryLoggingHost))
        {
            // MSBuild's own refusal under -mt names neither the setting nor a fix; "false" drops this registration
            // without it, and the build fails on COW004.
            taskFactoryLoggingHost.LogErrorEvent(new BuildErrorEventArgs(
                subcategory: null,
                code: CopyOnWriteCodes.MultiThreadedProjectSetting,
                file: taskFactoryLoggingHost.ProjectFileOfTaskNode,
                lineNumber: taskFactoryLoggingHost.LineNumberOfTaskNode,
                columnNumber: taskFactoryLoggingHost.ColumnNumberOfTaskNode,
                endLineNumber: 0,
                endColumnNumber: 0,
                message: CopyOnWriteCodes.MultiThreadedProjectSettingText(CopyOnWriteSettings.TaskProperties.Where(name => !string.IsNullOrWhiteSpace(projectValues(name))).Select(name => $"{name}={projectValues(name)!.Trim()}").ToList()),
                helpKeyword: null,
                senderName: FactoryName));
            return false;
        }

        return true; // a bad value is reported by the task, with its code, where the Copy runs
    }

    /// <summary>
    /// Whether the build is multi-threaded (-mt), from MSBuild's internal ITaskFactoryBuildParameterProvider, looked up by
    /// name: renamed in a later MSBuild, this says false and MSBuild's own refusal shows.
    /// </summary>
    private static bool IsMultiThreadedBuild(IBuildEngine engine)
    {
        Type? provider = engine.GetType().GetInterfaces().FirstOrDefault(contract => contract.FullName == "Microsoft.Build.Framework.ITaskFactoryBuildParameterProvider");
        return provider?.GetProperty("IsMultiThreadedBuild")?.GetValue(engine) is true;
    }

    public TaskPropertyInfo[] GetTaskParameters()
        => typeof(Copy).GetProperties(BindingFlags.Public | BindingFlags.Instance)
            .Where(property => property.GetIndexParameters().Length == 0)
            .Select(property => new TaskPropertyInfo(
                property.Name,
                property.PropertyType,
                output: property.IsDefined(typeof(OutputAttribute), inherit: true),
                required: property.IsDefined(typeof(RequiredAttribute), inherit: true)))
            .ToArray();

    public ITask CreateTask(IBuildEngine taskFactoryLoggingHost) => new Copy { Settings = _settings, SettingsProblem = _problem };

    public void CleanupTask(ITask task)
    {
    }
}
