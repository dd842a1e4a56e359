using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;

namespace Microsoft.Build.CopyOnWrite.Parity.Tests;

/// <summary>
/// Runs a scenario in-process twice, on two identical trees: MSBuild's Copy in tree A, ours in tree B, with the
/// same parameters and environment, and compares what they did after the intended differences are normalised.
/// </summary>
public static class ParityHarness
{
    private static int _counter;

    public static (Observation Stock, Observation Ours) RunInProcess(Scenario scenario, Action<object>? whileRunning = null)
    {
        string folder = Path.Combine(Scratch.Root, $"{++_counter:000}-{Sanitize(scenario.Name)}");
        string? shmFolder = Scratch.OtherVolumeRoot is null ? null : Path.Combine(Scratch.OtherVolumeRoot, $"{_counter:000}");
        Tree stockTree = NewTree(folder, shmFolder, "A", scenario);
        Tree oursTree = NewTree(folder, shmFolder, "B", scenario);
        try
        {
            Observation stock = Run(scenario, stockTree, stock: true, whileRunning);
            Observation ours = Run(scenario, oursTree, stock: false, whileRunning);
            return (stock, ours);
        }
        finally
        {
            stockTree.Release();
            oursTree.Release();
        }
    }

    public static Tree NewTree(string folder, string? shmFolder, string side, Scenario scenario)
    {
        var tree = new Tree(Path.Combine(folder, side), shmFolder is null ? null : Path.Combine(shmFolder, side));
        scenario.ArrangeIn(tree);
        return tree;
    }

    private static Observation Run(Scenario scenario, Tree tree, bool stock, Action<object>? whileRunning)
    {
        List<string> before = tree.Snapshot();
        Dictionary<string, object?> parameters = scenario.InProcessParameters(tree);
        string previousDirectory = Environment.CurrentDirectory;
        var previousEnvironment = new Dictionary<string, string?>();
        TaskRunResult result;
        try
        {
            if (scenario.RelativeToRoot)
            {
                Environment.CurrentDirectory = tree.Root;
            }

            if (stock)
            {
                // The stock task reads the real process environment: set it around the call (tests run one at a time).
                foreach ((string name, string value) in scenario.Environment)
                {
                    previousEnvironment[name] = Environment.GetEnvironmentVariable(name);
                    Environment.SetEnvironmentVariable(name, value);
                }

                result = TaskDriver.Run(TaskDriver.CreateStockCopy(), parameters, whileRunning);
            }
            else
            {
                // Ours gets the scenario's variables through its environment hook, never through the process.
                SortedDictionary<string, string> variables = scenario.Environment;
                var ours = new Copy(engine: null, environment: name => variables.TryGetValue(name, out string? value) ? value : Environment.GetEnvironmentVariable(name));
                result = TaskDriver.Run(ours, parameters, whileRunning);
            }
        }
        finally
        {
            Environment.CurrentDirectory = previousDirectory;
            foreach ((string name, string? value) in previousEnvironment)
            {
                Environment.SetEnvironmentVariable(name, value);
            }
        }

        Observation observation = Observation.From(result, tree.Normalize);
        observation.Before = before;
        observation.Files = tree.Snapshot();
        return observation;
    }

    /// <summary>Null when the two runs match after normalisation; else the diff and both full observations.</summary>
    public static string? Compare(Scenario scenario, Observation stock, Observation ours)
    {
        foreach (Observation side in new[] { stock, ours })
        {
            side.IntendedPaths.Clear();
            side.IntendedPaths.AddRange(scenario.IntendedPathsOrDefault());
        }

        IntendedDifferences.Apply(ParitySuite.Linux, scenario.Intended, stock, ours);
        string? diff = Observation.Diff(stock, ours);
        return diff is null
            ? null
            : $"Scenario {scenario.Name}: our Copy differs from MSBuild's ({TaskDriver.StockAssemblyLocation}):{Environment.NewLine}{diff}"
              + $"{Environment.NewLine}Stock observed:{Environment.NewLine}{stock.Describe()}{Environment.NewLine}Ours observed:{Environment.NewLine}{ours.Describe()}";
    }

    public static string Sanitize(string name) => new(name.Select(c => char.IsLetterOrDigit(c) ? c : '_').Take(40).ToArray());
}
