using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Parity.Tests;

[TestClass]
public sealed class ParityTests
{
    public static IEnumerable<object[]> InProcessScenarios
        => Scenarios.All.Where(s => s.Mode.HasFlag(RunMode.InProcess)).Select(s => new object[] { s.Name });

    public static IEnumerable<object[]> ProjectFileScenarios
        => Scenarios.All.Where(s => s.Mode.HasFlag(RunMode.ProjectFile)).Select(s => new object[] { s.Name });

    [TestMethod]
    [DynamicData(nameof(InProcessScenarios))]
    public void InProcess(string name)
    {
        Scenario scenario = Scenarios.Named(name);
        if (scenario.NeedsOtherVolume && Scratch.OtherVolumeRoot is null)
        {
            Assert.Inconclusive("SKIPPED: needs /dev/shm (another file system than the temp folder).");
        }

        (Observation stock, Observation ours) = ParityHarness.RunInProcess(scenario);
        string? diff = ParityHarness.Compare(scenario, stock, ours);
        if (Environment.GetEnvironmentVariable("PARITY_VERBOSE") == "1")
        {
            Console.WriteLine($"Stock ({stock.ElapsedMilliseconds:0.0} ms):{Environment.NewLine}{stock.Describe()}{Environment.NewLine}Ours ({ours.ElapsedMilliseconds:0.0} ms):{Environment.NewLine}{ours.Describe()}");
        }

        Assert.IsNull(diff, diff);
    }

    [TestMethod]
    [DynamicData(nameof(ProjectFileScenarios))]
    public void ProjectFile(string name) => CompareProjectFileRuns(name, multiThreaded: false);

    /// <summary>The same scenarios in a multi-threaded build (-mt): both tasks run inside MSBuild's process there.</summary>
    [TestMethod]
    [DynamicData(nameof(ProjectFileScenarios))]
    public void ProjectFileMultiThreaded(string name) => CompareProjectFileRuns(name, multiThreaded: true);

    private static void CompareProjectFileRuns(string name, bool multiThreaded)
    {
        Scenario scenario = Scenarios.Named(name);
        if (scenario.NeedsOtherVolume && Scratch.OtherVolumeRoot is null)
        {
            Assert.Inconclusive("SKIPPED: needs /dev/shm (another file system than the temp folder).");
        }

        (Observation stock, Observation ours, string log) = ProjectFileRunner.Result(name, multiThreaded);
        if (scenario.EngineRejected)
        {
            Assert.IsTrue(stock.Events.Any(e => e.Kind == "error" && e.Code?.StartsWith("MSB4", StringComparison.Ordinal) == true), $"MSBuild did not refuse the stock task's parameters in {name}:{Environment.NewLine}{log}");
        }
        else
        {
            Assert.IsNotNull(stock.Success, $"The stock task did not run for {name}:{Environment.NewLine}{log}");
            Assert.IsNotNull(ours.Success, $"Our task did not run for {name}:{Environment.NewLine}{log}");
        }

        string? diff = ParityHarness.Compare(scenario, stock, ours);
        if (Environment.GetEnvironmentVariable("PARITY_VERBOSE") == "1")
        {
            Console.WriteLine($"Stock:{Environment.NewLine}{stock.Describe()}{Environment.NewLine}Ours:{Environment.NewLine}{ours.Describe()}");
        }

        Assert.IsNull(diff, diff);
    }
}
