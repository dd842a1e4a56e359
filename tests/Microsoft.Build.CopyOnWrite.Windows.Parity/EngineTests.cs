using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>Our Windows engine alone, against File.Copy (what the stock task calls) as the reference.</summary>
internal static class EngineTests
{
    public static IEnumerable<WindowsTest> All(string scratch)
    {
        yield return new WindowsTest("Engine", "a volume that cannot clone gets a copy, said so, with File.Copy's bytes, times and attributes", log =>
        {
            using var tree = new WindowsTree(Path.Combine(scratch, "engine-copy"), TimesCompared.ForThisMachine);
            tree.Bytes("src/a.bin", 300_000).Dir("file-copy").Dir("engine");
            File.SetAttributes(tree.At("src/a.bin"), FileAttributes.Archive | FileAttributes.Hidden);
            File.Copy(tree.At("src/a.bin"), tree.At("file-copy/a.bin"));
            CloneResult result = CloneEngines.Current.CloneOrCopy(tree.At("src/a.bin"), tree.At("engine/a.bin"), CancellationToken.None);
            log.Line($"engine: {result.Method} {result.Reason} ({result.Detail}), {result.Bytes} bytes");
            var lines = tree.Snapshot();
            string Facts(string folder) => lines.Single(l => l.StartsWith("{R}/" + folder + "/a.bin", StringComparison.Ordinal)).Substring(("{R}/" + folder).Length);
            log.Line(string.Join(Environment.NewLine, lines));
            Check.That(Facts("engine") == Facts("file-copy"), $"the engine's file differs from File.Copy's:{Environment.NewLine}  File.Copy: {Facts("file-copy")}{Environment.NewLine}  engine:    {Facts("engine")}");
            Check.That(lines.Count == 6, "something besides the two copies was left: " + string.Join(Environment.NewLine, lines));
            if (Win32.WineVersion is not null)
            {
                Check.That(result.Method == CloneMethod.Copied && result.Reason == FallbackReason.FileSystemCannotClone,
                    $"no Wine drive can clone, yet the engine said {result.Method} {result.Reason} ({result.Detail})");
            }
        });

        yield return new WindowsTest("Engine", "cancelled in the middle of a copy: the destination stays as it was and nothing is left beside it", log =>
        {
            using var tree = new WindowsTree(Path.Combine(scratch, "engine-cancel"), TimesCompared.ForThisMachine);
            tree.Sparse("src/big.bin", 512L << 20).File("out/big.bin", "old");
            using var cancellation = new CancellationTokenSource(TimeSpan.FromMilliseconds(100));
            List<string> before = tree.Snapshot();
            Exception? thrown = null;
            try
            {
                CloneResult result = CloneEngines.Current.CloneOrCopy(tree.At("src/big.bin"), tree.At("out/big.bin"), cancellation.Token);
                log.Line($"finished before the cancel: {result.Method} {result.Reason}");
            }
            catch (OperationCanceledException e)
            {
                thrown = e;
            }

            List<string> after = tree.Snapshot();
            if (thrown is null)
            {
                Check.Skip("the 512 MiB copy finished within 100 ms here, so nothing was left to cancel.");
            }

            Check.That(before.SequenceEqual(after), $"the tree changed:{Environment.NewLine}before:{Environment.NewLine}  {string.Join(Environment.NewLine + "  ", before)}{Environment.NewLine}after:{Environment.NewLine}  {string.Join(Environment.NewLine + "  ", after)}");
        });
    }
}
