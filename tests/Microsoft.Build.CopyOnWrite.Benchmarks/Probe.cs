using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Benchmarks;

/// <summary>
/// Before measuring: what each method really does on each file system. A 1 MiB file is put in place by each
/// method, and filefrag (FIEMAP) says whether the destination's extents are shared with the source.
/// </summary>
internal static class Probe
{
    public sealed record Finding(string FileSystem, string EngineSaid, bool EngineShares, bool FileCopyShares, bool ByteCopyShares);

    public static IReadOnlyList<Finding> Run(IEnumerable<string> fileSystems)
    {
        var findings = new List<Finding>();
        foreach (string kind in fileSystems)
        {
            string folder = Path.Combine(Settings.MountPoint(kind), $"probe-{Guid.NewGuid():N}");
            Directory.CreateDirectory(folder);
            try
            {
                string source = Path.Combine(folder, "source.bin");
                EngineBenchmarks.WriteRandomFile(source, Settings.MiB, seed: 11);
                Native.SyncFileSystem(folder);
                string engineCopy = Path.Combine(folder, "engine.bin");
                string fileCopy = Path.Combine(folder, "file-copy.bin");
                string byteCopy = Path.Combine(folder, "byte-copy.bin");
                CloneResult result = CloneEngines.Current.CloneOrCopy(source, engineCopy, CancellationToken.None);
                File.Copy(source, fileCopy, overwrite: true);
                EngineBenchmarks.CopyBytes(source, byteCopy, new byte[Settings.MiB]);
                Native.SyncFileSystem(folder);
                string said = result.Method == CloneMethod.Cloned
                    ? "cloned"
                    : $"copied ({result.Reason}{(result.Detail is null ? string.Empty : ": " + result.Detail)})";
                findings.Add(new Finding(kind, said, SharesExtents(engineCopy), SharesExtents(fileCopy), SharesExtents(byteCopy)));
            }
            finally
            {
                Directory.Delete(folder, recursive: true);
            }
        }

        return findings;
    }

    private static bool SharesExtents(string path)
    {
        string output = Native.Run("filefrag", "-v", path)
            ?? throw new InvalidOperationException("filefrag (e2fsprogs) is needed to check which copies share extents.");
        return output.Contains("shared", StringComparison.Ordinal);
    }
}
