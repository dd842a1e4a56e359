using System.Collections.Generic;
using System.IO;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>The solution's builds in this test process (<see cref="InProcessBuild"/>): for questions about our targets and task.</summary>
public sealed partial class LinkingSolution
{
    private Dictionary<string, string?> PackageCacheVariable => new() { ["NUGET_PACKAGES"] = PackageCache };

    /// <summary>As <see cref="Build"/> (`dotnet build`, restoring, at normal verbosity), in this process.</summary>
    public ProcessResult BuildInProcess(params string[] arguments)
    {
        ProcessResult build = InProcessBuild.DotnetBuild(Path.Combine(Root, SolutionFile), ["-v:n", .. arguments], PackageCacheVariable);
        Assert.IsTrue(build.Succeeded, "the build failed:\n" + build.Output);
        return build;
    }

    /// <summary>As <see cref="Restore"/>, in this process.</summary>
    public void RestoreInProcess()
    {
        ProcessResult restore = InProcessBuild.Restore(Path.Combine(Root, SolutionFile), PackageCacheVariable);
        Assert.IsTrue(restore.Succeeded, "the restore failed:\n" + restore.Output);
    }

    /// <summary>The -logger: argument Directory.Build.props gives as $(CopyOnWriteSummaryLogger) (the README's -getProperty), in this process.</summary>
    public string SummaryLoggerArgument()
        => InProcessBuild.Property(Path.Combine(Root, "Directory.Build.props"), "CopyOnWriteSummaryLogger", PackageCacheVariable);
}
