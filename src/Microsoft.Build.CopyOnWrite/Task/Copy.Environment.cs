using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

#if MSBUILD_MULTITHREADED
/// <summary>
/// The multi-threaded flavour (MSBuild 18.9 on, chosen by Sdk.targets): MSBuild runs the task inside its own
/// process under -mt and hands it the project's environment, which is where the stock task reads
/// MSBUILDALWAYSRETRY and the other Copy switches from too.
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
/// The flavour for MSBuild 17.7 to 18.8: one project per process at a time, so the process environment is the
/// project's. Not declared thread-safe: under -mt (18.4 to 18.8) MSBuild runs it in a task host, where that holds.
/// </summary>
public sealed partial class Copy
{
    private string? ReadProjectEnvironment(string name) => System.Environment.GetEnvironmentVariable(name);
}
#endif
