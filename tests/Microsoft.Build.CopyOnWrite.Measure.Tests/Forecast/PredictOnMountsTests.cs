using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Measure.Forecast;
using Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Forecast;

/// <summary>
/// predict's column of docs/volumes.md's table "Where users build": a real `dotnet build -bl` (MSBuild's own Copy) of a
/// project that copies a file from one folder of the place into another, then the forecast of that binary log. One
/// file system that clones must be one pair that clones already (a btrfs subvolume has its own st_dev, yet is its
/// file system: the forecast once split it in two), and a place that cannot clone a pair that does not.
/// </summary>
[TestClass]
public sealed class PredictOnMountsTests
{
    [TestMethod]
    [DataRow("btrfs subvolumes", true)]
    [DataRow("bind mount", true)]
    [DataRow("overlayfs on xfs", true)]
    [DataRow("overlayfs on ext4", false)]
    [DataRow("fuse-overlayfs on xfs", false)]
    [DataRow("tmpfs", false)]
    public void The_forecast_groups_the_copy_as_the_kernel_clones_it(string place, bool clones)
    {
        using Mounts mounts = place switch
        {
            "btrfs subvolumes" => UserMounts.BtrfsSubvolumes(),
            "bind mount" => UserMounts.BindMount(),
            "overlayfs on xfs" => UserMounts.Overlay(LoopFileSystems.Xfs),
            "overlayfs on ext4" => UserMounts.Overlay(LoopFileSystems.Ext4),
            "fuse-overlayfs on xfs" => UserMounts.FuseOverlay(LoopFileSystems.Xfs),
            _ => UserMounts.Tmpfs(),
        };
        Assert.AreEqual(clones, UserMounts.KernelClone(mounts).Succeeded, $"the kernel's answer for {mounts.What} (cp --reflink=always)");
        string project = Path.Combine(mounts.Destination, "Copy.proj");
        File.WriteAllText(project, $"""
            <Project>
              <Target Name="Build"><Copy SourceFiles="{Path.Combine(mounts.Source, UserMounts.Payload)}" DestinationFolder="{Path.Combine(mounts.Destination, "copied")}" /></Target>
            </Project>
            """);
        string log = Path.Combine(TestScratch.NewFolder("predict-mounts"), "build.binlog");
        CopyForecast forecast = PredictCommand.Forecast(BinaryLogs.Of(project, log));

        CopiesBetweenVolumes pair = forecast.Pairs.Single();
        string said = $"{mounts.What}: {pair.Source.MountPoint} ({pair.Source.FileSystem}, {pair.Source.Key}) -> {pair.Destination.MountPoint} ({pair.Destination.FileSystem}, {pair.Destination.Key}); {pair.Source.Evidence}";
        Assert.AreEqual(clones, pair.SameVolume && pair.ClonesHere, said);
        if (place is "btrfs subvolumes" or "bind mount")
        {
            Assert.IsTrue(pair.SameVolume, "two mount points of one file system are one volume to the forecast: " + said);
        }
    }
}
