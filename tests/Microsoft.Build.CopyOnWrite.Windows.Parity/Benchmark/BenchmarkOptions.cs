using System;
using System.Collections.Generic;
using System.Globalization;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity.Benchmark;

/// <summary>The benchmark's command line was wrong; the message says how, then how to call it.</summary>
internal sealed class BenchmarkUsageException(string message) : Exception(message + Environment.NewLine + BenchmarkOptions.Usage);

/// <summary>
/// `--benchmark --folder DIR [--folder DIR ...] [--rounds N] [--out FILE] [--smoke]`, parsed without touching
/// any file, so that the rules are unit tested on Linux (tests/Microsoft.Build.CopyOnWrite.Tests links this file).
/// </summary>
internal sealed record BenchmarkOptions(IReadOnlyList<string> Folders, int Rounds, string? Output, bool Smoke)
{
    public const string Switch = "--benchmark";
    public const int DefaultRounds = 21;
    public const int SmokeRounds = 2;

    /// <summary>Enough to keep a mistyped number from running for days.</summary>
    public const int MaxRounds = 1000;

    public static readonly string Usage =
        "usage: Microsoft.Build.CopyOnWrite.Windows.Parity.exe --benchmark --folder DIR [--folder DIR ...] [--rounds N] [--out FILE.md] [--smoke]" + "\n" +
        "  --folder  a folder to copy in (give a Dev Drive / ReFS one and an NTFS one); created when missing" + "\n" +
        $"  --rounds  timed rounds per cell after one warm-up round (default {DefaultRounds}, 1 to {MaxRounds})" + "\n" +
        "  --out     also write the Markdown table to this file" + "\n" +
        $"  --smoke   {SmokeRounds} rounds and no warm-up: proves the run works end to end, measures nothing worth quoting";

    /// <summary>The sizes every folder is timed at, the ones issue 25 asks for.</summary>
    public static IReadOnlyList<long> Sizes { get; } = new long[] { 0, 1 << 10, 4 << 10, 64 << 10, 1 << 20, 16 << 20 };

    public bool WarmUp => !Smoke;

    /// <param name="args">The whole command line; <see cref="Switch"/> may be anywhere in it.</param>
    /// <exception cref="BenchmarkUsageException">An unknown option, a missing or bad value, or no folder.</exception>
    public static BenchmarkOptions Parse(IReadOnlyList<string> args)
    {
        var folders = new List<string>();
        int? rounds = null;
        string? output = null;
        bool smoke = false;
        bool sawSwitch = false;
        for (int i = 0; i < args.Count; i++)
        {
            string arg = args[i];
            switch (arg)
            {
                case Switch:
                    sawSwitch = true;
                    break;
                case "--smoke":
                    smoke = true;
                    break;
                case "--folder":
                    string folder = ValueAfter(args, ref i);
                    if (folders.Exists(f => string.Equals(f.TrimEnd('\\', '/'), folder.TrimEnd('\\', '/'), StringComparison.OrdinalIgnoreCase)))
                    {
                        throw new BenchmarkUsageException($"--folder {folder} is given twice.");
                    }

                    folders.Add(folder);
                    break;
                case "--rounds":
                    string text = ValueAfter(args, ref i);
                    if (!int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int parsed) || parsed < 1 || parsed > MaxRounds)
                    {
                        throw new BenchmarkUsageException($"--rounds must be a whole number from 1 to {MaxRounds}, not \"{text}\".");
                    }

                    rounds = parsed;
                    break;
                case "--out":
                    output = ValueAfter(args, ref i);
                    break;
                default:
                    throw new BenchmarkUsageException($"unknown benchmark option \"{arg}\".");
            }
        }

        if (!sawSwitch)
        {
            throw new BenchmarkUsageException($"{Switch} is missing.");
        }

        if (folders.Count == 0)
        {
            throw new BenchmarkUsageException("give at least one --folder (a Dev Drive / ReFS folder and an NTFS folder, to compare them).");
        }

        return new BenchmarkOptions(folders, rounds ?? (smoke ? SmokeRounds : DefaultRounds), output, smoke);
    }

    private static string ValueAfter(IReadOnlyList<string> args, ref int i)
    {
        string option = args[i];
        if (i + 1 >= args.Count || args[i + 1].StartsWith("--", StringComparison.Ordinal) || args[i + 1].Length == 0)
        {
            throw new BenchmarkUsageException($"{option} needs a value.");
        }

        return args[++i];
    }
}
