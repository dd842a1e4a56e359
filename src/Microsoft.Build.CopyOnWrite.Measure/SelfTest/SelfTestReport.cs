using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.SelfTest;

/// <summary>What the self-test found, per volume, with the machine's facts: as text, JSON, and a markdown block to paste into an issue.</summary>
internal sealed class SelfTestReport
{
    public SelfTestReport(IReadOnlyList<(string Name, string Value)> machine) => Machine = machine;

    public IReadOnlyList<(string Name, string Value)> Machine { get; }

    public List<SelfTestVolume> Volumes { get; } = new();

    public bool Passed => Volumes.All(volume => volume.Checks.All(check => check.Passed));

    /// <summary>An output differed from its source somewhere: the worst outcome, with an exit code of its own.</summary>
    public bool AnyMismatch => Volumes.Any(volume => volume.Checks.Any(check => check.Mismatch));

    /// <summary>The exit code of `doctor --selftest` when an output differed from its source.</summary>
    public const int MismatchExitCode = 4;

    public int ExitCode => AnyMismatch ? MismatchExitCode : Passed ? 0 : 1;

    public IEnumerable<string> Lines()
    {
        yield return "CopyOnWrite self-test: the real engine and Copy task, on your volumes, every output compared with its source";
        foreach ((string name, string value) in Machine)
        {
            yield return $"  {name}: {value}";
        }

        foreach (SelfTestVolume volume in Volumes)
        {
            yield return string.Empty;
            yield return $"{volume.Folder}: {volume.Facts.Root} ({volume.Facts.FileSystem}), {Clones(volume.Facts)}{(volume.Driver is null ? string.Empty : "; " + volume.Driver)}";
            foreach (SelfTestCheck check in volume.Checks)
            {
                yield return $"  {(check.Passed ? "ok  " : check.Mismatch ? "MISMATCH" : "FAILED")}  {check.Name}: {check.Detail}";
            }
        }

        yield return string.Empty;
        yield return AnyMismatch
            ? $"Result: an output differed from its source (exit code {MismatchExitCode}). Please report it with the markdown block (--selftest-markdown), and build with -p:DisableCopyOnWrite=true meanwhile."
            : Passed ? "Result: every check passed." : "Result: a check failed (see FAILED above); no output differed from its source.";
    }

    public string Json() => ToolJson.Write(new
    {
        passed = Passed,
        mismatch = AnyMismatch,
        machine = Machine.DistinctBy(fact => fact.Name).ToDictionary(fact => fact.Name, fact => fact.Value),
        volumes = Volumes.Select(volume => new
        {
            folder = volume.Folder,
            root = volume.Facts.Root,
            fileSystem = volume.Facts.FileSystem,
            canClone = volume.Facts.CanClone,
            cloneEvidence = volume.Facts.CloneEvidence,
            driver = volume.Driver,
            cloned = volume.Cloned,
            checks = volume.Checks.Select(check => new { name = check.Name, passed = check.Passed, mismatch = check.Mismatch, detail = check.Detail }),
            timings = volume.Timings.Select(timing => new { bytes = timing.Bytes, oursMicroseconds = timing.Ours.Rounded(), fileCopyMicroseconds = timing.Stock.Rounded() }),
        }),
    });

    /// <summary>A block to paste into an issue: the facts, each check, and the times.</summary>
    public string Markdown()
    {
        var text = new StringBuilder();
        text.AppendLine("### CopyOnWrite self-test");
        text.AppendLine();
        foreach ((string name, string value) in Machine)
        {
            text.AppendLine($"- {name}: `{value}`");
        }

        foreach (SelfTestVolume volume in Volumes)
        {
            text.AppendLine();
            text.AppendLine($"**{volume.Facts.Root}** ({volume.Facts.FileSystem}, {Clones(volume.Facts)}{(volume.Driver is null ? string.Empty : ", `" + volume.Driver + "`")})");
            text.AppendLine();
            text.AppendLine("| check | result | detail |");
            text.AppendLine("|---|---|---|");
            foreach (SelfTestCheck check in volume.Checks)
            {
                text.AppendLine($"| {check.Name} | {(check.Passed ? "ok" : check.Mismatch ? "**MISMATCH**" : "**failed**")} | {check.Detail.Replace("|", "\\|")} |");
            }

            if (volume.Timings.Count > 0)
            {
                text.AppendLine();
                text.AppendLine("| file | ours (µs) | File.Copy (µs) | ratio of medians |");
                text.AppendLine("|---|---|---|---|");
                foreach (SelfTestTiming timing in volume.Timings)
                {
                    text.AppendLine($"| {SelfTestRunner.SizeText(timing.Bytes)} | {timing.Ours} | {timing.Stock} | {(timing.Ours.Median / Math.Max(timing.Stock.Median, 0.001)).ToString("0.00", CultureInfo.InvariantCulture)} |");
                }
            }
        }

        return text.ToString();
    }

    private static string Clones(VolumeFacts facts) => facts.CanClone switch
    {
        true => $"clones ({facts.CloneEvidence})",
        false => $"does not clone ({facts.CloneEvidence})",
        null => $"cloning unknown ({facts.CloneEvidence})",
    };

}

internal sealed class SelfTestVolume
{
    public SelfTestVolume(string folder, VolumeFacts facts, string? driver)
    {
        Folder = folder;
        Facts = facts;
        Driver = driver;
    }

    public string Folder { get; }

    public VolumeFacts Facts { get; }

    /// <summary>The file system's driver facts where the OS gives them (Linux: the mount's source and options).</summary>
    public string? Driver { get; }

    public List<SelfTestCheck> Checks { get; } = new();

    public List<SelfTestTiming> Timings { get; } = new();

    /// <summary>How many of the checked files the engine cloned.</summary>
    public int Cloned { get; set; }
}

/// <param name="Mismatch">An output differed from its source.</param>
internal sealed record SelfTestCheck(string Name, bool Passed, string Detail, bool Mismatch);

internal sealed record SelfTestTiming(long Bytes, Spread Ours, Spread Stock);

/// <summary>Median, minimum and maximum of a few timings (µs).</summary>
internal readonly record struct Spread(double Median, double Min, double Max)
{
    public static Spread Of(IReadOnlyList<double> values)
    {
        double[] sorted = values.OrderBy(value => value).ToArray();
        double median = sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
        return new Spread(median, sorted[0], sorted[sorted.Length - 1]);
    }

    /// <summary>For the JSON: each to a tenth of a microsecond, as the text shows it.</summary>
    public object Rounded() => new { median = Tenth(Median), min = Tenth(Min), max = Tenth(Max) };

    private static double Tenth(double value) => double.Parse(value.ToString("0.0", CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);

    public override string ToString() => FormattableString.Invariant($"{Median:0} [{Min:0}-{Max:0}]");
}
