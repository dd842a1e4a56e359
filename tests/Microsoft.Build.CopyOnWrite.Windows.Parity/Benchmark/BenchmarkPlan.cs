using System;
using System.Collections.Generic;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity.Benchmark;

/// <summary>The ways of copying one file that the table puts side by side, in its column order.</summary>
internal enum CopyMethod
{
    /// <summary>.NET's File.Copy (CopyFileEx), what MSBuild's own task ends in: the reference of every ratio.</summary>
    FileCopy,

    /// <summary>Our WindowsCloneEngine.CloneOrCopy, called directly.</summary>
    Engine,

    /// <summary>Our Microsoft.Build.CopyOnWrite.Copy task, one file per Execute.</summary>
    OurTask,

    /// <summary>MSBuild's Microsoft.Build.Tasks.Copy, one file per Execute.</summary>
    StockTask,

    /// <summary>The CopyOnWrite NuGet library's CloneFile, when it can be restored.</summary>
    CopyOnWriteLibrary,
}

/// <summary>How the source came to be there when it is copied.</summary>
internal enum SourceKind
{
    /// <summary>Written with buffered writes and closed just before the copy, never flushed.</summary>
    Fresh,

    /// <summary>Written, flushed (FlushFileBuffers), and last written over a minute before the copy.</summary>
    Settled,
}

/// <summary>In which order one round measures its cells.</summary>
internal static class BenchmarkPlan
{
    public static IReadOnlyList<CopyMethod> AllMethods { get; } = (CopyMethod[])Enum.GetValues(typeof(CopyMethod));

    public static IReadOnlyList<SourceKind> AllSources { get; } = new[] { SourceKind.Fresh, SourceKind.Settled };

    /// <summary>
    /// Every (source, method) pair once, the two sources alternating (fresh, settled, fresh, settled ... or the
    /// other way round) and the methods rotated by one place per round. So a cache, a disk flush or a neighbour's
    /// load that drifts during the run spreads over every cell instead of landing on whichever ran in one block,
    /// and no method always runs first, right after the sources were written.
    /// </summary>
    public static IReadOnlyList<(SourceKind Source, CopyMethod Method)> Round(int round, IReadOnlyList<CopyMethod> methods)
    {
        if (round < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(round), round, "rounds count from 0");
        }

        var order = new List<(SourceKind, CopyMethod)>(methods.Count * 2);
        SourceKind first = round % 2 == 0 ? SourceKind.Fresh : SourceKind.Settled;
        SourceKind second = first == SourceKind.Fresh ? SourceKind.Settled : SourceKind.Fresh;
        for (int i = 0; i < methods.Count; i++)
        {
            CopyMethod method = methods[(i + round) % methods.Count];
            order.Add((first, method));
            order.Add((second, method));
        }

        return order;
    }
}
