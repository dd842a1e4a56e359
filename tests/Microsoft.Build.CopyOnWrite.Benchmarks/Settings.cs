using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Benchmarks;

/// <summary>What to run on and how, from the command line and the environment that build/benchmark.sh sets.</summary>
internal static class Settings
{
    public const int KiB = 1 << 10;
    public const int MiB = 1 << 20;

    /// <summary>The file sizes of the engine benchmark.</summary>
    public static readonly long[] AllSizes = [0, 1, KiB, 16 * KiB, 256 * KiB, MiB, 16 * MiB, 256 * MiB];

    /// <summary>The smoke run (<c>--smoke</c>): a few sizes, to check the harness, never to quote.</summary>
    public static readonly long[] SmokeSizes = [0, KiB, MiB, 16 * MiB];

    public static bool Smoke { get; set; }

    /// <summary>Mount point of each loop file system (COW_BENCH_XFS, COW_BENCH_BTRFS, COW_BENCH_EXT4).</summary>
    public static string MountPoint(string kind)
        => Environment.GetEnvironmentVariable("COW_BENCH_" + kind.ToUpperInvariant()) is string path && Directory.Exists(path)
            ? path
            : throw new InvalidOperationException($"COW_BENCH_{kind.ToUpperInvariant()} must name the mount point of a {kind} file system (build/benchmark.sh sets it).");

    public static bool Has(string kind) => Environment.GetEnvironmentVariable("COW_BENCH_" + kind.ToUpperInvariant()) is string path && Directory.Exists(path);

    public static IEnumerable<string> Available(params string[] kinds) => kinds.Where(Has);

    public static IEnumerable<long> Sizes => Smoke ? SmokeSizes : AllSizes;

    public static string FormatSize(long bytes) => bytes switch
    {
        >= MiB when bytes % MiB == 0 => $"{bytes / MiB} MiB",
        >= KiB when bytes % KiB == 0 => $"{bytes / KiB} KiB",
        _ => $"{bytes} B",
    };
}
