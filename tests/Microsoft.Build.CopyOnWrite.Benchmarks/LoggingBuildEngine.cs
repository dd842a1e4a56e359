using System;
using System.Collections;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Text;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.Benchmarks;

/// <summary>
/// The host of a task run outside a build that logs like a real one: through <see cref="IBuildEngine10.EngineServices"/>
/// it tells the task which message importances anyone takes, as MSBuild does, so the task's
/// <c>Log.LogsMessagesOfImportance</c> and <c>Log.LogMessage</c> see what they would see in a build, and it formats and
/// keeps the text of every message it takes, so that what the task had made is also used.
/// <list type="bullet">
/// <item><b>low</b>: a logger takes every message, as a binary log (<c>-bl</c>), <c>-v:d</c> or any logger MSBuild does not
/// know make it do; task inputs are logged too (the binary logger asks for them).</item>
/// <item><b>normal</b>: the loggers take normal and high importance only, as a user's <c>-v:n</c> console does.</item>
/// </list>
/// MSBuild's logging service hands messages to loggers on a thread of its own; here the text is made on the thread that
/// logs, under one lock (MSBuild's task host takes one too), so a task that logs more pays for it in the measurement.
/// </summary>
internal sealed class LoggingBuildEngine : IBuildEngine10
{
    private readonly object _lock = new();
    private readonly StringBuilder _text = new();
    private readonly ConcurrentDictionary<(object Key, RegisteredTaskObjectLifetime Lifetime), object> _registered = new();
    private readonly Services _services;
    private readonly bool _inspectEverything;
    private string? _firstError;
    private int _taken;
    private int _dropped;
    private long _takenCharacters;
    private int _dataLines;

    /// <param name="logging">"low" or "normal" (<see cref="Levels"/>).</param>
    /// <param name="inspectEverything">
    /// For the check only: also make the text of messages no logger takes, to see whether the task sent one it was told
    /// nobody would read (a real build would not format those).
    /// </param>
    public LoggingBuildEngine(string logging, bool inspectEverything = false)
    {
        _services = logging switch
        {
            "low" => new Services(MessageImportance.Low, taskInputs: true),
            "normal" => new Services(MessageImportance.Normal, taskInputs: false),
            _ => throw new ArgumentException($"Unknown logging level {logging}: low or normal.", nameof(logging)),
        };
        _inspectEverything = inspectEverything;
    }

    /// <summary>The logging levels, in the order the report shows them.</summary>
    public static IReadOnlyList<string> Levels { get; } = ["normal", "low"];

    public string? FirstError => _firstError;

    /// <summary>Messages handed to a logger (their text made and kept) since the last <see cref="Clear"/>.</summary>
    public int Taken => _taken;

    /// <summary>Messages of an importance no logger takes that the task sent anyway (dropped unread) since the last <see cref="Clear"/>.</summary>
    public int Dropped => _dropped;

    /// <summary>Characters of the messages taken since the last <see cref="Clear"/>.</summary>
    public long TakenCharacters => _takenCharacters;

    /// <summary>Our task's data lines ("CopyOnWrite data: ...") received since the last <see cref="Clear"/>, taken or not.</summary>
    public int DataLines => _dataLines;

    public EngineServices EngineServices => _services;

    public bool ContinueOnError => false;

    public int LineNumberOfTaskNode => 0;

    public int ColumnNumberOfTaskNode => 0;

    public string ProjectFileOfTaskNode => "benchmark.proj";

    public bool IsRunningMultipleNodes => false;

    public bool AllowFailureWithoutError { get; set; }

    /// <summary>Forgets the messages kept so far (between measurements, never inside one).</summary>
    public void Clear()
    {
        lock (_lock)
        {
            _text.Clear();
            _taken = 0;
            _dropped = 0;
            _takenCharacters = 0;
            _dataLines = 0;
            _firstError = null;
        }
    }

    public void LogMessageEvent(BuildMessageEventArgs e)
    {
        lock (_lock)
        {
            if (!_services.LogsMessagesOfImportance(e.Importance))
            {
                _dropped++;
                if (_inspectEverything && IsDataLine(e.Message))
                {
                    _dataLines++;
                }

                return;
            }

            Take(e.Message);
            if (IsDataLine(e.Message))
            {
                _dataLines++;
            }
        }
    }

    public void LogWarningEvent(BuildWarningEventArgs e)
    {
        lock (_lock)
        {
            Take($"warning {e.Code}: {e.Message}");
        }
    }

    public void LogErrorEvent(BuildErrorEventArgs e)
    {
        lock (_lock)
        {
            _firstError ??= $"{e.Code}: {e.Message}";
            Take($"error {e.Code}: {e.Message}");
        }
    }

    public void LogCustomEvent(CustomBuildEventArgs e)
    {
        lock (_lock)
        {
            Take(e.Message);
        }
    }

    public void LogTelemetry(string eventName, IDictionary<string, string> properties)
    {
    }

    public IReadOnlyDictionary<string, string> GetGlobalProperties() => new Dictionary<string, string>();

    public bool ShouldTreatWarningAsError(string warningCode) => false;

    public void RegisterTaskObject(object key, object obj, RegisteredTaskObjectLifetime lifetime, bool allowEarlyCollection)
        => _registered[(key, lifetime)] = obj;

    public object? GetRegisteredTaskObject(object key, RegisteredTaskObjectLifetime lifetime)
        => _registered.TryGetValue((key, lifetime), out object? obj) ? obj : null;

    public object? UnregisterTaskObject(object key, RegisteredTaskObjectLifetime lifetime)
        => _registered.TryRemove((key, lifetime), out object? obj) ? obj : null;

    public void Yield()
    {
    }

    public void Reacquire()
    {
    }

    /// <summary>A task outside a build has its own core; it gets none more.</summary>
    public int RequestCores(int requestedCores) => 0;

    public void ReleaseCores(int coresToRelease)
    {
    }

    public bool BuildProjectFile(string projectFileName, string[] targetNames, IDictionary globalProperties, IDictionary targetOutputs)
        => throw new NotSupportedException();

    public bool BuildProjectFile(string projectFileName, string[] targetNames, IDictionary globalProperties, IDictionary targetOutputs, string toolsVersion)
        => throw new NotSupportedException();

    public bool BuildProjectFilesInParallel(string[] projectFileNames, string[] targetNames, IDictionary[] globalProperties, IDictionary[] targetOutputsPerProject, string[] toolsVersion, bool useResultsCache, bool unloadProjectsOnCompletion)
        => throw new NotSupportedException();

    public BuildEngineResult BuildProjectFilesInParallel(string[] projectFileNames, string[] targetNames, IDictionary[] globalProperties, IList<string>[] removeGlobalProperties, string[] toolsVersion, bool returnTargetOutputs)
        => throw new NotSupportedException();

    private static bool IsDataLine(string? message) => message is not null && message.StartsWith("CopyOnWrite data: ", StringComparison.Ordinal);

    private void Take(string? message)
    {
        _taken++;
        _takenCharacters += message?.Length ?? 0;
        _text.Append(message).Append('\n');
    }

    /// <summary>What MSBuild tells a task about its loggers: here, the least importance any of them takes.</summary>
    private sealed class Services : EngineServices
    {
        private readonly MessageImportance _least;
        private readonly bool _taskInputs;

        public Services(MessageImportance least, bool taskInputs)
        {
            _least = least;
            _taskInputs = taskInputs;
        }

        public override int Version => Version1;

        // MessageImportance: High = 0, Normal = 1, Low = 2; a logger of least importance L takes every importance <= L.
        public override bool LogsMessagesOfImportance(MessageImportance importance) => importance <= _least;

        public override bool IsTaskInputLoggingEnabled => _taskInputs;
    }
}
