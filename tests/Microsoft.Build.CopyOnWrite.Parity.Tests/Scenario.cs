using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;

namespace Microsoft.Build.CopyOnWrite.Parity.Tests;

[Flags]
public enum RunMode
{
    /// <summary>Both tasks run in this process through the object model.</summary>
    InProcess = 1,

    /// <summary>Both tasks run from a project file by `dotnet msbuild`, so parameters arrive as MSBuild passes them.</summary>
    ProjectFile = 2,

    Both = InProcess | ProjectFile,
}

/// <summary>Items in a scenario: specs in MSBuild's escaped form, with {R} and {SHM} for the tree roots.</summary>
public sealed record ScenarioItem(string Spec, params (string Name, string Value)[] Metadata);

/// <summary>A parameter's text in a project file, used verbatim (e.g. "@(Nothing)" or an empty string).</summary>
public sealed record RawParameter(string Text);

/// <summary>A parameter given as @(items) from one Include, used verbatim (wildcards are expanded by MSBuild).</summary>
public sealed record RawItems(string Include);

/// <summary>
/// One situation the two tasks are put in: how the tree looks, the parameters and environment, and how it
/// runs. Built fluently: <c>new Scenario("name").Arrange(...).Sources(...).Folder(...)</c>.
/// </summary>
public sealed class Scenario
{
    private readonly List<Action<Tree>> _arrange = new();

    public Scenario(string name, RunMode mode = RunMode.InProcess)
    {
        Name = name;
        Mode = mode;
    }

    public string Name { get; }

    public RunMode Mode { get; private set; }

    /// <summary>Parameter name to value: ScenarioItem[], ScenarioItem, bool, int or RawParameter.</summary>
    public SortedDictionary<string, object> Parameters { get; } = new(StringComparer.Ordinal);

    public SortedDictionary<string, string> Environment { get; } = new(StringComparer.Ordinal);

    /// <summary>Runs with the tree root as the current directory (in-process) so relative specs resolve in the tree.</summary>
    public bool RelativeToRoot { get; private set; }

    /// <summary>Keys of <see cref="IntendedDifferences"/> entries that this scenario shows.</summary>
    public List<string> Intended { get; } = new();

    /// <summary>Why a scenario is skipped here, if it needs something this machine lacks.</summary>
    public Func<string?>? Requirement { get; private set; }

    public bool NeedsOtherVolume { get; private set; }

    public override string ToString() => Name;

    public Scenario Arrange(Action<Tree> arrange)
    {
        _arrange.Add(arrange);
        return this;
    }

    public void ArrangeIn(Tree tree) => _arrange.ForEach(a => a(tree));

    public Scenario Sources(params string[] specs) => Set("SourceFiles", specs.Select(s => new ScenarioItem(s)).ToArray());

    public Scenario Sources(params ScenarioItem[] items) => Set("SourceFiles", items);

    public Scenario SourceFolders(params string[] specs) => Set("SourceFolders", specs.Select(s => new ScenarioItem(s)).ToArray());

    public Scenario SourceFolders(params ScenarioItem[] items) => Set("SourceFolders", items);

    public Scenario Destinations(params string[] specs) => Set("DestinationFiles", specs.Select(s => new ScenarioItem(s)).ToArray());

    public Scenario Destinations(params ScenarioItem[] items) => Set("DestinationFiles", items);

    public Scenario Folder(string spec) => Set("DestinationFolder", new ScenarioItem(spec));

    public Scenario Set(string parameter, object value)
    {
        Parameters[parameter] = value;
        return this;
    }

    public Scenario Env(string name, string value)
    {
        Environment[name] = value;
        if (name is "MSBUILDCOPYTASKPARALLELISM" or "MSBUILDCOPYWITHOUTDELETE" or "MSBUILDDISABLEFEATURESFROMVERSION")
        {
            // The stock task (or MSBuild under it) reads these once per process: only a fresh `dotnet msbuild` honours them.
            Mode = RunMode.ProjectFile;
        }

        return this;
    }

    public Scenario Relative()
    {
        RelativeToRoot = true;
        return this;
    }

    /// <summary>Paths ({R}/...) that the scenario's intended differences are about: other names of the file first, the destination last.</summary>
    public List<string> IntendedPaths { get; } = new();

    public IEnumerable<string> IntendedPathsOrDefault() => IntendedPaths;

    public Scenario Shows(string intendedDifference, params string[] paths)
    {
        IntendedPaths.AddRange(paths);
        if (!IntendedDifferences.Has(ParitySuite.Linux, intendedDifference))
        {
            throw new ArgumentException($"{Name}: no intended difference named {intendedDifference}");
        }

        Intended.Add(intendedDifference);
        return this;
    }

    public Scenario In(RunMode mode)
    {
        Mode = mode;
        return this;
    }

    /// <summary>Project-file scenarios whose tree has to be addressed relative to the project (see ProjectFileRunner).</summary>
    public bool ProjectRelative => RelativeToRoot;

    /// <summary>MSBuild itself refuses the parameters (an MSB4xxx error) and stops that build: the task never runs.</summary>
    public bool EngineRejected { get; private set; }

    /// <summary>Marks the scenario as refused by the engine; it gets a `dotnet msbuild` run of its own.</summary>
    public Scenario EngineRejects()
    {
        EngineRejected = true;
        return Env("PARITY_OWN_RUN", Name);
    }

    public Scenario OtherVolume()
    {
        NeedsOtherVolume = true;
        return this;
    }

    /// <summary>Converts the parameters for the in-process driver (expanding the roots).</summary>
    public Dictionary<string, object?> InProcessParameters(Tree tree)
    {
        var result = new Dictionary<string, object?>(StringComparer.Ordinal);
        foreach (KeyValuePair<string, object> parameter in Parameters)
        {
            result[parameter.Key] = parameter.Value switch
            {
                ScenarioItem[] items => items.Select(i => ToParity(i, tree)).ToArray(),
                ScenarioItem item => ToParity(item, tree),
                RawItems raw => throw new InvalidOperationException($"{Name}: raw items {parameter.Key}={raw.Include} only run from a project file"),
                RawParameter raw => throw new InvalidOperationException($"{Name}: raw parameter {parameter.Key}={raw.Text} only runs from a project file"),
                _ => parameter.Value,
            };
        }

        return result;
    }

    private static ParityItem ToParity(ScenarioItem item, Tree tree)
        => new(tree.Expand(item.Spec), item.Metadata.Select(m => new KeyValuePair<string, string>(m.Name, tree.Expand(m.Value))).ToList());
}
