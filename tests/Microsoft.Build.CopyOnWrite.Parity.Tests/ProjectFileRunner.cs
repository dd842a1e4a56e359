using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security;
using System.Text;
using System.Text.Json;
using System.Threading;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;

namespace Microsoft.Build.CopyOnWrite.Parity.Tests;

/// <summary>
/// Runs the project-file scenarios through real `dotnet msbuild`, so parameters reach the tasks the way MSBuild
/// passes them (empty item lists, empty strings, escaped specials). One project file per side holds one target
/// per scenario; side A is plain (MSBuild's Copy), side B registers ours with UsingTask TaskName="Copy". Scenarios
/// with the same environment share one `dotnet msbuild`, which builds side A's project, then side B's.
/// A normal build uses the task assembly that loads in every MSBuild from 17.7; a multi-threaded one (-mt) uses the
/// flavour Sdk.targets picks from MSBuild 18.9 on, declared thread-safe, so MSBuild runs it in its own process
/// with the project's environment from TaskEnvironment (as it runs the stock task).
/// </summary>
public static class ProjectFileRunner
{
    private static readonly Lazy<Dictionary<string, (Observation Stock, Observation Ours, string Log)>> Results = new(() => RunAll(multiThreaded: false));
    private static readonly Lazy<Dictionary<string, (Observation Stock, Observation Ours, string Log)>> MultiThreadedResults = new(() => RunAll(multiThreaded: true));

    /// <summary>Runs so far in this process, which name their folders apart.</summary>
    private static int _runs;

    /// <summary>
    /// The multi-threaded flavour of our task assembly, put beside the tests by MultiThreadedTaskAssembly.targets: the copy
    /// precompiled for this runtime and platform where there is one, as Sdk.targets picks it, else the IL one.
    /// </summary>
    public static string MultiThreadedTaskAssembly { get; } = PrecompiledOrIL(Path.Combine(AppContext.BaseDirectory, "multithreaded"));

    private static string PrecompiledOrIL(string folder)
    {
        string os = OperatingSystem.IsWindows() ? "win" : OperatingSystem.IsMacOS() ? "osx" : "linux";
        string platform = $"net{Environment.Version.Major}.0-{os}-{System.Runtime.InteropServices.RuntimeInformation.ProcessArchitecture.ToString().ToLowerInvariant()}";
        string precompiled = Path.Combine(folder, platform, "Microsoft.Build.CopyOnWrite.dll");
        return File.Exists(precompiled) ? precompiled : Path.Combine(folder, "Microsoft.Build.CopyOnWrite.dll");
    }

    public static (Observation Stock, Observation Ours, string Log) Result(string scenarioName, bool multiThreaded = false)
        => (multiThreaded ? MultiThreadedResults : Results).Value[scenarioName];

    private static Dictionary<string, (Observation, Observation, string)> RunAll(bool multiThreaded)
        => Run(Scenarios.All.Where(s => s.Mode.HasFlag(RunMode.ProjectFile)), multiThreaded);

    /// <summary>
    /// Runs <paramref name="scenarios"/> from project files, one `dotnet msbuild` per side for each environment they
    /// share; with <paramref name="language"/>, in that UI language (DOTNET_CLI_UI_LANGUAGE, which `dotnet` and MSBuild
    /// take the build's language from); with <paramref name="ourTaskAssembly"/>, that flavour of ours instead of the one
    /// Sdk.targets picks for the build (the flavour for older MSBuild under -mt runs in a task host).
    /// </summary>
    public static Dictionary<string, (Observation Stock, Observation Ours, string Log)> Run(IEnumerable<Scenario> scenarios, bool multiThreaded, string? language = null, string? ourTaskAssembly = null)
    {
        var results = new Dictionary<string, (Observation, Observation, string)>();
        int runNumber = Interlocked.Increment(ref _runs);
        int group = 0;
        ourTaskAssembly ??= multiThreaded ? MultiThreadedTaskAssembly : typeof(Copy).Assembly.Location;
        foreach (IGrouping<string, Scenario> sameEnvironment in scenarios.GroupBy(s => string.Join(";", s.Environment.Select(e => e.Key + "=" + e.Value))))
        {
            RunGroup(sameEnvironment.ToList(), runNumber, ++group, multiThreaded, language, ourTaskAssembly, results);
        }

        return results;
    }

    private static void RunGroup(List<Scenario> scenarios, int runNumber, int group, bool multiThreaded, string? language, string ourTaskAssembly, Dictionary<string, (Observation, Observation, string)> results)
    {
        string runName = (multiThreaded ? "mt-" : string.Empty) + (language is null ? string.Empty : language + "-") + $"project-run-{runNumber}-{group}";
        string runFolder = Path.Combine(Scratch.Root, runName);
        string? shmFolder = Scratch.OtherVolumeRoot is null ? null : Path.Combine(Scratch.OtherVolumeRoot, runName);
        var sides = new[] { (Name: "A", Ours: false), (Name: "B", Ours: true) };
        var trees = new Dictionary<(string Side, string Scenario), (Tree Tree, string Folder, List<string> Before)>();
        for (int i = 0; i < scenarios.Count; i++)
        {
            foreach ((string side, _) in sides)
            {
                string folder = $"p{i:000}";
                var tree = new Tree(Path.Combine(runFolder, side, folder), shmFolder is null ? null : Path.Combine(shmFolder, side, folder));
                scenarios[i].ArrangeIn(tree);
                trees[(side, scenarios[i].Name)] = (tree, folder, tree.Snapshot());
            }
        }

        var environment = new Dictionary<string, string>(scenarios[0].Environment);
        if (language is not null)
        {
            environment["DOTNET_CLI_UI_LANGUAGE"] = language;
        }

        Dictionary<string, string> projects = sides.ToDictionary(side => side.Name, side =>
        {
            string project = Path.Combine(runFolder, side.Name, "parity.proj");
            File.WriteAllText(project, ProjectText(scenarios, s => trees[(side.Name, s.Name)], side.Ours ? ourTaskAssembly : null));
            return project;
        });
        string events = Path.Combine(runFolder, "events.jsonl");
        string output = RunMSBuild(runFolder, projects.Values, scenarios.Select(TargetName), events, environment, multiThreaded);
        string[] lines = File.Exists(events) ? File.ReadAllLines(events) : [];
        string log = $"--- dotnet msbuild{(multiThreaded ? " -mt" : string.Empty)}, side A then side B:{Environment.NewLine}{output}";

        foreach (Scenario scenario in scenarios)
        {
            var observations = new Dictionary<string, Observation>();
            foreach ((string side, _) in sides)
            {
                (Tree tree, _, List<string> before) = trees[(side, scenario.Name)];
                Observation observation = Parse(lines, projects[side], TargetName(scenario), tree)
                    ?? throw new InvalidOperationException($"side {side} never ran the target of '{scenario.Name}':{Environment.NewLine}{log}");
                observation.Before = before;
                observation.Files = tree.Snapshot();
                observations[side] = observation;
                tree.Release();
            }

            results[scenario.Name] = (observations["A"], observations["B"], log);
        }
    }

    public static string TargetName(Scenario scenario) => "S_" + ParityHarness.Sanitize(scenario.Name) + "_" + (uint)scenario.Name.GetHashCode(StringComparison.Ordinal) % 100000;

    /// <param name="ourTaskAssembly">Our task assembly for side B; null for side A (MSBuild's own Copy).</param>
    private static string ProjectText(List<Scenario> scenarios, Func<Scenario, (Tree Tree, string Folder, List<string> Before)> treeOf, string? ourTaskAssembly)
    {
        var text = new StringBuilder();
        text.AppendLine("<Project>");
        if (ourTaskAssembly is not null)
        {
            text.AppendLine($"  <UsingTask TaskName=\"Copy\" AssemblyFile=\"{Xml(ourTaskAssembly)}\" />");
        }

        foreach (Scenario scenario in scenarios)
        {
            (Tree tree, string folder, _) = treeOf(scenario);
            string target = TargetName(scenario);
            string Spec(string spec) => scenario.RelativeToRoot && !spec.Contains("{R}", StringComparison.Ordinal) && !spec.Contains("{SHM}", StringComparison.Ordinal)
                ? folder + "/" + spec
                : tree.Expand(spec);

            var items = new StringBuilder();
            var attributes = new StringBuilder();
            foreach ((string parameter, object value) in scenario.Parameters)
            {
                string attributeValue;
                switch (value)
                {
                    case ScenarioItem[] list:
                        string itemType = $"_{target}_{parameter}";
                        foreach (ScenarioItem item in list)
                        {
                            items.Append($"      <{itemType} Include=\"{Xml(Spec(item.Spec))}\"");
                            if (item.Metadata.Length == 0)
                            {
                                items.AppendLine(" />");
                                continue;
                            }

                            items.AppendLine(">");
                            foreach ((string name, string metadataValue) in item.Metadata)
                            {
                                items.AppendLine($"        <{name}>{Xml(tree.Expand(metadataValue))}</{name}>");
                            }

                            items.AppendLine($"      </{itemType}>");
                        }

                        attributeValue = $"@({itemType})";
                        break;
                    case ScenarioItem single:
                        attributeValue = Spec(single.Spec);
                        break;
                    case RawParameter raw:
                        attributeValue = tree.Expand(raw.Text);
                        break;
                    case RawItems raw:
                        string rawType = $"_{target}_{parameter}";
                        items.AppendLine($"      <{rawType} Include=\"{Xml(tree.Expand(raw.Include))}\" />");
                        attributeValue = $"@({rawType})";
                        break;
                    case bool flag:
                        attributeValue = flag ? "true" : "false";
                        break;
                    default:
                        attributeValue = Convert.ToString(value, System.Globalization.CultureInfo.InvariantCulture)!;
                        break;
                }

                attributes.Append($" {parameter}=\"{Xml(attributeValue)}\"");
            }

            text.AppendLine($"  <Target Name=\"{target}\">");
            text.AppendLine($"    <PropertyGroup><ScenarioFolder>{folder}</ScenarioFolder></PropertyGroup>");
            if (items.Length > 0)
            {
                text.AppendLine("    <ItemGroup>").Append(items).AppendLine("    </ItemGroup>");
            }

            text.AppendLine($"    <Copy{attributes} ContinueOnError=\"ErrorAndContinue\">");
            text.AppendLine($"      <Output TaskParameter=\"DestinationFiles\" ItemName=\"_{target}_OutDestinationFiles\" />");
            text.AppendLine($"      <Output TaskParameter=\"CopiedFiles\" ItemName=\"_{target}_OutCopiedFiles\" />");
            text.AppendLine($"      <Output TaskParameter=\"WroteAtLeastOneFile\" PropertyName=\"_{target}_Wrote\" />");
            text.AppendLine("    </Copy>");
            text.AppendLine($"    <Message Importance=\"high\" Text=\"PARITY-WROTE=$(_{target}_Wrote)\" />");
            text.AppendLine("  </Target>");
        }

        text.AppendLine("</Project>");
        return text.ToString();
    }

    private static string Xml(string text) => SecurityElement.Escape(text)!;

    /// <summary>
    /// One `dotnet msbuild` building the sides' projects in turn, each with every scenario's target (the MSBuild task
    /// goes on to the next project after one that failed).
    /// </summary>
    private static string RunMSBuild(string folder, IEnumerable<string> projects, IEnumerable<string> targets, string eventsFile, IReadOnlyDictionary<string, string> environment, bool multiThreaded)
    {
        string sides = Path.Combine(folder, "sides.proj");
        File.WriteAllText(sides, $"""
            <Project>
              <Target Name="Build">
                <MSBuild Projects="{Xml(string.Join(";", projects))}" Targets="{Xml(string.Join(";", targets))}" BuildInParallel="false" />
              </Target>
            </Project>
            """);
        string[] arguments =
        {
            sides, "-verbosity:minimal", "-clp:NoSummary",
            $"-logger:{typeof(ParityLogger).FullName},{typeof(ParityLogger).Assembly.Location};{eventsFile}",
        };
        return DotnetMSBuild.Run(folder, multiThreaded ? arguments.Append("-mt") : arguments, environment).Output;
    }

    /// <summary>What the project's target did, from the logger's records; null where it never ran.</summary>
    private static Observation? Parse(string[] lines, string project, string target, Tree tree)
    {
        var observation = new Observation();
        bool ran = false;
        foreach (string line in lines)
        {
            using JsonDocument document = JsonDocument.Parse(line);
            JsonElement e = document.RootElement;
            if (e.GetProperty("target").GetString() != target || e.GetProperty("project").GetString() != project)
            {
                continue;
            }

            ran = true;

            string kind = e.GetProperty("kind").GetString()!;
            switch (kind)
            {
                case "result":
                    observation.Success = e.GetProperty("success").GetBoolean();
                    break;
                case "output":
                    List<string> items = e.GetProperty("items").EnumerateArray().Select(item => tree.Normalize(new ObservedItem(
                        item.GetProperty("spec").GetString()!,
                        item.GetProperty("escaped").GetString()!,
                        item.GetProperty("metadata").EnumerateObject().Select(m => new KeyValuePair<string, string>(m.Name, m.Value.GetString()!)).OrderBy(m => m.Key, StringComparer.Ordinal).ToList()).ToString())).ToList();
                    if (e.GetProperty("name").GetString()!.EndsWith("_OutDestinationFiles", StringComparison.Ordinal))
                    {
                        observation.DestinationFiles = items;
                    }
                    else
                    {
                        observation.CopiedFiles = items;
                    }

                    break;
                case "marker":
                    string wrote = e.GetProperty("text").GetString()!["PARITY-WROTE=".Length..];
                    observation.WroteAtLeastOneFile = bool.TryParse(wrote, out bool value) ? value : null;
                    break;
                default:
                    observation.Events.Add(new ObservedEvent(
                        kind,
                        StringOrNull(e, "code"),
                        StringOrNull(e, "importance"),
                        tree.Normalize(e.GetProperty("text").GetString()),
                        StringOrNull(e, "helpKeyword")));
                    break;
            }
        }

        return ran ? observation : null;
    }

    private static string? StringOrNull(JsonElement record, string name)
        => record.TryGetProperty(name, out JsonElement value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;
}
