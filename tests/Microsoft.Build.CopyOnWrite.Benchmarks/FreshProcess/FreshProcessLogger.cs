using System;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.Benchmarks.FreshProcess;

/// <summary>
/// Loaded into the measured `dotnet msbuild` process (-logger:Type,Assembly;FILE): when the build ends it writes what the
/// process compiled with the JIT (methods, time) in all and while the Copy task ran, and which Copy task assembly it
/// loaded, one "key=value" per line. The build runs in that process (no -m), so the JIT figures include the task's.
/// "While the Copy task ran" is from handling its TaskStarted to handling its TaskFinished: MSBuild delivers events to
/// loggers on its own thread, a little after they happen, so that window is approximate; the whole process's figures are
/// exact. Quiet verbosity: it asks MSBuild for no message the console would not log.
/// </summary>
public sealed class FreshProcessLogger : ILogger
{
    private string _output = string.Empty;
    private long _copyJitMethods;
    private TimeSpan _copyJitTime;
    private long _methodsAtCopyStart;
    private TimeSpan _timeAtCopyStart;

    public LoggerVerbosity Verbosity { get; set; } = LoggerVerbosity.Quiet;

    public string? Parameters { get; set; }

    public void Initialize(IEventSource eventSource)
    {
        _output = Parameters ?? throw new LoggerException("FreshProcessLogger needs the result file as its parameter.");
        eventSource.TaskStarted += (_, e) =>
        {
            if (e.TaskName == "Copy")
            {
                _methodsAtCopyStart = JitInfo.GetCompiledMethodCount(currentThread: false);
                _timeAtCopyStart = JitInfo.GetCompilationTime(currentThread: false);
            }
        };
        eventSource.TaskFinished += (_, e) =>
        {
            if (e.TaskName == "Copy")
            {
                _copyJitMethods += JitInfo.GetCompiledMethodCount(currentThread: false) - _methodsAtCopyStart;
                _copyJitTime += JitInfo.GetCompilationTime(currentThread: false) - _timeAtCopyStart;
            }
        };
        eventSource.BuildFinished += (_, _) => Write();
    }

    public void Shutdown()
    {
    }

    private void Write()
    {
        string? ours = AppDomain.CurrentDomain.GetAssemblies()
            .Where(assembly => assembly.GetName().Name == "Microsoft.Build.CopyOnWrite")
            .Select(assembly => assembly.Location)
            .FirstOrDefault();
        File.WriteAllLines(_output,
        [
            "jitMethods=" + JitInfo.GetCompiledMethodCount(currentThread: false).ToString(CultureInfo.InvariantCulture),
            "jitMilliseconds=" + JitInfo.GetCompilationTime(currentThread: false).TotalMilliseconds.ToString("0.###", CultureInfo.InvariantCulture),
            "copyJitMethods=" + _copyJitMethods.ToString(CultureInfo.InvariantCulture),
            "copyJitMilliseconds=" + _copyJitTime.TotalMilliseconds.ToString("0.###", CultureInfo.InvariantCulture),
            "taskAssembly=" + (ours ?? "stock"),
        ]);
    }
}
