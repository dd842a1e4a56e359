using System;
using System.Collections.Generic;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Parity.Tests;

/// <summary>The catalogue of scenarios; each name is unique and is the test's name.</summary>
public static partial class Scenarios
{
    private static readonly Lazy<List<Scenario>> Catalogue = new(() =>
    {
        var all = new List<Scenario>();
        all.AddRange(Basics());
        var duplicates = all.GroupBy(s => s.Name).Where(g => g.Count() > 1).Select(g => g.Key).ToList();
        if (duplicates.Count > 0)
        {
            throw new InvalidOperationException("Duplicate scenario names: " + string.Join(", ", duplicates));
        }

        return all;
    });

    public static IReadOnlyList<Scenario> All => Catalogue.Value;

    public static Scenario Named(string name) => All.Single(s => s.Name == name);

    private static Scenario S(string name, RunMode mode = RunMode.InProcess) => new(name, mode);

    private static IEnumerable<Scenario> Basics()
    {
        yield return S("one file to DestinationFiles").Arrange(t => t.File("src/a.txt")).Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt");
        yield return S("one file to DestinationFolder").Arrange(t => t.File("src/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("missing source").Sources("{R}/src/missing.txt").Folder("{R}/out");
        yield return S("nothing at all");
    }
}
