using System.Collections.Generic;
using System.Linq;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;

namespace Microsoft.Build.CopyOnWrite.Measure;

// What a reader needs to read the numbers right, judged from what was measured here: apart from the tables because it
// is judgement, not arithmetic, and the part most likely to change as platforms do.
internal sealed partial class MeasurementReport
{
    /// <summary>What a reader must know to read the comparisons right, from what was measured here.</summary>
    internal IEnumerable<string> Notes()
    {
        List<MeasuredVolume> devDrives = _volumes.Where(v => v.Identity.DevDrive == true).ToList();
        if (devDrives.Count > 0)
        {
            string trust = string.Join("; ", devDrives.Select(v => $"{v.Label} is {(v.Identity.TrustedDevDrive == true ? "trusted" : "not trusted")}"));
            yield return "**On a Dev Drive, part of any gain over NTFS is the file system itself, not cloning**: ReFS handles metadata differently, and on a trusted Dev Drive Microsoft Defender scans in performance mode (after a file is opened, not before). "
                + $"What cloning adds shows in ours against stock on the same Dev Drive ({trust}).";
        }

        List<MeasuredVolume> stockClones = _volumes.Where(v => v.Identity.StockCopyClones == true).ToList();
        if (OperatingSystem.IsLinux())
        {
            yield return "**On Linux the stock Copy task clones too** wherever the file system can (XFS with reflink, btrfs): .NET's `File.Copy` tries FICLONE first. "
                + (stockClones.Count > 0
                    ? $"So on {string.Join(", ", stockClones.Select(v => v.Label))} ours against stock shows the difference between the two tasks (ours replaces files atomically and accounts for every file), not what cloning brings; what cloning brings shows across volumes."
                    : "None of the volumes measured here can clone, so neither task cloned.");
        }
        else if (OperatingSystem.IsMacOS())
        {
            yield return "**On macOS the stock Copy task clones too** on APFS: .NET's `File.Copy` tries clonefile first. So there ours against stock shows the difference between the two tasks, not what cloning brings; what cloning brings shows across volumes.";
        }
        else if (OperatingSystem.IsWindows())
        {
            yield return stockClones.Count > 0
                ? $"**On this Windows the stock Copy task clones too** on {string.Join(", ", stockClones.Select(v => v.Label))}: from Windows 11 24H2 (build {WindowsVolumeFacts.FirstBuildWhoseCopyFileClones}) CopyFile block-clones by itself on ReFS. So there ours against stock shows the difference between the two tasks, not what cloning brings."
                : "On this Windows the stock Copy task copies every byte (CopyFile block-clones by itself only from Windows 11 24H2): ours against stock on a volume that can clone is what cloning brings.";
        }

        yield return $"Across volumes the same Copy task runs on different file systems: the difference is the file system's, cloning included where it can clone. Ratios are against {Baseline.Label}.";
        foreach (MeasuredVolume v in _volumes.Where(v => !v.Dedicated))
        {
            yield return $"Disk used on {v.Label} is the whole file system's change during the build, and other programs write to it too: indicative only.{(v.Identity.UsedSpaceCaveat is string caveat ? " " + caveat + "." : string.Empty)}";
        }

        foreach ((string what, string why) in _session.NotMeasured)
        {
            yield return $"{what}: not measured here ({why}).";
        }

        if (_options.Runs < 3)
        {
            yield return $"{_options.Runs} run{(_options.Runs == 1 ? string.Empty : "s")} per volume and task: too few for a spread; differences of a few percent in build time are noise on a shared machine.";
        }
    }
}
