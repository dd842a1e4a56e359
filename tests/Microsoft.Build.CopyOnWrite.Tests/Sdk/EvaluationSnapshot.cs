using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.Evaluation;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// Every property (final value) and every item (type, include and all metadata) of one evaluation of a project by the
/// installed .NET SDK's MSBuild, run in this process (found by the Locator in <see cref="TestAssembly"/>).
/// </summary>
public sealed class EvaluationSnapshot
{
    private EvaluationSnapshot(IReadOnlyDictionary<string, string> properties, IReadOnlyList<string> items)
    {
        Properties = properties;
        Items = items;
    }

    public IReadOnlyDictionary<string, string> Properties { get; }

    /// <summary>One line per item, "Type Include | Name=Value | ...", metadata by name, sorted.</summary>
    public IReadOnlyList<string> Items { get; }

    public static EvaluationSnapshot Of(string projectFile, IDictionary<string, string> globalProperties)
    {
        using var projects = new ProjectCollection(globalProperties);
        Project project = projects.LoadProject(projectFile);
        var properties = project.Properties.ToDictionary(property => property.Name, property => property.EvaluatedValue, System.StringComparer.OrdinalIgnoreCase);
        List<string> items = project.Items
            .Select(item => $"{item.ItemType} {item.EvaluatedInclude}" + string.Concat(item.Metadata.OrderBy(m => m.Name, System.StringComparer.Ordinal).Select(m => $" | {m.Name}={m.EvaluatedValue}")))
            .Order(System.StringComparer.Ordinal)
            .ToList();
        projects.UnloadAllProjects();
        return new EvaluationSnapshot(properties, items);
    }
}
