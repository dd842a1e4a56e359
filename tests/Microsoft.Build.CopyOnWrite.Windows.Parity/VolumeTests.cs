using System.Collections.Generic;
using System.IO;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>
/// The volume component (what the doctor and the build summary say about volumes) on Windows' own answers:
/// GetVolumePathName, GetVolumeInformation, GetDriveType, FSCTL_QUERY_PERSISTENT_VOLUME_STATE, against what .NET's DriveInfo says.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("windows")]
internal static class VolumeTests
{
    public static IEnumerable<WindowsTest> All(string scratch)
    {
        yield return new WindowsTest("Volumes", "a folder's volume and file system are Windows' own, and a path not made yet is on its parent's volume", log =>
        {
            string folder = Path.Combine(scratch, "volumes");
            Directory.CreateDirectory(folder);
            var volumes = new WindowsVolumeFacts(new WindowsVolumeFactsSystem());

            VolumeFacts facts = volumes.Inspect(folder, mayWrite: true);
            VolumeLocation notYet = volumes.Locate(Path.Combine(folder, "bin", "Debug", "net10.0"));

            var drive = new DriveInfo(Path.GetPathRoot(Path.GetFullPath(folder))!);
            log.Line($"Inspect: root {facts.Root}, {facts.FileSystem}, can clone {facts.CanClone} ({facts.CloneEvidence}), Dev Drive {facts.DevDrive}");
            log.Line($"DriveInfo: {drive.RootDirectory.FullName}, {drive.DriveFormat}");
            Check.That(folder.StartsWith(facts.Root, StringComparison.OrdinalIgnoreCase), $"the volume root {facts.Root} does not hold {folder}");
            Check.That(string.Equals(facts.FileSystem, drive.DriveFormat, StringComparison.OrdinalIgnoreCase), $"file system {facts.FileSystem}, DriveInfo says {drive.DriveFormat}");
            Check.That(notYet == facts.Location, $"a folder not made yet was located on {notYet}, its parent on {facts.Location}");
            Check.That(facts.CanClone is not null, "Windows has a flag for block cloning, so the answer cannot be unknown: " + facts.CloneEvidence);
            Check.That(new WindowsVolumes(new WindowsVolumeSystem()).CanClone(folder) == facts.CanClone, "the build's answer (WindowsVolumes.CanClone) differs from the tool's");
            bool networkDrive = new WindowsVolumeSystem().IsNetworkDrive(facts.Root);
            log.Line($"GetDriveType: network drive {networkDrive}; DriveInfo: {drive.DriveType}");
            Check.That(networkDrive == (drive.DriveType == DriveType.Network), $"GetDriveType says network drive {networkDrive}, DriveInfo says {drive.DriveType}");
            if (Win32.WineVersion is not null)
            {
                Check.That(facts.CanClone == false && facts.DevDrive == false, $"no Wine drive clones or is a Dev Drive, yet: can clone {facts.CanClone}, Dev Drive {facts.DevDrive}");
            }
        });
    }
}
