using System.Linq;
using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;

/// <summary>Large sources, each written once per run: long enough copies to kill, cancel or fill a disk in the middle of.</summary>
public static class BigFiles
{
    public const long OneGiB = 1L << 30;
    public const long HundredMiB = 100L << 20;

    private static readonly Lazy<string> OneGiBOnExt4 = new(() => Write(LoopFileSystems.Ext4.NewFolder("big"), "one-gib.bin", OneGiB));
    private static readonly Lazy<string> HundredMiBOnRootDisk = new(() => Write(TestScratch.NewFolder("big"), "hundred-mib.bin", HundredMiB));

    /// <summary>1 GiB on the shared ext4: copying it to ext4 or XFS takes long enough to interrupt.</summary>
    public static string OneGiBSource => OneGiBOnExt4.Value;

    /// <summary>100 MiB on the machine's own disk: another file system than every loop mount.</summary>
    public static string HundredMiBSource => HundredMiBOnRootDisk.Value;

    /// <summary>The temporary files an atomic write makes beside <paramref name="destination"/>, however it ended.</summary>
    /// <summary>
    /// True once a copy to <paramref name="destination"/> has written data: into a hidden temporary file beside
    /// it, or into a file with no name yet (O_TMPFILE) in its folder, which only shows as an open descriptor
    /// of the copying process, "/proc/PID/fd/N -> FOLDER/#INODE (deleted)".
    /// </summary>
    public static bool CopyUnderway(string destination)
    {
        if (TemporariesBeside(destination).Any(t => new FileInfo(t).Length > 0))
        {
            return true;
        }

        string unnamedPrefix = Path.GetDirectoryName(destination) + "/#";
        foreach (string process in Directory.EnumerateDirectories("/proc"))
        {
            if (!char.IsDigit(Path.GetFileName(process)[0]))
            {
                continue;
            }

            try
            {
                foreach (string descriptor in Directory.EnumerateFileSystemEntries(Path.Combine(process, "fd")))
                {
                    string? target = new FileInfo(descriptor).LinkTarget;
                    if (target is not null && target.StartsWith(unnamedPrefix, StringComparison.Ordinal) && target.EndsWith(" (deleted)", StringComparison.Ordinal)
                        && new FileInfo(descriptor).Length > 0)
                    {
                        return true;
                    }
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // The process ended or closed the descriptor while we looked.
            }
        }

        return false;
    }

    public static string[] TemporariesBeside(string destination)
        => Directory.GetFiles(Path.GetDirectoryName(destination)!, "." + Path.GetFileName(destination) + ".*" + AtomicFile.TemporarySuffix);

    private static string Write(string folder, string name, long size)
    {
        string path = Path.Combine(folder, name);
        byte[] chunk = TestFiles.Content(16 << 20, seed: 42);
        using (var stream = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.None, bufferSize: 0))
        {
            for (long written = 0; written < size; written += chunk.Length)
            {
                BitConverter.TryWriteBytes(chunk, written); // every chunk different
                stream.Write(chunk, 0, (int)Math.Min(chunk.Length, size - written));
            }
        }

        return path;
    }

    /// <summary>The engine every Copy in this process shares, for wrapping.</summary>
    internal static ICloneEngine NewLinuxEngine() => new LinuxCloneEngine(new CloneCapabilityCache(), RuntimeInformation.ProcessArchitecture);
}

/// <summary>Changes the source just before the first copy (after the task planned and checked it), then copies.</summary>
internal sealed class SabotagingEngine : ICloneEngine
{
    private readonly ICloneEngine _inner = BigFiles.NewLinuxEngine();
    private readonly Action<string> _sabotage;
    private int _calls;

    public SabotagingEngine(Action<string> sabotage) => _sabotage = sabotage;

    public int Calls => _calls;

    public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
    {
        if (Interlocked.Increment(ref _calls) == 1)
        {
            _sabotage(sourcePath);
        }

        return _inner.CloneOrCopy(sourcePath, destinationPath, cancellationToken, destination);
    }
}
