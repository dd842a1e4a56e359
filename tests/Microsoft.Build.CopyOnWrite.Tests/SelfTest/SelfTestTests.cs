using System;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Measure.SelfTest;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.SelfTest;

/// <summary>
/// The self-test every user can run (`dotnet cow-measure doctor --selftest`), run here on real XFS,
/// btrfs and ext4 volumes with this process's real engine, and shown to fail, with its own exit code, when one output
/// differs from its source (an engine that corrupts one byte of one file).
/// </summary>
[TestClass]
public sealed class SelfTestTests
{
    [TestMethod]
    [DataRow("xfs", true)]
    [DataRow("btrfs", true)]
    [DataRow("ext4", false)]
    public void The_self_test_passes_on_a_real_volume_with_every_output_equal_to_its_source(string kind, bool clones)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("selftest");

        SelfTestReport report = new SelfTestRunner(CloneEngines.Current, _ => { }).Run([folder], CancellationToken.None);

        string text = string.Join("\n", report.Lines());
        Console.WriteLine(text); // the report in CI's log: what this machine's volumes did
        Console.WriteLine(report.Markdown());
        Assert.IsTrue(report.Passed, text);
        Assert.AreEqual(0, report.ExitCode);
        SelfTestVolume volume = report.Volumes.Single();
        Assert.AreEqual(kind, volume.Facts.FileSystem);
        Assert.AreEqual(clones, volume.Facts.CanClone);
        Assert.AreEqual(clones, volume.Cloned > 0, $"cloned {volume.Cloned} files:\n{text}");
        Assert.AreEqual(3, volume.Timings.Count);
        StringAssert.Contains(volume.Driver, kind, "the mount's driver facts");
        Assert.IsTrue(volume.Checks.Count >= 7, text);
        CollectionAssert.AreEqual(Array.Empty<string>(), Directory.GetFileSystemEntries(folder), "the self-test removes its files");
        using JsonDocument json = JsonDocument.Parse(report.Json());
        Assert.IsTrue(json.RootElement.GetProperty("passed").GetBoolean());
        StringAssert.Contains(report.Markdown(), "| time per file of 1 MiB against File.Copy | ok |");
    }

    [TestMethod]
    public void One_output_that_differs_from_its_source_fails_the_self_test_with_its_own_exit_code_naming_the_file()
    {
        string folder = LoopFileSystems.Require("xfs").NewFolder("selftest-mismatch");
        var corrupting = new CorruptingEngine(CloneEngines.Current, corruptCall: 5);

        SelfTestReport report = new SelfTestRunner(corrupting, _ => { }).Run([folder], CancellationToken.None);

        Assert.IsTrue(report.AnyMismatch);
        Assert.AreEqual(SelfTestReport.MismatchExitCode, report.ExitCode);
        string mismatch = report.Lines().Single(line => line.Contains("MISMATCH", StringComparison.Ordinal));
        StringAssert.Contains(mismatch, corrupting.Corrupted!);
        StringAssert.Contains(mismatch, "differs from its source at byte 0");
        StringAssert.Contains(report.Lines().Last(), "exit code 4");
    }

    /// <summary>The real engine, with one byte of one output changed after it: what a zero-filled clone looks like to a reader.</summary>
    [TestMethod]
    public void A_clone_slower_than_File_Copy_beyond_the_noise_says_so_and_why_in_its_timing_line()
    {
        string folder = LoopFileSystems.Require("xfs").NewFolder("selftest-slow");
        var slow = new SlowEngine(CloneEngines.Current, TimeSpan.FromMilliseconds(30));

        SelfTestReport report = new SelfTestRunner(slow, _ => { }).Run([folder], CancellationToken.None);

        string[] timed = report.Lines().Where(line => line.Contains("time per file of", StringComparison.Ordinal)).ToArray();
        Assert.AreEqual(3, timed.Length, string.Join("\n", report.Lines()));
        foreach (string line in timed)
        {
            StringAssert.Contains(line, "alternating");
            StringAssert.Contains(line, "slower beyond the noise: File.Copy clones here too, and ours also writes each file beside its destination and renames it over");
        }
    }

    /// <summary>The real engine, made slower than File.Copy by far.</summary>
    private sealed class SlowEngine(ICloneEngine real, TimeSpan delay) : ICloneEngine
    {
        public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
        {
            Thread.Sleep(delay);
            return real.CloneOrCopy(sourcePath, destinationPath, cancellationToken, destination);
        }
    }

    private sealed class CorruptingEngine : ICloneEngine
    {
        private readonly ICloneEngine _real;
        private readonly int _corruptCall;
        private int _calls;

        public CorruptingEngine(ICloneEngine real, int corruptCall)
        {
            _real = real;
            _corruptCall = corruptCall;
        }

        public string? Corrupted { get; private set; }

        public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
        {
            CloneResult result = _real.CloneOrCopy(sourcePath, destinationPath, cancellationToken, destination);
            if (++_calls == _corruptCall)
            {
                using var file = new FileStream(destinationPath, FileMode.Open, FileAccess.ReadWrite);
                int first = file.ReadByte();
                file.Position = 0;
                file.WriteByte((byte)(first ^ 0xFF));
                Corrupted = destinationPath;
            }

            return result;
        }
    }
}
