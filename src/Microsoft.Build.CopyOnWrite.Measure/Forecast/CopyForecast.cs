using System.Collections.Generic;
using System.IO;
using System.Linq;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Forecast;

/// <summary>Copies from one volume to another (or within one), as the build made them.</summary>
/// <param name="Files">Regular files of at least one byte: each would be a clone on one clone-capable volume.</param>
/// <param name="SmallFiles">Those below <see cref="CopyForecast.NoGainBytes"/>, where a clone saves no time.</param>
/// <param name="Where">The named folder all sources lie in (the package cache, the .NET installation), if any.</param>
/// <param name="AlreadyCloned">Files a Copy already cloned: ours, or MSBuild's where File.Copy clones too.</param>
internal sealed record CopiesBetweenVolumes(BuildVolume Source, BuildVolume Destination, int Files, long Bytes, int SmallFiles, long SmallBytes, string? Where, int AlreadyCloned = 0)
{
    /// <summary>One file system, by the clone rule (a btrfs subvolume is its file system).</summary>
    public bool SameVolume => CloneRule.SameFileSystem(Source.Key, Destination.Key);

    /// <summary>Source and destination already share a file system that clones, by the rule the build's Required mode applies (<see cref="CloneRule"/>): nothing to move.</summary>
    public bool ClonesHere => SameVolume && Source.CanClone == true;

    /// <summary>Every file of the pair was already a clone: the build's Copy cloned them, so our SDK saves no disk or time here.</summary>
    public bool AlreadyClones => Files > 0 && AlreadyCloned == Files;
}

/// <summary>Copy time and files of one project.</summary>
internal sealed record ProjectCopies(string Project, double CopyMilliseconds, int CopyTasks, int Files, long Bytes);

/// <summary>What cloning could give a build, read from its binary log and the files it left on disk.</summary>
internal sealed record CopyForecast(
    string BinaryLog,
    bool BuildSucceeded,
    double WallSeconds,
    int CopyTasks,
    int OurCopyTasks,
    int Written,
    int AlreadyCloned,
    long AlreadyClonedBytes,
    int Clonable,
    long ClonableBytes,
    int Small,
    long SmallBytes,
    int Empty,
    int Linked,
    int SkippedUnchanged,
    int NotOnDisk,
    int NotRegular,
    long OutputBytes,
    double CopyMilliseconds,
    double CopyWallMilliseconds,
    IReadOnlyList<CopiesBetweenVolumes> Pairs,
    IReadOnlyList<ProjectCopies> Projects)
{
    /// <summary>
    /// Files up to 16 KiB, where a byte copy is as fast as a clone (docs/results/benchmarks.md, section 1), count as no
    /// time gained; they still clone and share their blocks.
    /// </summary>
    public const long NoGainBytes = 16 * 1024 + 1;

    /// <summary>The volume pairs by what is left to gain, most first.</summary>
    public IEnumerable<CopiesBetweenVolumes> PairsByGain => Pairs.OrderBy(p => p.ClonesHere).ThenByDescending(p => p.Bytes).ThenBy(p => p.Source.Key, StringComparer.Ordinal);

    /// <summary>The pair that does not clone today and holds the most bytes: the one move that unlocks most.</summary>
    public CopiesBetweenVolumes? BestMove => PairsByGain.FirstOrDefault(p => !p.ClonesHere && p.Bytes > 0);

    public static CopyForecast From(BuildCopies build, VolumeFactsInspector inspector)
    {
        var volumes = new FileVolumes(inspector);
        var counted = new List<(FileCopy FileCopy, FileOnDisk Source, FileOnDisk Destination, bool Ours)>();
        int written = 0, linked = 0, notOnDisk = 0, notRegular = 0, empty = 0;
        foreach (CopyTaskRun run in build.CopyTasks)
        {
            foreach (FileCopy copy in run.Files)
            {
                if (copy.Kind != CopyKind.Copied)
                {
                    linked++;
                    continue;
                }

                written++;
                FileOnDisk source = volumes.Stat(copy.Source);
                FileOnDisk destination = volumes.Stat(copy.Destination);
                if (!source.Exists || !destination.Exists)
                {
                    notOnDisk++;
                }
                else if (!source.Regular || !destination.Regular)
                {
                    notRegular++;
                }
                else if (destination.Size == 0)
                {
                    // Nothing to share: our task makes an empty file, not a clone, and neither saves anything.
                    empty++;
                }
                else
                {
                    counted.Add((copy, source, destination, run.Ours));
                }
            }
        }

        // Already cloned: within a volume that clones, by ours or by MSBuild's Copy where File.Copy / CopyFile clones
        // (StockCopyClones). Our SDK would add reporting and atomic replace there, not disk or time.
        bool AlreadyClone((FileCopy FileCopy, FileOnDisk Source, FileOnDisk Destination, bool Ours) c)
        {
            if (c.Source.Volume != c.Destination.Volume)
            {
                return false;
            }

            BuildVolume volume = volumes.Describe(c.Source.Volume);
            return volume.CanClone == true && (c.Ours || volume.Facts.StockCopyClones == true);
        }

        var already = counted.Where(AlreadyClone).ToList();
        var toClone = counted.Where(c => !AlreadyClone(c)).ToList();
        string? packageCache = PackageCache();
        string? dotnetRoot = DotnetRoot();
        var pairs = counted
            .GroupBy(c => (c.Source.Volume, c.Destination.Volume))
            .Select(g =>
            {
                var small = g.Where(c => c.Destination.Size < NoGainBytes).ToList();
                return new CopiesBetweenVolumes(
                    volumes.Describe(g.Key.Item1), volumes.Describe(g.Key.Item2), g.Count(), g.Sum(c => c.Destination.Size),
                    small.Count, small.Sum(c => c.Destination.Size), NameOf(g.Select(c => c.FileCopy.Source), packageCache, dotnetRoot), g.Count(AlreadyClone));
            })
            .ToList();

        // Each destination takes its space once, however often the build wrote it.
        // Files that are clones already take no space of their own, and stay out.
        long outputBytes = toClone.GroupBy(c => c.FileCopy.Destination, StringComparer.Ordinal).Sum(g => g.First().Destination.Size);

        // The copied bytes this forecast counts (not those already cloned), by destination, for the per-project table.
        var clonable = toClone.Select(c => c.FileCopy).ToHashSet();
        var projects = build.CopyTasks
            .GroupBy(r => r.Project, StringComparer.Ordinal)
            .Select(g => new ProjectCopies(
                g.Key,
                g.Sum(r => r.Duration.TotalMilliseconds),
                g.Count(),
                g.Sum(r => r.Files.Count(clonable.Contains)),
                g.Sum(r => r.Files.Where(clonable.Contains).Sum(f => volumes.Stat(f.Destination).Size))))
            .OrderByDescending(p => p.CopyMilliseconds)
            .ToList();

        return new CopyForecast(
            build.BinaryLog,
            build.Succeeded,
            build.Wall.TotalSeconds,
            build.CopyTasks.Count,
            build.CopyTasks.Count(r => r.Ours),
            written,
            already.Count,
            already.Sum(c => c.Destination.Size),
            toClone.Count,
            toClone.Sum(c => c.Destination.Size),
            toClone.Count(c => c.Destination.Size < NoGainBytes),
            toClone.Where(c => c.Destination.Size < NoGainBytes).Sum(c => c.Destination.Size),
            empty,
            linked,
            build.CopyTasks.Sum(r => r.SkippedUnchanged),
            notOnDisk,
            notRegular,
            outputBytes,
            build.CopyTasks.Sum(r => r.Duration.TotalMilliseconds),
            WallTimeOf(build.CopyTasks.Where(r => r.Files.Any(clonable.Contains))).TotalMilliseconds,
            pairs,
            projects);
    }

    /// <summary>
    /// The union of the runs' spans: a ceiling on the build time cloning can save, since cloning only shortens Copy
    /// tasks and the critical path's Copy time lies in disjoint spans inside it.
    /// </summary>
    internal static TimeSpan WallTimeOf(IEnumerable<CopyTaskRun> runs)
    {
        TimeSpan total = TimeSpan.Zero;
        DateTime? start = null, end = null;
        foreach (CopyTaskRun run in runs.OrderBy(r => r.Start))
        {
            if (end is DateTime open && run.Start <= open)
            {
                end = run.End > open ? run.End : open;
                continue;
            }

            if (start is DateTime s && end is DateTime e)
            {
                total += e - s;
            }

            (start, end) = (run.Start, run.End);
        }

        return start is DateTime last && end is DateTime lastEnd ? total + (lastEnd - last) : total;
    }

    /// <summary>Names a group's source folder when every source lies in one a user can move (or cannot).</summary>
    private static string? NameOf(IEnumerable<string> sources, string? packageCache, string? dotnetRoot)
    {
        var list = sources.ToList();
        if (packageCache is not null && list.All(s => Inside(s, packageCache)))
        {
            return $"the NuGet package cache ({packageCache})";
        }

        if (dotnetRoot is not null && list.All(s => Inside(s, dotnetRoot)))
        {
            return $"the .NET installation ({dotnetRoot})";
        }

        return null;
    }

    private static bool Inside(string path, string folder)
        => path.StartsWith(folder.TrimEnd(Path.DirectorySeparatorChar) + Path.DirectorySeparatorChar, OperatingSystem.IsLinux() ? StringComparison.Ordinal : StringComparison.OrdinalIgnoreCase);

    /// <summary>Where NuGet keeps packages for this user: NUGET_PACKAGES, or the default under the home folder.</summary>
    private static string? PackageCache()
    {
        string? configured = Environment.GetEnvironmentVariable("NUGET_PACKAGES");
        if (!string.IsNullOrEmpty(configured))
        {
            return Path.GetFullPath(configured);
        }

        string home = Environment.GetFolderPath(Environment.SpecialFolder.UserProfile);
        return home.Length > 0 ? Path.Combine(home, ".nuget", "packages") : null;
    }

    /// <summary>The .NET installation running this tool (the one that builds, unless DOTNET_ROOT says otherwise).</summary>
    private static string? DotnetRoot()
    {
        string? root = Environment.GetEnvironmentVariable("DOTNET_ROOT");
        if (!string.IsNullOrEmpty(root))
        {
            return Path.GetFullPath(root);
        }

        // The runtime lives in <root>/shared/Microsoft.NETCore.App/<version>/.
        string runtime = Path.GetDirectoryName(typeof(object).Assembly.Location) ?? string.Empty;
        return runtime.Length > 0 ? Path.GetFullPath(Path.Combine(runtime, "..", "..", "..")) : null;
    }
}
