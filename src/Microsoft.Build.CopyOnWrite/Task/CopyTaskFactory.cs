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
/// Why a task factory. A task cannot read project properties, and the common targets' &lt;Copy&gt; call sites
/// cannot be taught a new parameter. The alternatives fall short: IBuildEngine6.GetGlobalProperties sees only
/// global properties (-p:), not a property set in a project or Directory.Build.props; item metadata would
/// reach only the item types we list, and would flow into every destination item; a settings target run
/// before the copies would need InitialTargets in every project and a per-project side channel.
/// The body of a UsingTask, in contrast, is expanded with the project's properties (the Task element's
/// Evaluate attribute defaults to true) after the whole project has been evaluated, exactly like the
/// UsingTask's Condition that DisableCopyOnWrite already relies on. So Sdk.targets writes a &lt;Task&gt; body of
/// "Mode=$(CopyOnWriteMode)" and one such line per setting, and every &lt;Copy&gt; in that project, whoever wrote
/// it, gets the project's value, wherever it was set.
/// Sdk.targets registers the task through this factory only when a project file set a value, so the default
/// build, and settings given with -p: or in the environment (which the task reads itself, see
/// <see cref="CopyOnWriteSettings.FromBuild"/>), keep MSBuild's ordinary assembly task factory. That matters in a
/// multi-threaded build (-mt): MSBuild 18 refuses custom task factories there, so this factory then reports COW004
/// with the command-line form of the settings instead.
/// MSBuild sets the parameters by reflection on <see cref="TaskType"/> (the task does not implement
/// IGeneratedTask), the same way it does for tasks it loads from an assembly directly.
/// </remarks>
public sealed class CopyTaskFactory : ITaskFactory
{
    /// <summary>Error: a CopyOnWrite property is set in a project file of a multi-threaded build (-mt), which cannot pass it on.</summary>
    internal const string MultiThreadedProjectSettingCode = "COW004";

    private CopyOnWriteSettings _settings = CopyOnWriteSettings.Default;
    private string? _problem;

    public string FactoryName => nameof(CopyTaskFactory);

    public Type TaskType => typeof(Copy);

    public bool Initialize(string taskName, IDictionary<string, TaskPropertyInfo> parameterGroup, string taskBody, IBuildEngine taskFactoryLoggingHost)
    {
        _settings = CopyOnWriteSettings.Parse(taskBody, out _problem);
        if (IsMultiThreadedBuild(taskFactoryLoggingHost))
        {
            // MSBuild refuses every custom task factory under -mt with an error that names neither the setting nor
            // a fix. Said here instead, and "false" makes MSBuild drop this registration, so its own error does
            // not follow (the project's Copy falls back to the stock task, and the build fails on this error).
            taskFactoryLoggingHost.LogErrorEvent(new BuildErrorEventArgs(
                subcategory: null,
                code: MultiThreadedProjectSettingCode,
                file: taskFactoryLoggingHost.ProjectFileOfTaskNode,
                lineNumber: taskFactoryLoggingHost.LineNumberOfTaskNode,
                columnNumber: taskFactoryLoggingHost.ColumnNumberOfTaskNode,
                endLineNumber: 0,
                endColumnNumber: 0,
                message: DescribeProjectSettingsUnderMultiThreadedBuild(_settings),
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

    /// <summary>
    /// E.g. "CopyOnWrite: CopyOnWriteMode=Required is set in a project file, which a multi-threaded build (-mt) cannot
    /// pass to the Copy task. Give it on the command line instead (-p:CopyOnWriteMode=Required) or as an environment
    /// variable, or build without -mt."
    /// </summary>
    internal static string DescribeProjectSettingsUnderMultiThreadedBuild(CopyOnWriteSettings settings)
    {
        var set = new List<string>();
        if (settings.Mode != CopyOnWriteMode.Auto || (!settings.WarnWhenNotCloned && settings.AcceptCopiesFrom.Count == 0 && !settings.InsteadOfLinks))
        {
            set.Add($"CopyOnWriteMode={settings.Mode}");
        }

        if (settings.WarnWhenNotCloned)
        {
            set.Add("CopyOnWriteWarnWhenNotCloned=true");
        }

        if (settings.AcceptCopiesFrom.Count > 0)
        {
            set.Add($"CopyOnWriteAcceptCopiesFrom={string.Join(";", settings.AcceptCopiesFrom)}");
        }

        if (settings.InsteadOfLinks)
        {
            set.Add("CopyOnWriteInsteadOfLinks=true");
        }

        bool one = set.Count == 1;
        return $"CopyOnWrite: {string.Join(" and ", set)} {(one ? "is" : "are")} set in a project file, which a multi-threaded build (-mt) cannot pass to the Copy task. "
            + $"Give {(one ? "it" : "them")} on the command line instead ({string.Join(" ", set.Select(setting => $"\"-p:{setting}\""))}) or as {(one ? "an environment variable" : "environment variables")}, or build without -mt.";
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
