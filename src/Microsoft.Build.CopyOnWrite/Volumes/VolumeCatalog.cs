using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Runtime.InteropServices;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>
/// The one place a build asks about volumes: a path's volume, its file system, and whether it clones; cached for
/// <see cref="Lifetime"/>, as MSBuild nodes outlive mounts.
/// </summary>
internal sealed class VolumeCatalog
{
    // What was learnt about a volume is believed as long as the engines believe a refusal: one expiry for both.
    private static readonly Lazy<VolumeCatalog> ThisProcess = new(() => new VolumeCatalog(ForThisProcess(MountTableLifetime), CloneCapabilityCache.DefaultRefusalLifetime));

    // Builds outlive mounts; re-reading the table every few seconds is cheap next to a build.
    private static readonly TimeSpan MountTableLifetime = TimeSpan.FromSeconds(10);

    // Paths whose volume is remembered at most; past it the memory starts again (a build names a few hundred folders).
    private const int LocationsRemembered = 4096;

    private readonly IVolumeInspector _inspector;
    // Entries are classes, not value tuples: a dictionary of reference types runs code .NET ships precompiled, where a
    // tuple value makes the JIT compile the dictionary's methods in every MSBuild node (about 0.3 ms, first call).
    private readonly Dictionary<string, Dated<bool?>> _clones = new(StringComparer.Ordinal);
    private readonly Dictionary<string, Dated<VolumeLocation>> _locations = new(RootComparer);
    private readonly TimeSpan _locationLifetime;
    private readonly object _lock = new();

    public VolumeCatalog(IVolumeInspector inspector, TimeSpan lifetime)
    {
        _inspector = inspector;
        Lifetime = lifetime;
        _locationLifetime = lifetime < MountTableLifetime ? lifetime : MountTableLifetime;
    }

    /// <summary>How volume roots and the folders on them compare: case-insensitively on Windows (C:\ is c:\), exactly elsewhere.</summary>
    public static StringComparer RootComparer { get; } =
        RuntimeInformation.IsOSPlatform(OSPlatform.Windows) ? StringComparer.OrdinalIgnoreCase : StringComparer.Ordinal;

    /// <summary>The catalog of this process, shared by the task's messages and the summary logger.</summary>
    public static VolumeCatalog Shared => ThisProcess.Value;

    public TimeSpan Lifetime { get; }

    /// <summary>The inspector of this OS; <paramref name="mountTableLifetime"/> is how long a read mount table is reused.</summary>
    public static IVolumeInspector ForThisProcess(TimeSpan mountTableLifetime)
    {
#if NET
        if (OperatingSystem.IsLinux())
        {
            return new LinuxVolumes(mountTableLifetime);
        }

        if (OperatingSystem.IsMacOS())
        {
            return new MacVolumes(new MacVolumeSystem());
        }
#endif
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            return new WindowsVolumes(new WindowsVolumeSystem());
        }

        return new OtherVolumes();
    }

    /// <summary>
    /// The volume <paramref name="path"/> is on, remembered per path while the mount table is believed: finding it resolves
    /// every link on the way, and every Copy of a project asks about the same few folders.
    /// </summary>
    public VolumeLocation Locate(string path)
    {
        if (_locationLifetime <= TimeSpan.Zero)
        {
            return _inspector.Locate(path);
        }

        lock (_lock)
        {
            if (_locations.TryGetValue(path, out Dated<VolumeLocation>? known) && !IsOlderThan(known.When, _locationLifetime))
            {
                return known.Value;
            }
        }

        VolumeLocation location = _inspector.Locate(path);
        lock (_lock)
        {
            if (_locations.Count >= LocationsRemembered)
            {
                _locations.Clear();
            }

            _locations[path] = new Dated<VolumeLocation>(location, Stopwatch.GetTimestamp());
        }

        return location;
    }

    /// <summary>Whether files can be cloned within the volume of <paramref name="folder"/>, from the cache while it is fresh.</summary>
    public bool? CanClone(string folder)
    {
        string root = Locate(folder).Root;
        lock (_lock)
        {
            if (_clones.TryGetValue(root, out Dated<bool?>? known) && !IsStale(known.When) && known.Value is not null)
            {
                return known.Value;
            }
        }

        // A folder that could not be probed says "unknown"; another folder of the same volume may do better, so an
        // unknown is not cached in place of an answer.
        bool? canClone = _inspector.CanClone(folder);
        lock (_lock)
        {
            if (canClone is not null || !_clones.ContainsKey(root))
            {
                _clones[root] = new Dated<bool?>(canClone, Stopwatch.GetTimestamp());
            }
        }

        return canClone;
    }

    private bool IsStale(long when) => IsOlderThan(when, Lifetime);

    private static bool IsOlderThan(long when, TimeSpan age) => Stopwatch.GetTimestamp() - when > age.TotalSeconds * Stopwatch.Frequency;

    private sealed class Dated<T>(T value, long when)
    {
        public T Value { get; } = value;

        public long When { get; } = when;
    }

    /// <summary>The folder itself or, for a path that does not exist yet, its nearest existing ancestor.</summary>
    internal static string NearestExisting(string path)
    {
        string? current = Path.GetFullPath(path);
        while (current is not null && !Directory.Exists(current) && !File.Exists(current))
        {
            current = Path.GetDirectoryName(current);
        }

        return current ?? Path.GetPathRoot(Path.GetFullPath(path)) ?? path;
    }
}

/// <summary>An OS the catalog has no inspector for: the drive root and .NET's name for its format; cloning unknown (we do not clone there).</summary>
internal sealed class OtherVolumes : IVolumeInspector
{
    public VolumeLocation Locate(string path)
    {
        string root = Path.GetPathRoot(Path.GetFullPath(path)) ?? string.Empty;
        try
        {
            return new VolumeLocation(root, new DriveInfo(root).DriveFormat);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return new VolumeLocation(root, "unknown");
        }
    }

    public bool? CanClone(string folder) => null;
}
