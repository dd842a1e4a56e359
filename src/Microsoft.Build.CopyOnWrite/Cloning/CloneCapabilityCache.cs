using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Remembers, per (source volume, destination volume), that the file system refused to clone, so the
/// refused call is not paid for every file. Only refusals are remembered: an attempt that succeeds needs
/// no memory, and a remembered "yes" could go stale silently.
/// </summary>
/// <remarks>
/// MSBuild nodes live across builds while volumes are unmounted and remounted, and a device number can
/// come back as a different file system. So a refusal is forgotten after <see cref="RefusalLifetime"/>;
/// the cost is one more refused call per volume pair per lifetime. A stale refusal can only make us copy
/// where we could have cloned (and say "copied" truthfully): our copy never clones behind our back.
/// </remarks>
/// <remarks>
/// A process meets a handful of volume pairs, so the entries are small arrays, searched in a loop and replaced whole
/// under a lock (readers take no lock). Not ConcurrentDictionary: its instantiations over these value types are
/// framework code that cannot be precompiled into our assembly, and the JIT compiled about twenty of its methods
/// on the first Copy of every MSBuild node (docs/results/benchmarks.md; ReadyToRunTests' cross-volume copy holds it).
/// The ladder's fault counts are kept the same way.
/// </remarks>
internal sealed class CloneCapabilityCache
{
    public static readonly TimeSpan DefaultRefusalLifetime = TimeSpan.FromSeconds(30);

    private readonly object _writeLock = new();
    private readonly Func<long> _clockTicks;
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

    /// <summary>
    /// Adds to the remembered clone refusal for this pair that the kernel's own copy (copy_file_range) was refused too
    /// (EXDEV between two local file systems, EOPNOTSUPP...), so the next files go straight to the plain copy. Forgotten
    /// with the clone refusal; nothing is remembered where no clone refusal is.
    /// </summary>
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
            replaced[index] = new Entry(volumes, new Refusal(known.Reason, known.Detail, known.WhenTicks, inKernelCopyRefused: true));
            Volatile.Write(ref _refusals, replaced);
        }
    }

    /// <summary>
    /// False when no refusal was ever remembered for a source on this volume: then there is nothing to look
    /// up, and an engine can skip working out the destination's half of the key (a statfs per file) until a
    /// clone is refused. True can be stale (it is never cleared); that only costs the lookup.
    /// </summary>
    /// <remarks>Every file asks: a lock-free read of a short array.</remarks>
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

    /// <summary>
    /// How many times the engine failed between these volumes with faults close together (the fallback ladder's count):
    /// 0 once the latest is older than <see cref="RefusalLifetime"/>.
    /// </summary>
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

    private readonly struct Entry
    {
        public Entry(VolumePair volumes, Refusal refusal)
        {
            Volumes = volumes;
            Refusal = refusal;
        }

        public VolumePair Volumes { get; }

        public Refusal Refusal { get; }
    }

    private readonly record struct FaultCount(VolumePair Volumes, int Count, long LatestTicks);

    public readonly struct Refusal
    {
        public Refusal(FallbackReason reason, string? detail, long whenTicks, bool inKernelCopyRefused = false)
        {
            Reason = reason;
            Detail = detail;
            WhenTicks = whenTicks;
            InKernelCopyRefused = inKernelCopyRefused;
        }

        public FallbackReason Reason { get; }

        public string? Detail { get; }

        public long WhenTicks { get; }

        /// <summary>Linux: copy_file_range was refused between these volumes too (<see cref="RememberInKernelCopyRefused"/>).</summary>
        public bool InKernelCopyRefused { get; }
    }
}

/// <summary>
/// Identifies a (source, destination) pair of file systems as the OS names them: the one key of what this process
/// remembers about a pair of volumes, the engines' refusals and the fallback ladder's faults alike
/// (<see cref="IPlainFiles.VolumesOf"/> makes it from two paths as the engines make it from their open files).
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
