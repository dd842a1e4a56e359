using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

namespace Microsoft.Build.CopyOnWrite.Tests.Savings;

/// <summary>
/// One cross-volume build, made once per test process and read by every test that asks it
/// (<see cref="CrossVolumeDiagnosisTests"/> and <see cref="BuildSummaryTests"/>): the projects on XFS, Lib's two content
/// files on ext4, so that Lib copies them into its output and App copies them again into its own (two Copy tasks in
/// two projects cross the volumes) while everything else is cloned on XFS. One node (-m:1: exactly one diagnosis per
/// Copy); detailed verbosity on the console (the per-file lines, and every message normal verbosity shows) with the
/// summary logger (its lines, and summary.json); and a file logger at minimal verbosity (what -v:m shows of the build).
/// </summary>
internal sealed class CrossVolumeBuild
{
    private static readonly Lazy<CrossVolumeBuild> Built = new(() => new CrossVolumeBuild());

    private CrossVolumeBuild()
    {
        Xfs = LoopFileSystems.Xfs;
        Ext4 = LoopFileSystems.Ext4;
        Content = Ext4.NewFolder("content");
        Projects = SavingsProjects.Create(Xfs.NewFolder("crossvolume"), contentFolder: Content);
        SummaryFile = Path.Combine(Projects.Root, "summary.json");
        string minimalLog = Path.Combine(Projects.Root, "minimal.log");
        Output = Projects.Build("-v:d", "-m:1", $"-logger:{Projects.SummaryLoggerArgument()};SummaryFile={SummaryFile}", "-fl", $"-flp:LogFile={minimalLog};Verbosity=minimal");
        MinimalOutput = File.ReadAllText(minimalLog);
        Lines = Output.Split('\n').Select(line => line.TrimEnd('\r')).ToArray();
    }

    /// <summary>The build, made the first time a test asks for it (a missing volume ends each such test as skipped).</summary>
    public static CrossVolumeBuild Shared => Built.Value;

    public LoopFileSystem Xfs { get; }

    public LoopFileSystem Ext4 { get; }

    /// <summary>The folder on ext4 that Lib's content files (first.bin, 300 KB; second.bin, 200 KB) come from.</summary>
    public string Content { get; }

    public SavingsProjects Projects { get; }

    /// <summary>What the summary logger wrote with SummaryFile=.</summary>
    public string SummaryFile { get; }

    /// <summary>The console: -v:d, and the summary logger's lines.</summary>
    public string Output { get; }

    /// <summary><see cref="Output"/>'s lines, as printed.</summary>
    public string[] Lines { get; }

    /// <summary>The file logger's log at minimal verbosity (the summary logger writes to the console only).</summary>
    public string MinimalOutput { get; }
}
