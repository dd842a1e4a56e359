using System;
using System.Collections.Concurrent;
using System.Diagnostics;

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
internal sealed class CloneCapabilityCache
{
    public static readonly TimeSpan DefaultRefusalLifetime = TimeSpan.FromSeconds(30);

    private readonly ConcurrentDictionary<VolumePair, Refusal> _refusals = new();
    private readonly ConcurrentDictionary<ulong, bool> _sourcesEverRefused = new();
    private readonly Func<long> _clockTicks;

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
        if (!_refusals.TryGetValue(volumes, out Refusal refusal))
        {
            return null;
        }

        if (IsStale(refusal.WhenTicks))
        {
            _refusals.TryRemove(volumes, out _);
            return null;
        }

        return refusal;
    }

    public void RememberRefusal(VolumePair volumes, FallbackReason reason, string? detail)
    {
        _sourcesEverRefused[volumes.SourceVolume] = true;
        _refusals[volumes] = new Refusal(reason, detail, _clockTicks());
    }

    /// <summary>
    /// False when no refusal was ever remembered for a source on this volume: then there is nothing to look
    /// up, and an engine can skip working out the destination's half of the key (a statfs per file) until a
    /// clone is refused. True can be stale (it is never cleared); that only costs the lookup.
    /// </summary>
    /// <remarks>ContainsKey alone: it takes no lock, while IsEmpty on an empty dictionary takes all of them (every file asks).</remarks>
    public bool HasRefusalsFrom(ulong sourceVolume) => _sourcesEverRefused.ContainsKey(sourceVolume);

    /// <summary>The file system cloned after all (remounted, reformatted): forget what it said before.</summary>
    public void Forget(VolumePair volumes) => _refusals.TryRemove(volumes, out _);

    public readonly struct Refusal
    {
        public Refusal(FallbackReason reason, string? detail, long whenTicks)
        {
            Reason = reason;
            Detail = detail;
            WhenTicks = whenTicks;
        }

        public FallbackReason Reason { get; }

        public string? Detail { get; }

        public long WhenTicks { get; }
    }
}

/// <summary>Identifies a (source, destination) pair of file systems as the OS names them.</summary>
/// <param name="SourceVolume">Linux: st_dev; macOS: st_dev.</param>
/// <param name="DestinationVolume">Linux: statfs f_fsid of the destination's file system; macOS: st_dev.</param>
/// <param name="DestinationFileSystemType">Linux: statfs f_type; elsewhere 0. A device number reused by another file system changes this.</param>
internal readonly record struct VolumePair(ulong SourceVolume, ulong DestinationVolume, long DestinationFileSystemType);
