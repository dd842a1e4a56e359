using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.TestKit;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Parity.Tests;

/// <summary>
/// A real multi-threaded build (`dotnet msbuild -mt -m:2`) of two projects in different folders, started from a
/// third folder, whose Copy tasks use relative paths: the stock task and both flavours of ours must leave the same
/// files. The multi-threaded flavour (what Sdk.targets loads from MSBuild 18.9 on) must run inside MSBuild's process,
/// as the stock task does; the other flavour is not declared thread-safe, so MSBuild must run it in a task host.
/// </summary>
[TestClass]
public sealed class MultiThreadedBuildTests
{
    [TestMethod]
    public void RelativePathsResolvePerProjectUnderMt()
    {
        var trees = new Dictionary<string, List<string>>();
        var logs = new Dictionary<string, string>();
        var sides = new (string Name, string? TaskAssembly)[]
        {
            ("A", null),
            ("B", ProjectFileRunner.MultiThreadedTaskAssembly),
            ("C", typeof(Copy).Assembly.Location),
        };
        foreach ((string side, string? taskAssembly) in sides)
        {
            string root = Path.Combine(Scratch.Root, "mt", side);
            var tree = new Tree(root, null);
            foreach (string project in new[] { "p1", "p2" })
            {
                tree.File($"{project}/src/a.txt", "from " + project).File($"{project}/src/sub/b.txt", "b of " + project);
                string usingTask = taskAssembly is null ? string.Empty : $"<UsingTask TaskName=\"Copy\" AssemblyFile=\"{taskAssembly}\" />";
                File.WriteAllText(Path.Combine(root, project, "x.proj"), $"""
                    <Project>
                      {usingTask}
                      <ItemGroup><Src Include="src/a.txt" Kind="k" /></ItemGroup>
                      <Target Name="Build">
                        <Copy SourceFiles="@(Src)" DestinationFolder="out" />
                        <Copy SourceFiles="src/a.txt" DestinationFiles="out2/renamed.txt" />
                        <Copy SourceFolders="src" DestinationFolder="out3" SkipUnchangedFiles="true" />
                        <Copy SourceFiles="src/a.txt" DestinationFolder="hard" UseHardlinksIfPossible="true" />
                      </Target>
                    </Project>
                    """);
            }

            File.WriteAllText(Path.Combine(root, "all.proj"), """
                <Project><Target Name="Build"><MSBuild Projects="p1/x.proj;p2/x.proj" BuildInParallel="true" /></Target></Project>
                """);
            string elsewhere = Path.Combine(Scratch.Root, "mt", "cwd-" + side);
            Directory.CreateDirectory(elsewhere);
            (int exitCode, string output) = DotnetMSBuild.Run(elsewhere, new[] { Path.Combine(root, "all.proj"), "-mt", "-m:2", "-v:d" });
            Assert.AreEqual(0, exitCode, $"dotnet msbuild -mt failed for side {side}:{Environment.NewLine}{output}");
            trees[side] = tree.Snapshot().Where(line => !line.Contains(".proj | ", StringComparison.Ordinal)).ToList(); // the project files differ by design
            logs[side] = output;
        }

        foreach (string ours in new[] { "B", "C" })
        {
            CollectionAssert.AreEqual(trees["A"], trees[ours],
                $"-mt: the files differ (side {ours}).{Environment.NewLine}Stock:{Environment.NewLine}{string.Join(Environment.NewLine, trees["A"])}{Environment.NewLine}Ours:{Environment.NewLine}{string.Join(Environment.NewLine, trees[ours])}");
        }

        Assert.IsTrue(trees["B"].Any(l => l.StartsWith("{R}/p2/out3/src/sub/b.txt | file", StringComparison.Ordinal)), string.Join(Environment.NewLine, trees["B"]));
        Assert.IsFalse(logs["A"].Contains(MSBuildLogTexts.TaskHostLaunch, StringComparison.Ordinal), "The stock Copy ran in a task host; the test no longer shows what it should:" + Environment.NewLine + logs["A"]);
        Assert.IsFalse(logs["B"].Contains(MSBuildLogTexts.TaskHostLaunch, StringComparison.Ordinal), "The multi-threaded flavour must run inside MSBuild's process under -mt:" + Environment.NewLine + logs["B"]);
        StringAssert.Contains(logs["C"], MSBuildLogTexts.TaskHostLaunch, "The flavour for older MSBuild is not declared thread-safe, so -mt must run it in a task host:" + Environment.NewLine + logs["C"]);
    }
}
