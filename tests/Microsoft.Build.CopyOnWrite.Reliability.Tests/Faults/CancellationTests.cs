using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Shared;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Faults;

/// <summary>
/// Cancelling (Cancel() from the engine, Ctrl-C = SIGINT to `dotnet msbuild`) during a 1 GiB copy and
/// during a 60-second retry wait: the task returns in well under 5 seconds, logs no error of its own,
/// and leaves the previous destination and no temporary file.
/// </summary>
[TestClass]
public sealed class CancellationTests
{
    private static readonly TimeSpan Prompt = TimeSpan.FromSeconds(5);

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void Cancel_during_a_large_copy_returns_promptly_and_leaves_the_previous_destination(string kind)
    {
        string source = BigFiles.OneGiBSource;
        string folder = LoopFileSystems.Require(kind).NewFolder("cancel-copy");
        string destination = TestFiles.Write(folder, "app.bin", 1 << 20);
        FileSnapshot previous = FileSnapshot.Of(destination);
        bool caughtMidCopy = false;

        CopyRun run = OurCopy.Run(new CopyRequest
        {
            Sources = [source],
            Destinations = [destination],
            WhileRunning = copy =>
            {
                caughtMidCopy = ChildProcess.WaitUntil(() => BigFiles.CopyUnderway(destination), TimeSpan.FromSeconds(30));
                copy.Cancel();
            },
        });

        Assert.IsTrue(caughtMidCopy, "the copy was not caught in the middle");
        Assert.IsTrue(run.CancelToReturn < Prompt, $"Execute returned {run.CancelToReturn} after Cancel()");
        Assert.IsFalse(run.Succeeded);
        Assert.AreEqual(0, run.ErrorCodes.Count + run.WarningCodes.Count, $"a cancel is not a copy failure:\n{run}");
        previous.AssertUnchanged(destination, "the previous destination");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void Cancel_during_a_retry_wait_returns_promptly(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("cancel-retry");
        string source = TestFiles.Write(folder, "source.bin", 100_000);
        string outFolder = Path.Combine(folder, "out");
        string destination = TestFiles.Write(outFolder, "app.bin", 1000);
        CopyRun run;
        using (Fault.Immutable(destination))
        {
            FileSnapshot previous = FileSnapshot.Of(destination);
            run = OurCopy.Run(new CopyRequest
            {
                Sources = [source],
                Destinations = [destination],
                Retries = 5,
                RetryDelayMilliseconds = 60_000,
                WhileRunning = copy =>
                {
                    Assert.IsTrue(ChildProcess.WaitUntil(() => copy.WarningCount > 0, TimeSpan.FromSeconds(30)), "no retry began");
                    copy.Cancel();
                },
            });
            previous.AssertUnchanged(destination, "the previous destination");
        }

        Assert.IsTrue(run.CancelToReturn < Prompt, $"Execute returned {run.CancelToReturn} after Cancel()");
        Assert.IsFalse(run.Succeeded);
        CollectionAssert.AreEqual(new[] { "MSB3026" }, run.WarningCodes.ToArray(), run.ToString());
        Assert.AreEqual(0, run.ErrorCodes.Count, run.ToString());
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void Ctrl_C_during_a_large_copy_ends_the_build_promptly_with_the_previous_destination(string kind)
    {
        string source = BigFiles.OneGiBSource;
        string folder = LoopFileSystems.Require(kind).NewFolder("sigint-copy");
        string destination = TestFiles.Write(folder, "app.bin", 1 << 20);
        FileSnapshot previous = FileSnapshot.Of(destination);
        string project = MSBuildProjects.Write(folder, "copy.proj", $"""
              <Target Name="Build">
                <Copy SourceFiles="{source}" DestinationFiles="{destination}" />
              </Target>
            """);

        BuildRun run = InterruptBuild(project, () => BigFiles.CopyUnderway(destination));

        previous.AssertUnchanged(destination, "the previous destination");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
        Assert.AreEqual(0, run.Diagnostics.Count, $"a cancel is not a copy failure (no MSB3021, and no MSB4181 'returned false without an error'):\n{run}");
    }

    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    public void Ctrl_C_during_a_retry_wait_ends_the_build_promptly(string kind)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("sigint-retry");
        string source = TestFiles.Write(folder, "source.bin", 100_000);
        string outFolder = Path.Combine(folder, "out");
        string destination = TestFiles.Write(outFolder, "app.bin", 1000);
        string project = MSBuildProjects.Write(folder, "copy.proj", $"""
              <Target Name="Build">
                <Copy SourceFiles="{source}" DestinationFiles="{destination}" Retries="5" RetryDelayMilliseconds="60000" />
              </Target>
            """);
        BuildRun run;
        using (Fault.Immutable(destination))
        {
            FileSnapshot previous = FileSnapshot.Of(destination);
            run = InterruptBuild(project, waitFor: null);
            previous.AssertUnchanged(destination, "the previous destination");
        }

        CollectionAssert.AreEqual(new[] { "MSB3026" }, run.Diagnostics.Select(d => d.Code).ToArray(), run.ToString());
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    /// <summary>Starts the build, waits for <paramref name="waitFor"/> (or the first MSB3026), sends SIGINT, and requires a prompt, cancelled end.</summary>
    private static BuildRun InterruptBuild(string project, Func<bool>? waitFor)
    {
        using ChildProcess build = MSBuildProjects.Start(project, stock: false, []);
        Func<bool> ready = waitFor ?? (() => build.Output.Contains("warning MSB3026", StringComparison.Ordinal));
        bool caught = ChildProcess.WaitUntil(() => ready() || build.HasExited, TimeSpan.FromSeconds(60));
        Assert.IsTrue(caught && !build.HasExited, $"the build was not caught in the middle:\n{build.Output}");

        string disposition = build.Disposition(ChildProcess.SIGINT);
        Assert.IsTrue(disposition == "caught", $"the build process has SIGINT {disposition} (/proc/{build.Id}/status), not caught, so no Ctrl-C can reach MSBuild: the test's premise fails, not the task:\n{build.Output}");

        build.Signal(ChildProcess.SIGINT);
        var clock = Stopwatch.StartNew();
        bool ended = build.WaitForExit(Prompt);
        TimeSpan took = clock.Elapsed;
        Assert.IsTrue(ended, $"the build was still running {Prompt.TotalSeconds} s after Ctrl-C:\n{build.Output}");
        var run = new BuildRun(build.ExitCode, build.Output, took);
        Assert.AreNotEqual(0, run.ExitCode, run.ToString());
        StringAssert.Contains(run.Output, "Attempting to cancel the build...", run.ToString());
        Console.WriteLine($"Build ended {took.TotalMilliseconds:0} ms after SIGINT with exit code {run.ExitCode}.");
        return run;
    }
}
