using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>
/// Linux: the file system type from statfs (named by /proc/self/mountinfo where the magic number is shared, as
/// ext2/3/4 share theirs), a probe clone (FICLONE) in the folder, used blocks from statfs, syncfs to flush,
/// /proc for the machine.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxPlatform : IMeasurementPlatform
{
    private static readonly Dictionary<long, string> MagicNames = new()
    {
        [0x58465342] = "xfs",
        [0x9123683E] = "btrfs",
        [0xEF53] = "ext2/ext3/ext4",
        [0x01021994] = "tmpfs",
        [0x794C7630] = "overlayfs",
        [0xCA451A4E] = "bcachefs",
        [0x2FC12FC1] = "zfs",
        [0x7461636F] = "ocfs2",
        [0x6969] = "nfs",
        [0xFE534D42] = "smb2",
        [0xFF534D42] = "cifs",
        [0x65735546] = "fuse",
        [0xF2F52010] = "f2fs",
        [0x4D44] = "vfat",
        [0x5346544E] = "ntfs",
        [0x7366746E] = "ntfs3",
    };

    public string FlushMethod => "syncfs of the volume";

    public VolumeIdentity Identify(string folder)
    {
        LinuxSystem.FileSystemStatus status = LinuxSystem.StatFs(folder);
        (string mountPoint, string? mountType) = MountOf(folder);
        string name = status.Type switch
        {
            // One magic number for ext2, ext3 and ext4: the mount table has the name the volume was mounted as.
            0xEF53 when mountType is not null && mountType.StartsWith("ext", StringComparison.Ordinal) => mountType,
            _ when MagicNames.TryGetValue(status.Type, out string? known) => known,
            _ => mountType ?? $"type 0x{status.Type:X}",
        };

        int errno = LinuxSystem.ProbeClone(folder);
        (bool? canClone, string evidence) = errno switch
        {
            0 => ((bool?)true, "a probe clone (FICLONE) in the folder worked"),
            LinuxSystem.EOPNOTSUPP or LinuxSystem.ENOTTY or LinuxSystem.EINVAL or LinuxSystem.ENOSYS or LinuxSystem.EXDEV or LinuxSystem.EBADF
                => (false, $"a probe clone (FICLONE) in the folder was refused: {Marshal.GetPInvokeErrorMessage(errno)} ({LinuxSystem.ErrnoName(errno)})"),
            _ => (null, $"a probe clone (FICLONE) in the folder failed: {Marshal.GetPInvokeErrorMessage(errno)} ({LinuxSystem.ErrnoName(errno)})"),
        };

        // .NET's File.Copy (so MSBuild's own Copy task) tries FICLONE first on Linux: where we clone, it clones too.
        return new VolumeIdentity(name, canClone, evidence, canClone, null, null, mountPoint, null);
    }

    public Reading<long> UsedBytes(string folder)
    {
        LinuxSystem.FileSystemStatus status = LinuxSystem.StatFs(folder);
        return Reading<long>.Of((status.Blocks - status.FreeBlocks) * status.FragmentSize);
    }

    public Reading<TimeSpan> Flush(string folder)
    {
        var clock = Stopwatch.StartNew();
        LinuxSystem.SyncFileSystem(folder);
        return Reading<TimeSpan>.Of(clock.Elapsed);
    }

    public Reading<double> LoadAverage()
        => File.Exists("/proc/loadavg") && double.TryParse(File.ReadAllText("/proc/loadavg").Split(' ')[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double load)
            ? Reading<double>.Of(load)
            : Reading<double>.None("/proc/loadavg is not readable");

    public MachineDescription DescribeMachine()
    {
        string cpu = ProcValue("/proc/cpuinfo", "model name") ?? RuntimeInformation.ProcessArchitecture.ToString();
        string os = File.Exists("/etc/os-release")
            ? File.ReadAllLines("/etc/os-release").FirstOrDefault(l => l.StartsWith("PRETTY_NAME=", StringComparison.Ordinal))?["PRETTY_NAME=".Length..].Trim('"') ?? RuntimeInformation.OSDescription
            : RuntimeInformation.OSDescription;
        string kernel = File.Exists("/proc/sys/kernel/osrelease") ? File.ReadAllText("/proc/sys/kernel/osrelease").Trim() : Environment.OSVersion.Version.ToString();
        return new MachineDescription(cpu, Environment.ProcessorCount, MeasurementPlatforms.MemoryText(), $"{os}, kernel {kernel}");
    }

    /// <summary>The mount point and type of the longest mount that contains the folder's real path.</summary>
    internal static (string MountPoint, string? Type) MountOf(string folder)
    {
        string path = Path.GetFullPath(folder);
        try
        {
            path = new DirectoryInfo(path).ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? path;
        }
        catch (IOException)
        {
        }

        // "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw": field 5 is the mount point
        // (octal escapes for space, tab, newline, backslash); the type follows the " - ".
        (string MountPoint, string? Type) best = ("/", null);
        foreach (string line in File.Exists("/proc/self/mountinfo") ? File.ReadLines("/proc/self/mountinfo") : [])
        {
            string[] fields = line.Split(' ');
            int dash = Array.IndexOf(fields, "-");
            if (fields.Length < 5 || dash < 0 || dash + 1 >= fields.Length)
            {
                continue;
            }

            string mountPoint = fields[4].Replace("\\040", " ").Replace("\\011", "\t").Replace("\\012", "\n").Replace("\\134", "\\");
            bool contains = mountPoint == "/" || path == mountPoint || path.StartsWith(mountPoint + "/", StringComparison.Ordinal);
            if (contains && mountPoint.Length >= best.MountPoint.Length)
            {
                best = (mountPoint, fields[dash + 1]);
            }
        }

        return best;
    }

    private static string? ProcValue(string file, string key)
    {
        if (!File.Exists(file))
        {
            return null;
        }

        string? line = File.ReadLines(file).FirstOrDefault(l => l.StartsWith(key, StringComparison.Ordinal));
        return line?[(line.IndexOf(':') + 1)..].Trim();
    }
}
