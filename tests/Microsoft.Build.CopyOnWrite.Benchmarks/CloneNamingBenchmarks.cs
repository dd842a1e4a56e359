using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Win32.SafeHandles;

namespace Microsoft.Build.CopyOnWrite.Benchmarks;

/// <summary>One batch: <see cref="CloneNamingBenchmarks.Files"/> clones made one way, in microseconds per file.</summary>
internal sealed record NamingRun(string FileSystem, string Method, int Round, double MicrosecondsPerFile);

/// <summary>
/// Where a clone's time goes, per file, on a file system that clones: the engine and File.Copy against the same
/// syscalls made two ways - the new file created at its name (what File.Copy does), or created with no name and
/// named when complete (what the engine does, so that no reader ever sees half a file). The two differ only in
/// that step, so their difference is the price of the engine's atomic create. The set is the fresh-process
/// benchmark's 200 x 16 KiB, in alternating order from round to round; not BenchmarkDotNet: a few microseconds a
/// file needs many alternating rounds more than BenchmarkDotNet's few long iterations.
/// </summary>
internal static class CloneNamingBenchmarks
{
    public const string Engine = "engine";
    public const string FileCopy = "File.Copy";
    public const string AtItsName = "clone at its name";
    public const string UnnamedThenNamed = "clone unnamed, then named";
    public const int Files = 200;
    public const int Size = 16 * Settings.KiB;

    public static readonly string[] Methods = [Engine, FileCopy, AtItsName, UnnamedThenNamed];

    public static IReadOnlyList<NamingRun> Run(IReadOnlyDictionary<string, string> mountPoints, int rounds)
    {
        nuint ficlone = LinuxNative.FicloneRequestFor(RuntimeInformation.ProcessArchitecture)
            ?? throw new PlatformNotSupportedException($"No FICLONE request number for {RuntimeInformation.ProcessArchitecture}.");
        int unnamedFlag = LinuxNative.UnnamedFileFlagFor(RuntimeInformation.ProcessArchitecture)
            ?? throw new PlatformNotSupportedException($"No O_TMPFILE flag for {RuntimeInformation.ProcessArchitecture}.");
        var runs = new List<NamingRun>();
        foreach (string fs in new[] { "xfs", "btrfs" }.Where(mountPoints.ContainsKey))
        {
            string folder = Path.Combine(mountPoints[fs], $"naming-{Guid.NewGuid():N}");
            Directory.CreateDirectory(folder);
            try
            {
                string source = Path.Combine(folder, "source.bin");
                EngineBenchmarks.WriteRandomFile(source, Size, seed: 16);
                string[] destinations = Enumerable.Range(0, Files).Select(i => Path.Combine(folder, $"destination-{i:000}.bin")).ToArray();
                var batches = new Dictionary<string, Action>
                {
                    [Engine] = () => Array.ForEach(destinations, d => CloneEngines.Current.CloneOrCopy(source, d, CancellationToken.None)),
                    [FileCopy] = () => Array.ForEach(destinations, d => File.Copy(source, d, overwrite: true)),
                    [AtItsName] = () => Array.ForEach(destinations, d => CloneWithSyscalls(source, d, ficlone, unnamedFlag: null)),
                    [UnnamedThenNamed] = () => Array.ForEach(destinations, d => CloneWithSyscalls(source, d, ficlone, unnamedFlag)),
                };

                for (int round = -1; round < rounds; round++) // round -1: untimed, so that no method pays for compiling its code
                {
                    for (int i = 0; i < Methods.Length; i++)
                    {
                        string method = Methods[round % 2 == 0 ? i : Methods.Length - 1 - i];
                        foreach (string destination in destinations)
                        {
                            File.Delete(destination);
                        }

                        Native.SyncFileSystem(folder);
                        long started = Stopwatch.GetTimestamp();
                        batches[method]();
                        double microseconds = Stopwatch.GetElapsedTime(started).TotalMicroseconds / Files;
                        if (round >= 0)
                        {
                            runs.Add(new NamingRun(fs, method, round, microseconds));
                        }
                    }
                }
            }
            finally
            {
                Directory.Delete(folder, recursive: true);
                Native.SyncFileSystem(mountPoints[fs]);
            }
        }

        return runs;
    }

    /// <summary>
    /// The engine's clone with nothing around it, through the engine's own helpers: open the source and statx it, create
    /// the new file (at its name, O_EXCL, as File.Copy does; or with no name in the destination's folder, as the engine
    /// does), FICLONE, File.Copy's permission bits and times, and, for the unnamed file, linkat to its name.
    /// </summary>
    private static void CloneWithSyscalls(string source, string destination, nuint ficlone, int? unnamedFlag)
    {
        using SafeFileHandle sourceHandle = UnixFiles.OpenSourceForReading(source, out LinuxNative.FileStatus status);
        using SafeFileHandle handle = unnamedFlag is int flag
            ? new SafeFileHandle(Check(LinuxNative.Open(Path.GetDirectoryName(destination)!, flag | LinuxNative.OpenWriteOnly | LinuxNative.OpenCloseOnExec, 0x180), destination), ownsHandle: true)
            : UnixFiles.CreateNew(destination);
        int fd = (int)handle.DangerousGetHandle();
        Check(LinuxNative.ioctl(fd, ficlone, (int)sourceHandle.DangerousGetHandle()), destination);
        Check(LinuxNative.fchmod(fd, status.PermissionBits), destination);
        LinuxNative.SetTimes(fd, status, destination);
        if (unnamedFlag is not null)
        {
            Check(LinuxNative.linkat(fd, string.Empty, LinuxNative.AtFdCwdValue, destination, LinuxNative.AtEmptyPath), destination);
        }
    }

    /// <summary>The result of a syscall that returns -1 and sets errno on failure, else an exception that says which file.</summary>
    private static int Check(int result, string path)
        => result >= 0 ? result : throw UnixErrors.ToException(Marshal.GetLastPInvokeError(), path);

    /// <summary>Median microseconds per file of one method on one file system; NaN when not measured.</summary>
    public static double Median(IReadOnlyList<NamingRun> runs, string fs, string method)
    {
        double[] values = runs.Where(r => r.FileSystem == fs && r.Method == method).Select(r => r.MicrosecondsPerFile).ToArray();
        return values.Length == 0 ? double.NaN : FreshProcess.FreshProcessReport.Median(values);
    }

    /// <summary>Median microseconds per file that creating the file unnamed and naming it adds to creating it at its name.</summary>
    public static double NamingCost(IReadOnlyList<NamingRun> runs, string fs) => Median(runs, fs, UnnamedThenNamed) - Median(runs, fs, AtItsName);
}
