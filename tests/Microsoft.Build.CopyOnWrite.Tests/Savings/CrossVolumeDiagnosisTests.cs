using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Savings;

/// <summary>
/// Files copied, not cloned, because they come from another volume get one diagnosis per build that names
/// where they come from and where they go, as a message or, with CopyOnWriteWarnWhenNotCloned, warning COW002.
/// </summary>
[TestClass]
public sealed class CrossVolumeDiagnosisTests
{
    /// <summary>A Copy task's own diagnosis; the summary logger's says "in this build" (BuildSummaryTests).</summary>
    private const string Diagnosis = "in this Copy were copied, not cloned, because they come from";

    [TestMethod]
    public void Sources_on_another_volume_are_diagnosed_once_naming_both_folders()
    {
        // The shared build: projects on XFS, Lib's content on ext4: Lib copies it to its output and App copies it again
        // to its own (two Copy invocations in two projects cross the volumes). -m:1: one node, so exactly one diagnosis.
        CrossVolumeBuild build = CrossVolumeBuild.Shared;
        string output = build.Output;

        var diagnoses = SavingsProjects.LinesContaining(output, Diagnosis);
        Assert.AreEqual(1, diagnoses.Count, "expected one diagnosis for the build:\n" + string.Join("\n", SavingsProjects.LinesContaining(output, "CopyOnWrite")));
        StringAssert.Contains(diagnoses[0], $"come from {build.Content} on another volume than {build.Projects.Root}/Lib/bin/Debug/net10.0");
        StringAssert.Contains(diagnoses[0], $"put {build.Content} on the same volume as");
        Assert.AreEqual(0, SavingsProjects.LinesContaining(output, "warning COW002").Count, "a message unless asked for a warning");
        var copySummaries = SavingsProjects.LinesContaining(output, "because source and destination are on different volumes")
            .Where(line => !line.Contains("CopyOnWrite build summary:", System.StringComparison.Ordinal)).ToList();
        Assert.IsTrue(copySummaries.Count >= 2, "both projects' Copy summaries say why:\n" + output);
    }

    [TestMethod]
    public void One_file_from_another_volume_is_told_in_the_singular()
    {
        string content = LoopFileSystems.Ext4.NewFolder("content-one");
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("crossvolume-one"), contentFolder: content, contentFiles: 1);

        string output = projects.Build("-v:n", "-m:1");

        var diagnoses = SavingsProjects.LinesContaining(output, "CopyOnWrite: 1 file");
        Assert.AreEqual(1, diagnoses.Count, output);
        StringAssert.StartsWith(diagnoses[0], $"CopyOnWrite: 1 file (293 KiB) in this Copy was copied, not cloned, because it comes from {content} on another volume than ");
        StringAssert.EndsWith(diagnoses[0], "to clone it, or list it in CopyOnWriteAcceptCopiesFrom if it cannot move." + Microsoft.Build.CopyOnWrite.CopyOnWriteCodes.DoctorHint);
        Assert.IsTrue(SavingsProjects.LinesContaining(output, "copied 1 file (293 KiB) because source and destination are on different volumes").Count >= 1, output);
    }

    [TestMethod]
    public void The_build_summary_says_per_source_and_destination_volume_what_was_cloned_and_what_was_copied_and_points_to_the_doctor()
    {
        // The shared build: projects on XFS (cloned there), Lib's two content files on ext4 (copied into Lib's and App's outputs).
        CrossVolumeBuild build = CrossVolumeBuild.Shared;
        LoopFileSystem xfs = build.Xfs;
        LoopFileSystem ext4 = build.Ext4;
        string output = build.Output;
        string json = build.SummaryFile;

        string[] lines = build.Lines;
        int heading = System.Array.IndexOf(lines, "CopyOnWrite by volume, source -> destination:");
        Assert.IsTrue(heading >= 0, output);
        string[] pairLines = lines.Skip(heading + 1).Take(2).ToArray(); // most bytes first: here the copies
        Assert.AreEqual($"  {ext4.MountPoint} (ext4) -> {xfs.MountPoint} (xfs): copied 4 files (976.6 KiB), another volume", pairLines[0], output);
        StringAssert.Matches(pairLines[1], new System.Text.RegularExpressions.Regex($@"^  {xfs.MountPoint} \(xfs\) -> {xfs.MountPoint} \(xfs\): cloned [0-9]+ files \("));
        Assert.IsTrue(lines.Any(line => line.Contains("were copied, not cloned") && line.EndsWith(Microsoft.Build.CopyOnWrite.CopyOnWriteCodes.DoctorHint, System.StringComparison.Ordinal)), output);
        using var summary = System.Text.Json.JsonDocument.Parse(System.IO.File.ReadAllText(json));
        var pairs = summary.RootElement.GetProperty("volumePairs").EnumerateArray().ToArray();
        Assert.AreEqual(2, pairs.Length, output);
        Assert.AreEqual(4, pairs.Single(p => p.GetProperty("from").GetString() == $"{ext4.MountPoint} (ext4)").GetProperty("copied").GetProperty("files").GetInt32());

        // The build-wide diagnosis counts the whole build (the two Copy tasks' data lines added up), and says so.
        string buildWide = lines.Single(line => line.StartsWith("CopyOnWrite: ", System.StringComparison.Ordinal) && line.Contains("in this build were copied, not cloned", System.StringComparison.Ordinal));
        StringAssert.StartsWith(buildWide, "CopyOnWrite: 4 files (976.6 KiB) in this build were copied, not cloned, because they come from ");
    }

    [TestMethod]
    public void On_a_volume_that_cannot_clone_the_build_summary_says_what_was_copied_within_it()
    {
        LoopFileSystem ext4 = LoopFileSystems.Ext4;
        var projects = SavingsProjects.Create(ext4.NewFolder("within-ext4"));

        string output = projects.Build("-v:m", "-m:1", $"-logger:{projects.SummaryLoggerArgument()}");

        string[] lines = output.Split('\n').Select(line => line.TrimEnd('\r')).ToArray();
        int heading = System.Array.IndexOf(lines, "CopyOnWrite by volume, source -> destination:");
        Assert.IsTrue(heading >= 0, output);
        StringAssert.Matches(lines[heading + 1], new System.Text.RegularExpressions.Regex($@"^  {ext4.MountPoint} \(ext4\) -> {ext4.MountPoint} \(ext4\): copied [0-9]+ files \([^)]+\)$"));
        Assert.IsFalse(lines.Skip(heading + 2).Any(line => line.StartsWith("  /", System.StringComparison.Ordinal)), "one volume, one line:\n" + output);
    }

    [TestMethod]
    public void At_detailed_verbosity_each_file_copied_rather_than_cloned_gets_a_line_saying_why_and_a_cloned_file_none()
    {
        // The shared build, at detailed verbosity: Lib's two content files come from ext4 (copied); everything else stays on XFS (cloned).
        CrossVolumeBuild build = CrossVolumeBuild.Shared;
        string content = build.Content;
        SavingsProjects projects = build.Projects;
        string output = build.Output;

        var perFile = SavingsProjects.DistinctLinesContaining(output, "not cloned: source and destination are on different volumes.");
        Assert.AreEqual(2, perFile.Count(line => line.Contains($"Copied \"{content}/first.bin\" to \"{projects.Root}/Lib/bin/Debug/net10.0/first.bin\" (293 KiB)")
            || line.Contains($"Copied \"{content}/second.bin\" to \"{projects.Root}/Lib/bin/Debug/net10.0/second.bin\" (195.3 KiB)")), string.Join("\n", perFile));
        Assert.IsTrue(SavingsProjects.LinesContaining(output, "CopyOnWrite: cloned").Count >= 2, "the projects' own files are cloned on XFS:\n" + output);
        Assert.AreEqual(0, SavingsProjects.LinesContaining(output, "Cloned \"").Count, "a cloned file is counted in its Copy's line, not given one of its own");
    }

    [TestMethod]
    public void CopyOnWriteWarnWhenNotCloned_makes_it_warning_COW002()
    {
        string content = LoopFileSystems.Ext4.NewFolder("content");
        var projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("crossvolume-warn"), directoryBuildProps: "<CopyOnWriteWarnWhenNotCloned>true</CopyOnWriteWarnWhenNotCloned>", contentFolder: content);

        string output = projects.Build("-v:m", "-m:1");

        var warnings = SavingsProjects.DistinctLinesContaining(output, "warning COW002");
        Assert.AreEqual(1, warnings.Count, output);
        StringAssert.Contains(warnings[0], $"come from {content} on another volume than");
        StringAssert.Contains(output, "1 Warning(s)");
    }
}
