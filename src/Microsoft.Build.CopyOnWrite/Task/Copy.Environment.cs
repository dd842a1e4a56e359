using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

#if MSBUILD_MULTITHREADED
/// <summary>
/// The multi-threaded flavour (MSBuild 18.9 on): under -mt MSBuild hands the task the project's environment, where the
/// stock task reads MSBUILDALWAYSRETRY and the other Copy switches too.
/// </summary>
[MSBuildMultiThreadableTask]
public sealed partial class Copy : IMultiThreadableTask
{
    /// <summary>MSBuild 18 prefers this constructor, so the environment is there from the start.</summary>
    public Copy(TaskEnvironment taskEnvironment)
        : this(null, null)
    {
        TaskEnvironment = taskEnvironment;
    }

    /// <summary>Set by MSBuild before Execute; outside MSBuild (and in a task host) the process's.</summary>
    public TaskEnvironment TaskEnvironment { get; set; } = TaskEnvironment.Fallback;

    // TaskEnvironment is not thread-safe: only Execute's own thread reads it (the copy workers never do).
    private string? ReadProjectEnvironment(string name) => TaskEnvironment.GetEnvironmentVariable(name);
}
#else
/// <summary>
/// The flavour for MSBuild 17.7 to 18.8: one project per process at a time, so the process environment is the project's
/// (under -mt, MSBuild runs it in a task host).
/// </summary>
public sealed partial class Copy
{
    private string? ReadProjectEnvironment(string name) => System.Environment.GetEnvironmentVariable(name);
}
#endif
