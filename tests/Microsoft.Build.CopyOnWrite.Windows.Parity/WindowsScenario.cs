using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>
/// One situation both tasks are put in: how the tree looks, the parameters, and what happens while the task
/// runs. Paths are written relative to the tree root as {R}/... with forward slashes.
/// </summary>
internal sealed class WindowsScenario(string name)
{
    private readonly List<Action<WindowsTree>> _arrange = new();

    public string Name { get; } = name;

    /// <summary>Parameter name to value: string[] (item specs), string (one item), bool or int.</summary>
    public SortedDictionary<string, object> Parameters { get; } = new(StringComparer.Ordinal);

    /// <summary>Keys of <see cref="IntendedDifferences"/> entries this scenario shows.</summary>
    public List<string> Intended { get; } = new();

    public List<string> IntendedPaths { get; } = new();

    /// <summary>Started on its own thread just before Execute (e.g. releases a held file after a while).</summary>
    public Action<WindowsTree>? WhileRunning { get; private set; }

    /// <summary>Why Wine cannot show what this scenario checks (it then runs on real Windows only), or null.</summary>
    public string? WineCannotShow { get; private set; }

    public WindowsScenario NotUnderWine(string? reason)
    {
        WineCannotShow = reason;
        return this;
    }

    /// <summary>Whether the task is cancelled while it runs: once its first retry wait has begun (its MSB3026 is logged).</summary>
    public bool CancelledInRetryWait { get; private set; }

    public WindowsScenario Arrange(Action<WindowsTree> arrange)
    {
        _arrange.Add(arrange);
        return this;
    }

    public void ArrangeIn(WindowsTree tree) => _arrange.ForEach(a => a(tree));

    public WindowsScenario Sources(params string[] specs) => Set("SourceFiles", specs);

    public WindowsScenario Destinations(params string[] specs) => Set("DestinationFiles", specs);

    public WindowsScenario Folder(string spec) => Set("DestinationFolder", spec);

    public WindowsScenario Set(string parameter, object value)
    {
        Parameters[parameter] = value;
        return this;
    }

    /// <summary>Retries that fail fast: the delay only has to be observable, not long.</summary>
    public WindowsScenario FastRetries(int retries = 2, int delayMilliseconds = 50) => Set("Retries", retries).Set("RetryDelayMilliseconds", delayMilliseconds);

    public WindowsScenario During(Action<WindowsTree> action)
    {
        WhileRunning = action;
        return this;
    }

    /// <summary>Extra lines for the files facet, e.g. an alternate data stream the snapshot does not list.</summary>
    public Func<WindowsTree, IEnumerable<string>>? ExtraFacts { get; private set; }

    public WindowsScenario Observe(Func<WindowsTree, IEnumerable<string>> facts)
    {
        ExtraFacts = facts;
        return this;
    }

    public WindowsScenario CancelledDuringTheFirstRetryWait()
    {
        CancelledInRetryWait = true;
        return this;
    }

    public WindowsScenario Shows(string intendedDifference, params string[] paths)
    {
        if (!IntendedDifferences.Has(ParitySuite.Windows, intendedDifference))
        {
            throw new ArgumentException($"No intended difference named {intendedDifference}.", nameof(intendedDifference));
        }

        Intended.Add(intendedDifference);
        IntendedPaths.AddRange(paths);
        return this;
    }

    public Dictionary<string, object?> ParametersFor(WindowsTree tree)
        => Parameters.ToDictionary(p => p.Key, p => p.Value switch
        {
            string[] specs => (object?)specs.Select(s => new ParityItem(Expand(tree, s))).ToArray(),
            string spec => new ParityItem(Expand(tree, spec)),
            _ => p.Value,
        });

    private static string Expand(WindowsTree tree, string spec) => spec.Replace("{R}", tree.Root, StringComparison.Ordinal).Replace('/', '\\');
}

/// <summary>Runs a scenario twice on two identical trees, MSBuild's Copy in A and ours in B, and compares what they did.</summary>
internal static class WindowsParityHarness
{
    private static int _counter;

    public static (Observation Stock, Observation Ours) Run(WindowsScenario scenario, string scratch)
    {
        string folder = Path.Combine(scratch, $"{Interlocked.Increment(ref _counter):000}");
        Observation stock = RunSide(scenario, Path.Combine(folder, "A"), TaskDriver.CreateStockCopy());
        Observation ours = RunSide(scenario, Path.Combine(folder, "B"), new Copy(engine: null, environment: Environment.GetEnvironmentVariable));
        WindowsTree.Delete(folder);
        return (stock, ours);
    }

    private static Observation RunSide(WindowsScenario scenario, string root, object task)
    {
        using var tree = new WindowsTree(root, TimesCompared.ForThisMachine);
        scenario.ArrangeIn(tree);
        Win32.ClearComErrorInfo(); // each task starts as in a build node: no failure of another's left on the thread
        List<string> before = tree.Snapshot();
        System.Threading.Tasks.Task? helper = null;
        using var returned = new CancellationTokenSource();
        Stopwatch? sinceCancel = null;
        TaskRunResult result = TaskDriver.Run(task, scenario.ParametersFor(tree), whileRunning: t =>
        {
            if (scenario.WhileRunning is not null || scenario.CancelledInRetryWait)
            {
                // A pool thread, not a Thread of its own: under Wine 8 a managed thread that exits can take the
                // runtime down ("Attempt to execute managed code after the .NET runtime thread state has been destroyed").
                helper = System.Threading.Tasks.Task.Run(() =>
                {
                    scenario.WhileRunning?.Invoke(tree);
                    // On the condition, not a clock: a fixed delay could fall before the first attempt on a loaded machine.
                    if (scenario.CancelledInRetryWait && TaskDriver.WaitForWarning(t, "MSB3026", TimeSpan.FromMinutes(2), returned.Token))
                    {
                        sinceCancel = Stopwatch.StartNew();
                        TaskDriver.Cancel(t);
                    }
                });
            }
        });
        TimeSpan? cancelToReturn = sinceCancel?.Elapsed;
        returned.Cancel();
        helper?.Wait();
        tree.ReleaseHeld();
        Observation observation = Observation.From(result, tree.Normalize);
        observation.CancelToReturnMilliseconds = cancelToReturn?.TotalMilliseconds;
        observation.Before = before;
        observation.Files = tree.Snapshot();
        if (scenario.ExtraFacts is not null)
        {
            observation.Files.AddRange(scenario.ExtraFacts(tree));
        }
        return observation;
    }

    /// <summary>Null when the runs match once the scenario's intended differences are applied; else the diff and both observations.</summary>
    public static string? Compare(WindowsScenario scenario, Observation stock, Observation ours)
    {
        foreach (Observation side in new[] { stock, ours })
        {
            side.IntendedPaths.Clear();
            side.IntendedPaths.AddRange(scenario.IntendedPaths);
        }

        IntendedDifferences.Apply(ParitySuite.Windows, scenario.Intended, stock, ours);
        string? diff = Observation.Diff(stock, ours);
        return diff is null
            ? null
            : $"{scenario.Name}: our Copy differs from MSBuild's ({TaskDriver.StockAssemblyLocation}):{Environment.NewLine}{diff}"
              + $"Stock observed ({stock.ElapsedMilliseconds:0} ms):{Environment.NewLine}{stock.Describe()}{Environment.NewLine}Ours observed ({ours.ElapsedMilliseconds:0} ms):{Environment.NewLine}{ours.Describe()}";
    }
}
