using System;
using System.Collections;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Reflection;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite.TestKit.Parity;

/// <summary>
/// Runs a Copy task (MSBuild's or ours) in-process through the object model, as the engine would: sets the
/// parameters that were given (others keep their defaults), executes, and reads the outputs.
/// </summary>
public static class TaskDriver
{
    private static readonly Lazy<Type> StockCopyType = new(() =>
    {
        // After MSBuildLocator.RegisterDefaults, this resolves to the installed SDK's Microsoft.Build.Tasks.Core.dll.
        Assembly tasks = Assembly.Load(new AssemblyName("Microsoft.Build.Tasks.Core"));
        return tasks.GetType("Microsoft.Build.Tasks.Copy", throwOnError: true)!;
    });

    /// <summary>Where the stock task was loaded from (to show in reports).</summary>
    public static string StockAssemblyLocation => StockCopyType.Value.Assembly.Location;

    /// <summary>A new instance of MSBuild's own Microsoft.Build.Tasks.Copy.</summary>
    public static object CreateStockCopy() => Activator.CreateInstance(StockCopyType.Value)!;

    /// <summary>
    /// MSBuild's Copy reads the texts of its plain messages (those without a code) once per process, at its first
    /// construction, in that moment's UI language: a test that changes the language makes it read them again, as an
    /// MSBuild process started in that language does. (A field the installed MSBuild lacks means it has no such cache.)
    /// </summary>
    public static void ForgetStockTexts()
        => StockCopyType.Value.GetField("DidNotCopyBecauseOfFileMatch", BindingFlags.NonPublic | BindingFlags.Static)?.SetValue(null, null);

    /// <summary>Public properties of a task type and whether they are [Required] or [Output] (to compare the shapes).</summary>
    public static IReadOnlyList<string> DescribeParameters(Type taskType)
        => taskType.GetProperties(BindingFlags.Public | BindingFlags.Instance)
            .Where(p => p.DeclaringType != typeof(Task) && p.Name is not "BuildEngine" and not "HostObject" and not "Log")
            .Select(p => $"{p.Name}: {p.PropertyType.Name}{(p.CanWrite && p.SetMethod!.IsPublic ? " settable" : string.Empty)}"
                + (p.GetCustomAttributes().Any(a => a.GetType().Name == "RequiredAttribute") ? " [Required]" : string.Empty)
                + (p.GetCustomAttributes().Any(a => a.GetType().Name == "OutputAttribute") ? " [Output]" : string.Empty))
            .OrderBy(s => s, StringComparer.Ordinal)
            .ToList();

    public static Type StockType => StockCopyType.Value;

    /// <summary>Values: <see cref="ParityItem"/>[] for item lists, <see cref="ParityItem"/> for one item, bool, int.</summary>
    public static TaskRunResult Run(object task, IReadOnlyDictionary<string, object?> parameters, Action<object>? whileRunning = null)
    {
        var engine = new RecordingBuildEngine();
        var itask = (ITask)task;
        itask.BuildEngine = engine;
        Type type = task.GetType();
        foreach (KeyValuePair<string, object?> parameter in parameters)
        {
            PropertyInfo property = type.GetProperty(parameter.Key) ?? throw new ArgumentException($"{type.FullName} has no parameter {parameter.Key}");
            property.SetValue(task, ToTaskValue(parameter.Value));
        }

        var result = new TaskRunResult();
        var stopwatch = Stopwatch.StartNew();
        try
        {
            whileRunning?.Invoke(task);
            result.Success = itask.Execute();
        }
        catch (Exception e)
        {
            result.Exception = $"{e.GetType().FullName}: {e.Message}";
        }

        result.ElapsedMilliseconds = stopwatch.Elapsed.TotalMilliseconds;
        result.DestinationFiles = Observe((ITaskItem[]?)type.GetProperty("DestinationFiles")!.GetValue(task));
        result.CopiedFiles = Observe((ITaskItem[]?)type.GetProperty("CopiedFiles")!.GetValue(task));
        result.WroteAtLeastOneFile = (bool)type.GetProperty("WroteAtLeastOneFile")!.GetValue(task)!;
        foreach (BuildEventArgs e in engine.Events)
        {
            result.Events.Add(e switch
            {
                BuildErrorEventArgs error => new ObservedEvent("error", error.Code, null, error.Message ?? string.Empty, error.HelpKeyword),
                BuildWarningEventArgs warning => new ObservedEvent("warning", warning.Code, null, warning.Message ?? string.Empty, warning.HelpKeyword),
                BuildMessageEventArgs message => new ObservedEvent("message", null, message.Importance.ToString(), message.Message ?? string.Empty),
                _ => new ObservedEvent(e.GetType().Name, null, null, e.Message ?? string.Empty),
            });
        }

        return result;
    }

    /// <summary>Calls ICancelableTask.Cancel on a task.</summary>
    public static void Cancel(object task) => ((ICancelableTask)task).Cancel();

    /// <summary>
    /// From <c>whileRunning</c>: waits until the running task has logged a warning with <paramref name="code"/> (a retry
    /// logs MSB3026 just before its wait), polling its recording engine; false if none came within <paramref name="timeout"/>
    /// or <paramref name="giveUp"/> was cancelled first (the task returned without it).
    /// </summary>
    public static bool WaitForWarning(object task, string code, TimeSpan timeout, System.Threading.CancellationToken giveUp = default)
    {
        var engine = (RecordingBuildEngine)((ITask)task).BuildEngine;
        var clock = Stopwatch.StartNew();
        while (!engine.WarningCodes.Contains(code))
        {
            if (clock.Elapsed > timeout || giveUp.IsCancellationRequested)
            {
                return false;
            }

            System.Threading.Thread.Sleep(5);
        }

        return true;
    }

    private static object? ToTaskValue(object? value) => value switch
    {
        ParityItem[] items => items.Select(ToTaskItem).ToArray(),
        ParityItem item => ToTaskItem(item),
        _ => value,
    };

    private static ITaskItem ToTaskItem(ParityItem item)
    {
        // TaskItem's constructor takes the spec in escaped form, as the engine passes it.
        var taskItem = new TaskItem(item.EscapedSpec);
        foreach (KeyValuePair<string, string> metadata in item.Metadata)
        {
            taskItem.SetMetadata(metadata.Key, metadata.Value);
        }

        return taskItem;
    }

    public static ObservedItem[]? Observe(ITaskItem[]? items)
        => items?.Select(Observe).ToArray();

    public static ObservedItem Observe(ITaskItem item)
    {
        var metadata = new List<KeyValuePair<string, string>>();
        foreach (DictionaryEntry entry in item.CloneCustomMetadata())
        {
            metadata.Add(new KeyValuePair<string, string>((string)entry.Key, (string)entry.Value!));
        }

        metadata.Sort((a, b) => string.CompareOrdinal(a.Key, b.Key));
        string escaped = item is ITaskItem2 item2 ? item2.EvaluatedIncludeEscaped : item.ItemSpec;
        return new ObservedItem(item.ItemSpec, escaped, metadata);
    }
}
