using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// Makes our <see cref="Copy"/> task with the project's CopyOnWrite settings.
/// </summary>
/// <remarks>
/// Why a task factory: a task cannot read project properties, and the common targets' &lt;Copy&gt; call sites cannot be
/// taught a new parameter. IBuildEngine6.GetGlobalProperties sees only -p:, not a property set in a project file; item
/// metadata would reach only the item types we list and flow into every destination item. The body of a UsingTask, in
/// contrast, is expanded with the project's final properties (as its Condition is), so Sdk.targets writes one
/// "CopyOnWriteMode=$(CopyOnWriteMode)" line per setting, and every &lt;Copy&gt; in that project gets the project's value.
/// Sdk.targets registers the task through this factory only when a project file set a value, so the default build, and
/// settings given with -p: or in the environment (which the task reads itself, <see cref="CopyOnWriteSettings.FromBuild"/>),
/// keep MSBuild's ordinary assembly task factory: MSBuild 18 refuses custom task factories in a multi-threaded build
/// (-mt), and this factory then reports COW004 with the command-line form of the settings instead.
/// MSBuild sets the parameters by reflection on <see cref="TaskType"/>, as for tasks it loads from an assembly.
/// </remarks>
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
            // MSBuild refuses every custom task factory under -mt with an error that names neither the setting nor
            // a fix. Said here instead, and "false" makes MSBuild drop this registration, so its own error does
            // not follow (the project's Copy falls back to the stock task, and the build fails on this error).
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
    /// Whether MSBuild runs this build multi-threaded (-mt). MSBuild tells task factories so only through an internal
    /// interface (ITaskFactoryBuildParameterProvider, which its own inline factories read), hence the lookup by
    /// name: should a later MSBuild rename it, this says false and MSBuild's own refusal of the factory is shown.
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
