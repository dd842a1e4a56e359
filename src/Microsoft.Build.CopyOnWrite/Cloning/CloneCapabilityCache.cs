using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Remembers per pair of volumes that the file system refused to clone (never a "yes", which could go stale silently),
/// for <see cref="RefusalLifetime"/>: nodes outlive remounts, and a stale refusal only makes us copy and say so.
/// </summary>
internal sealed class CloneCapabilityCache
{
    public static readonly TimeSpan DefaultRefusalLifetime = TimeSpan.FromSeconds(30);

    private readonly object _writeLock = new();
    private readonly Func<long> _clockTicks;
    // Small arrays replaced whole under the lock, read without it: a generic collection over our structs cannot be
    // precompiled (docs/precompiled-task.md). A process meets only a handful of volume pairs.
    private Entry[] _refusals = new Entry[0];
    private ulong[] _sourcesEverRefused = new ulong[0];
    private FaultCount[] _faults = new FaultCount[0];

    public CloneCapabilityCache()
        : this(DefaultRefusalLifetime, Stopwatch.GetTimestamp)
    {
    }

    /// <param name="refusalLifetime">How long a refusal is believed.</param>
    /// <param name="clockTicks">A monotonic clock in <see cref="Stopwatch.Frequency"/> ticks (tests pass their own).</param>
    public CloneCapabilityCache(TimeSpan refusalLifetime, Func<long> clockTicks)
    {
        RefusalLifetime = refusalLifetime;
        _clockTicks = clockTicks;
    }

    public TimeSpan RefusalLifetime { get; }

    /// <summary>Whether something learnt at <paramref name="whenTicks"/> is older than <see cref="RefusalLifetime"/>.</summary>
    public bool IsStale(long whenTicks) => _clockTicks() - whenTicks > RefusalLifetime.TotalSeconds * Stopwatch.Frequency;

    /// <summary>Now, on the clock this cache was given.</summary>
    public long NowTicks => _clockTicks();

    /// <summary>The remembered refusal for this pair of volumes, or null: try to clone.</summary>
    public Refusal? RememberedRefusal(VolumePair volumes)
    {
        Entry[] refusals = Volatile.Read(ref _refusals);
        int index = IndexOf(refusals, volumes);
        if (index < 0)
        {
            return null;
        }

        Refusal refusal = refusals[index].Refusal;
        if (IsStale(refusal.WhenTicks))
        {
            Forget(volumes);
            return null;
        }

        return refusal;
    }

    public void RememberRefusal(VolumePair volumes, FallbackReason reason, string? detail)
    {
        var entry = new Entry(volumes, new Refusal(reason, detail, _clockTicks()));
        lock (_writeLock)
        {
            if (!HasRefusalsFrom(volumes.SourceVolume))
            {
                ulong[] sources = _sourcesEverRefused;
                var withSource = new ulong[sources.Length + 1];
                Array.Copy(sources, withSource, sources.Length);
                withSource[sources.Length] = volumes.SourceVolume;
                Volatile.Write(ref _sourcesEverRefused, withSource);
            }

            Entry[] refusals = _refusals;
            int index = IndexOf(refusals, volumes);
            var replaced = new Entry[index < 0 ? refusals.Length + 1 : refusals.Length];
            Array.Copy(refusals, replaced, refusals.Length);
            replaced[index < 0 ? refusals.Length : index] = entry;
            Volatile.Write(ref _refusals, replaced);
        }
    }

    /// <summary>Adds to this pair's clone refusal that copy_file_range was refused too: next files skip it.</summary>
    public void RememberInKernelCopyRefused(VolumePair volumes)
    {
        lock (_writeLock)
        {
            Entry[] refusals = _refusals;
            int index = IndexOf(refusals, volumes);
            if (index < 0 || refusals[index].Refusal.InKernelCopyRefused)
            {
                return;
            }

            Refusal known = refusals[index].Refusal;
            var replaced = (Entry[])refusals.Clone();
            replaced[index] = new Entry(volumes, known with { InKernelCopyRefused = true });
            Volatile.Write(ref _refusals, replaced);
        }
    }

    /// <summary>
    /// False when no refusal was ever remembered for a source on this volume, so an engine can skip the destination's
    /// half of the key (a statfs per file). True can be stale (never cleared), which only costs a lookup.
    /// </summary>
    public bool HasRefusalsFrom(ulong sourceVolume)
    {
        foreach (ulong source in Volatile.Read(ref _sourcesEverRefused))
        {
            if (source == sourceVolume)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The file system cloned after all (remounted, reformatted): forget what it said before.</summary>
    public void Forget(VolumePair volumes)
    {
        lock (_writeLock)
        {
            Entry[] refusals = _refusals;
            int index = IndexOf(refusals, volumes);
            if (index < 0)
            {
                return;
            }

            var remaining = new Entry[refusals.Length - 1];
            Array.Copy(refusals, remaining, index);
            Array.Copy(refusals, index + 1, remaining, index, remaining.Length - index);
            Volatile.Write(ref _refusals, remaining);
        }
    }

    /// <summary>The ladder's count of engine faults between these volumes; 0 once the latest is stale.</summary>
    public int RecentFaults(VolumePair volumes)
    {
        foreach (FaultCount faults in Volatile.Read(ref _faults))
        {
            if (faults.Volumes == volumes)
            {
                return IsStale(faults.LatestTicks) ? 0 : faults.Count;
            }
        }

        return 0;
    }

    /// <summary>Counts one more engine fault between these volumes; a count whose latest fault is stale starts again at 1.</summary>
    public void RememberFault(VolumePair volumes)
    {
        lock (_writeLock)
        {
            FaultCount[] counts = _faults;
            int index = counts.Length - 1;
            while (index >= 0 && counts[index].Volumes != volumes)
            {
                index--;
            }

            int count = index < 0 || IsStale(counts[index].LatestTicks) ? 1 : counts[index].Count + 1;
            var replaced = new FaultCount[index < 0 ? counts.Length + 1 : counts.Length];
            Array.Copy(counts, replaced, counts.Length);
            replaced[index < 0 ? counts.Length : index] = new FaultCount(volumes, count, _clockTicks());
            Volatile.Write(ref _faults, replaced);
        }
    }

    private static int IndexOf(Entry[] refusals, VolumePair volumes)
    {
        for (int i = 0; i < refusals.Length; i++)
        {
            if (refusals[i].Volumes == volumes)
            {
                return i;
            }
        }

        return -1;
    }

    private readonly record struct Entry(VolumePair Volumes, Refusal Refusal);

    private readonly record struct FaultCount(VolumePair Volumes, int Count, long LatestTicks);

    /// <param name="InKernelCopyRefused">Linux: copy_file_range was refused between these volumes too (<see cref="RememberInKernelCopyRefused"/>).</param>
    public readonly record struct Refusal(FallbackReason Reason, string? Detail, long WhenTicks, bool InKernelCopyRefused = false);
}

/// <summary>
/// A (source, destination) pair of file systems as the OS names them: the one key of the engines' refusals and the
/// ladder's faults (<see cref="IPlainFiles.VolumesOf"/> makes it from two paths, the engines from their open files).
/// </summary>
/// <param name="SourceVolume">Linux: st_dev; macOS: st_dev; Windows: the source's root (<see cref="BetweenRoots"/>).</param>
/// <param name="DestinationVolume">Linux: statfs f_fsid of the destination's file system; macOS: st_dev; Windows: the destination's root.</param>
/// <param name="DestinationFileSystemType">Linux: statfs f_type; elsewhere 0. A device number reused by another file system changes this.</param>
internal readonly record struct VolumePair(ulong SourceVolume, ulong DestinationVolume, long DestinationFileSystemType)
{
    private static readonly List<string> RootsSeen = new();

    /// <summary>Two volumes known by their roots (a drive, a share), numbered in the order this process meets them.</summary>
    public static VolumePair BetweenRoots(string sourceRoot, string destinationRoot) => new(Number(sourceRoot), Number(destinationRoot), 0);

    private static ulong Number(string root)
    {
        lock (RootsSeen)
        {
            int index = RootsSeen.FindIndex(seen => string.Equals(seen, root, StringComparison.OrdinalIgnoreCase));
            if (index < 0)
            {
                RootsSeen.Add(root);
                index = RootsSeen.Count - 1;
            }

            return (ulong)index + 1;
        }
    }
}
