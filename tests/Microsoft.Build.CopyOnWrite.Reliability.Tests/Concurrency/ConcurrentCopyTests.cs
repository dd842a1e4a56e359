using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Shared;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Concurrency;

/// <summary>
/// Several separate `dotnet msbuild` processes (as parallel builds or several MSBuild nodes) copy onto
/// one destination hundreds of times, released together by a start barrier, while a reader thread reads
/// the destination without pause: every read is a whole file equal to one of the sources, the
/// destination never vanishes once it exists, no copy fails or retries, no temporary file remains.
/// </summary>
[TestClass]
public sealed class ConcurrentCopyTests
{
    private const int Processes = 4;
    private const int RoundsPerProcess = 200;

    /// <summary>
    /// Two processes copy one source and two another, so that each copy races both one of the same bytes and one of
    /// different bytes.
    /// </summary>
    [TestMethod]
    [DataRow("ext4")]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void Processes_copying_the_same_and_different_sources_to_one_destination_never_fail_and_readers_see_only_whole_sources(string kind)
    {
        const int Sources = 2;
        string folder = LoopFileSystems.Require(kind).NewFolder("concurrent");
        // Different sizes as well as different bytes: a torn or partial read cannot match any source.
        string[] sources = Enumerable.Range(0, Sources)
            .Select(i => TestFiles.Write(folder, $"source-{i}.bin", (i + 1) * 256 * 1024, seed: 1000 + i))
            .ToArray();
        var wholeFiles = sources.ToDictionary(FileSnapshot.HashOf, Path.GetFileName);
        FileSnapshot[] sourcesBefore = sources.Select(FileSnapshot.Of).ToArray();
        string outFolder = Path.Combine(folder, "out");
        Directory.CreateDirectory(outFolder);
        string destination = Path.Combine(outFolder, "destination.bin");
        string go = Path.Combine(folder, "go");
        string project = MSBuildProjects.Write(folder, "copy-many.proj", $"""
              <ItemGroup>
                <Round Include="{string.Join(';', Enumerable.Range(1, RoundsPerProcess))}" />
              </ItemGroup>
              <Target Name="Build">
                <Touch Files="$(Ready)" AlwaysCreate="true" />
                <Exec Command="while [ ! -e '{go}' ]; do sleep 0.005; done" />
                <Copy SourceFiles="$(Source)" DestinationFiles="{destination}" Condition="'%(Round.Identity)' != ''" />
              </Target>
            """);

        var builds = new List<ChildProcess>();
        var runs = new List<BuildRun>();
        var reader = new DestinationReader(destination, wholeFiles.Keys.ToHashSet());
        try
        {
            for (int i = 0; i < Processes; i++)
            {
                builds.Add(MSBuildProjects.Start(project, stock: false, [$"-p:Source={sources[i % Sources]}", $"-p:Ready={Path.Combine(folder, $"ready-{i}")}"]));
            }

            bool allReady = ChildProcess.WaitUntil(() => Enumerable.Range(0, Processes).All(i => File.Exists(Path.Combine(folder, $"ready-{i}"))), TimeSpan.FromSeconds(60));
            Assert.IsTrue(allReady, "the builds did not reach the start barrier:\n" + string.Join("\n---\n", builds.Select(b => b.Output)));
            reader.Start();
            File.WriteAllText(go, "go");
            foreach (ChildProcess build in builds)
            {
                Assert.IsTrue(build.WaitForExit(TimeSpan.FromSeconds(60)), $"a build did not finish:\n{build.Output}");
                runs.Add(new BuildRun(build.ExitCode, build.Output, TimeSpan.Zero));
            }
        }
        finally
        {
            reader.Stop();
            builds.ForEach(b => b.Dispose());
        }

        Console.WriteLine($"{Processes * RoundsPerProcess} copies by our task: {runs.Count(r => r.ExitCode != 0)} builds failed, "
            + $"{runs.Sum(r => r.Diagnostics.Count)} warnings and errors ({string.Join(", ", runs.SelectMany(r => r.Diagnostics).Select(d => d.Code).Distinct())}); "
            + $"reader: {reader.WholeReads} whole reads of {reader.DistinctContents} distinct sources, {reader.TornReads.Count} partial, {reader.FailedReads.Count} failed, {reader.VanishedReads} vanished.");
        foreach (BuildRun run in runs)
        {
            Assert.AreEqual(0, run.ExitCode, run.ToString());
            Assert.IsTrue(run.RanOurTask, run.ToString());
            Assert.AreEqual(0, run.Diagnostics.Count, $"no copy may fail or even retry:\n{run}");
            Assert.AreEqual(RoundsPerProcess, run.Output.Split('\n').Count(line => line.TrimStart().StartsWith("Copying file from", StringComparison.Ordinal)), "every round copied");
        }

        Assert.AreEqual(0, reader.TornReads.Count, $"reads that matched no source (sizes {string.Join(", ", reader.TornReads.Take(10))})");
        Assert.AreEqual(0, reader.FailedReads.Count, $"reads that failed: {string.Join("; ", reader.FailedReads.Distinct().Take(5))}");
        Assert.AreEqual(0, reader.VanishedReads, "the destination disappeared after it had existed");
        Assert.IsTrue(reader.WholeReads >= 20, $"the reader read only {reader.WholeReads} times: the test proved little");
        Assert.IsTrue(wholeFiles.ContainsKey(FileSnapshot.HashOf(destination)), "the final destination is not one of the sources");
        for (int i = 0; i < Sources; i++)
        {
            sourcesBefore[i].AssertUnchanged(sources[i], "a source");
        }

        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }

    /// <summary>Reads the destination in a loop on its own thread and sorts every read.</summary>
    private sealed class DestinationReader
    {
        private readonly string _path;
        private readonly HashSet<string> _wholeFiles;
        private readonly HashSet<string> _seen = new();
        private readonly Thread _thread;
        private volatile bool _stop;
        private bool _existed;

        public DestinationReader(string path, HashSet<string> wholeFiles)
        {
            _path = path;
            _wholeFiles = wholeFiles;
            _thread = new Thread(Loop) { IsBackground = true, Name = "destination reader" };
        }

        public int WholeReads { get; private set; }

        public int VanishedReads { get; private set; }

        public List<long> TornReads { get; } = new();

        public List<string> FailedReads { get; } = new();

        public int DistinctContents => _seen.Count;

        public void Start() => _thread.Start();

        public void Stop()
        {
            _stop = true;
            if (_thread.IsAlive)
            {
                _thread.Join();
            }
        }

        private void Loop()
        {
            while (!_stop)
            {
                byte[] content;
                try
                {
                    content = File.ReadAllBytes(_path);
                }
                catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
                {
                    VanishedReads += _existed ? 1 : 0;
                    continue;
                }
                catch (Exception e)
                {
                    // E.g. the stock task holds its destination open exclusively while it writes it in place.
                    FailedReads.Add(e.GetType().Name + ": " + e.Message);
                    continue;
                }

                _existed = true;
                string hash = FileSnapshot.HashOf(content);
                if (_wholeFiles.Contains(hash))
                {
                    WholeReads++;
                    _seen.Add(hash);
                }
                else
                {
                    TornReads.Add(content.Length);
                }
            }
        }
    }
}
