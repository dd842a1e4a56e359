using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Task;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// Issue #43 on real builds: a `dotnet new` solution with a package reference that turns MSBuild's links on in
/// Directory.Build.props (<see cref="LinkingSolution"/>), its package cache on the same fresh XFS or btrfs volume.
/// With CopyOnWriteInsteadOfLinks=true the outputs are clones (one name, extents shared with their sources, by
/// FIEMAP) and nothing a later step writes reaches the package cache; MSBuild's own Copy with the same links makes
/// hard links into the cache, and a write into the output changes the cache, as dotnet/msbuild#8273 reports. The builds
/// run in this process (<see cref="InProcessBuild"/>): the question is what our targets and task do. Each case runs on
/// one file system that clones, the two taking turns: XFS and btrfs clone through the same ioctl, which the engine's
/// tests prove on both; the stock task's hard links are the same on either.
/// </summary>
[TestClass]
public sealed class CloneInsteadOfLinksBuildTests
{
    private const int VolumeMiB = 1536;

    [TestMethod]
    [DataRow("xfs")]
    public void With_the_setting_a_build_that_asks_for_links_clones_and_the_package_cache_survives_writes_and_the_version_bump_of_8273(string kind)
    {
        using LoopFileSystem volume = LoopFileSystems.RequireNew(kind, VolumeMiB, LoopFileSystems.KeptFolder);
        LinkingSolution solution = LinkingSolution.Create(volume);
        solution.WriteDirectoryBuildProps(links: true, "<CopyOnWriteInsteadOfLinks>true</CopyOnWriteInsteadOfLinks>");
        solution.RestoreInProcess();
        IReadOnlyDictionary<string, string> cacheBefore = solution.PackageCacheContents();

        string summaryFile = Path.Combine(solution.Root, "summary.json");
        string logger = solution.SummaryLoggerArgument();
        ProcessResult build = solution.BuildInProcess($"-logger:{logger};SummaryFile={summaryFile}");

        string fromCache = solution.PackageAssemblyInCache(LinkingSolution.FirstVersion);
        CloneInsteadOfLinksTests.AssertIndependentClone(fromCache, solution.PackageAssemblyInOutput, $"the package's assembly copied from the package cache on {kind} with links asked for");
        CloneInsteadOfLinksTests.AssertIndependentClone(Path.Combine(solution.Root, "Lib", "bin", "Debug", "net10.0", "Lib.dll"), Path.Combine(solution.AppOutput, "Lib.dll"), "the library copied into the app's output");
        CloneInsteadOfLinksTests.AssertIndependentClone(Path.Combine(solution.Root, "App", "obj", "Debug", "net10.0", "App.dll"), Path.Combine(solution.AppOutput, "App.dll"), "the app's own assembly copied from obj/");
        Assert.AreEqual(string.Empty, string.Join("; ", solution.LinkedOutputs()), "no output is a link");
        Assert.IsTrue(build.Output.Contains("where links were asked for (CopyOnWriteInsteadOfLinks)", System.StringComparison.Ordinal), "the Copy lines say so:\n" + build.Output);
        string summary = build.Output.Split('\n').Single(line => line.Contains("CopyOnWrite build summary:", System.StringComparison.Ordinal));
        StringAssert.Contains(summary, "where links were asked for (CopyOnWriteInsteadOfLinks)", "the build summary counts them apart");
        using (var totals = System.Text.Json.JsonDocument.Parse(File.ReadAllText(summaryFile)))
        {
            int instead = totals.RootElement.GetProperty("clonedInsteadOfLinks").GetProperty("files").GetInt32();
            Assert.IsTrue(instead >= 3 && instead <= totals.RootElement.GetProperty("cloned").GetProperty("files").GetInt32(), File.ReadAllText(summaryFile));
            Assert.AreEqual(0, totals.RootElement.GetProperty("linked").GetProperty("files").GetInt32(), File.ReadAllText(summaryFile));
        }

        CloneInsteadOfLinksTests.WriteInPlace(solution.PackageAssemblyInOutput);
        Assert.AreEqual(0, solution.ChangedSince(cacheBefore).Count, "a write into the output changed the package cache: " + string.Join(", ", solution.ChangedSince(cacheBefore)));

        // dotnet/msbuild#8273: built with links, then the package bumped and built without them.
        solution.SetPackageVersion(LinkingSolution.BumpedVersion);
        solution.WriteDirectoryBuildProps(links: false, string.Empty);
        solution.BuildInProcess();

        Assert.AreEqual(0, solution.ChangedSince(cacheBefore).Count, "the version bump built without links changed the package cache: " + string.Join(", ", solution.ChangedSince(cacheBefore)));
        Assert.IsTrue(TestFiles.SameBytes(solution.PackageAssemblyInCache(LinkingSolution.BumpedVersion), solution.PackageAssemblyInOutput), "the output has the bumped version");
    }

    [TestMethod]
    [DataRow("btrfs")]
    public void Built_with_links_then_with_the_setting_on_the_command_line_without_cleaning_the_links_become_clones_and_the_package_cache_is_untouched(string kind)
    {
        // Issue #52: how people arrive at the setting, a repository that has linked for months. Before, the up-to-date
        // check skipped the hard links (same size and time as their sources) and nothing was said.
        using LoopFileSystem volume = LoopFileSystems.RequireNew(kind, VolumeMiB, LoopFileSystems.KeptFolder);
        LinkingSolution solution = LinkingSolution.Create(volume);
        solution.WriteDirectoryBuildProps(links: true, string.Empty);
        solution.RestoreInProcess();
        IReadOnlyDictionary<string, string> cacheBefore = solution.PackageCacheContents();
        solution.BuildInProcess();
        string fromCache = solution.PackageAssemblyInCache(LinkingSolution.FirstVersion);
        UnixFileFacts cacheFile = UnixFileFacts.Of(fromCache);
        Assert.AreEqual((cacheFile.Inode, 2), (UnixFileFacts.Of(solution.PackageAssemblyInOutput).Inode, cacheFile.Links), "premise: bin/ has the package cache's file itself");

        string summaryFile = Path.Combine(solution.Root, "summary.json");
        string logger = solution.SummaryLoggerArgument();
        ProcessResult build = solution.BuildInProcess("-p:CopyOnWriteInsteadOfLinks=true", $"-logger:{logger};SummaryFile={summaryFile}");

        CloneInsteadOfLinksTests.AssertIndependentClone(fromCache, solution.PackageAssemblyInOutput, $"the package's assembly, hard-linked by the build before, on {kind}");
        Assert.AreEqual((cacheFile.Inode, 1), (UnixFileFacts.Of(fromCache).Inode, UnixFileFacts.Of(fromCache).Links), "the cache's file keeps its inode and has one name again");
        Assert.AreEqual(0, solution.ChangedSince(cacheBefore).Count, "replacing the link changed the package cache: " + string.Join(", ", solution.ChangedSince(cacheBefore)));
        Assert.AreEqual(string.Empty, string.Join("; ", solution.LinkedOutputs()), "no output is a link any more");
        StringAssert.Contains(build.Output, $"\"{solution.PackageAssemblyInOutput}\" was a link to \"{fromCache}\"", "said for the file");
        Assert.IsTrue(build.Output.Contains("links with clones among them", System.StringComparison.Ordinal) || build.Output.Contains("1 link with a clone among them", System.StringComparison.Ordinal), "the Copy lines count them:\n" + build.Output);
        string summary = build.Output.Split('\n').Single(line => line.Contains("CopyOnWrite build summary:", System.StringComparison.Ordinal));
        StringAssert.Contains(summary, "links with clones among them", "the build summary counts them");
        using (var totals = System.Text.Json.JsonDocument.Parse(File.ReadAllText(summaryFile)))
        {
            int replaced = totals.RootElement.GetProperty("replacedLinks").GetProperty("files").GetInt32();
            Assert.IsTrue(replaced >= 3, "the package's assembly, the library and the app's own assembly at least: " + File.ReadAllText(summaryFile));
        }

        CloneInsteadOfLinksTests.WriteInPlace(solution.PackageAssemblyInOutput);
        Assert.AreEqual(0, solution.ChangedSince(cacheBefore).Count, "a write into the output changed the package cache: " + string.Join(", ", solution.ChangedSince(cacheBefore)));

        // The clones are outputs like any other: the next build with the setting finds them up to date and replaces nothing.
        ProcessResult again = solution.BuildInProcess("-p:CopyOnWriteInsteadOfLinks=true");
        Assert.IsFalse(again.Output.Contains("was a link to", System.StringComparison.Ordinal), again.Output);
    }

    [TestMethod]
    public void On_ext4_which_cannot_clone_the_setting_makes_the_links_as_asked_and_a_build_over_them_says_so_once()
    {
        // The setting changes nothing where no clone can be made: the links still save their space there.
        using LoopFileSystem volume = LoopFileSystems.RequireNew("ext4", VolumeMiB, LoopFileSystems.KeptFolder);
        LinkingSolution solution = LinkingSolution.Create(volume);
        solution.WriteDirectoryBuildProps(links: true, "<CopyOnWriteInsteadOfLinks>true</CopyOnWriteInsteadOfLinks>");
        solution.BuildInProcess();
        string fromCache = solution.PackageAssemblyInCache(LinkingSolution.FirstVersion);
        long inode = UnixFileFacts.Of(fromCache).Inode;
        Assert.AreEqual(inode, UnixFileFacts.Of(solution.PackageAssemblyInOutput).Inode, "a hard link into the package cache, as asked");

        // Issue #52's arrival on ext4: outputs that are links, built with the setting. One node: OncePerBuild says a
        // diagnosis once per MSBuild node (-m runs one per core).
        ProcessResult build = solution.BuildInProcess("-p:CopyOnWriteInsteadOfLinks=true", "-m:1");

        Assert.AreEqual(inode, UnixFileFacts.Of(solution.PackageAssemblyInOutput).Inode, "the hard link into the package cache stays, as the project asks");
        const string Said = "and stays one, although CopyOnWriteInsteadOfLinks is true, because";
        string[] said = build.Output.Split('\n').Where(line => line.Contains(Said, System.StringComparison.Ordinal)).ToArray();
        Assert.AreEqual(1, said.Length, "said once, though several outputs are links:\n" + build.Output);
        StringAssert.Contains(said[0], "ext4", "names the file system that cannot clone");
        Assert.IsTrue(solution.LinkedOutputs().Count() >= 3, "premise: several outputs are links: " + string.Join("; ", solution.LinkedOutputs()));
    }

    [TestMethod]
    [DataRow("command line")]
    [DataRow("environment")]
    public void Given_on_the_command_line_or_in_the_environment_the_setting_reaches_the_common_targets_Copy(string route)
    {
        // Not a project file's value: the task reads it itself (no task factory), the route that works under -mt too.
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Xfs.NewFolder("instead-" + route.Replace(' ', '-')), PackageRoute.SdkElement,
            directoryBuildProps: "<CreateHardLinksForCopyFilesToOutputDirectoryIfPossible>true</CreateHardLinksForCopyFilesToOutputDirectoryIfPossible><CreateHardLinksForCopyAdditionalFilesIfPossible>true</CreateHardLinksForCopyAdditionalFilesIfPossible>");
        var environment = new Dictionary<string, string?> { ["CopyOnWriteInsteadOfLinks"] = route == "environment" ? "true" : null };

        ProcessResult build = route == "environment" ? repository.TryBuildInProcess(environment) : repository.TryBuildInProcess(environment, "-p:CopyOnWriteInsteadOfLinks=true");

        repository.AssertOurCopyRan(build);
        CloneInsteadOfLinksTests.AssertIndependentClone(Path.Combine(repository.Root, "obj", "Debug", "net10.0", "Lib.dll"), Path.Combine(repository.Root, "bin", "Debug", "net10.0", "Lib.dll"), $"the library's assembly copied from obj/ with a hard link asked for, the setting from the {route}");
        CloneInsteadOfLinksTests.AssertIndependentClone(Path.Combine(repository.Root, ConsumerRepository.ContentFile), repository.CopiedContent, $"the content file, the setting from the {route}");
    }

    [TestMethod]
    [DataRow("xfs")]
    public void MSBuilds_own_Copy_with_the_same_links_writes_into_the_package_cache_through_the_output_but_not_in_the_sequence_of_8273(string kind)
    {
        // Observed facts about the stock task, for docs/links.md: what the setting protects from.
        using LoopFileSystem volume = LoopFileSystems.RequireNew(kind, VolumeMiB, LoopFileSystems.KeptFolder);
        LinkingSolution solution = LinkingSolution.Create(volume);
        solution.WriteDirectoryBuildProps(links: true, "<DisableCopyOnWrite>true</DisableCopyOnWrite>");
        solution.RestoreInProcess();
        IReadOnlyDictionary<string, string> cacheBefore = solution.PackageCacheContents();

        solution.BuildInProcess();

        string fromCache = solution.PackageAssemblyInCache(LinkingSolution.FirstVersion);
        Assert.AreEqual(UnixFileFacts.Of(fromCache).Inode, UnixFileFacts.Of(solution.PackageAssemblyInOutput).Inode, "the output is the package cache's file");
        CloneInsteadOfLinksTests.WriteInPlace(solution.PackageAssemblyInOutput);
        CollectionAssert.AreEqual(new[] { Path.GetRelativePath(solution.PackageCache, fromCache) }, solution.ChangedSince(cacheBefore).ToList(), "the write reached the package cache");

        // Observed with the .NET 10 SDK's MSBuild: its Copy deletes an existing destination before copying (unless
        // MSBUILDCOPYWITHOUTDELETE=1), so the version bump of #8273 no longer writes through the link; a write into the
        // output in place still does (above).
        IReadOnlyDictionary<string, string> cacheAfterTheWrite = solution.PackageCacheContents();
        solution.SetPackageVersion(LinkingSolution.BumpedVersion);
        solution.WriteDirectoryBuildProps(links: false, "<DisableCopyOnWrite>true</DisableCopyOnWrite>");
        solution.BuildInProcess();

        Assert.AreEqual(0, solution.ChangedSince(cacheAfterTheWrite).Count, string.Join(", ", solution.ChangedSince(cacheAfterTheWrite)));
        Assert.AreEqual(1, UnixFileFacts.Of(solution.PackageAssemblyInOutput).Links, "a new file, not the link");
        Assert.IsTrue(TestFiles.SameBytes(solution.PackageAssemblyInCache(LinkingSolution.BumpedVersion), solution.PackageAssemblyInOutput));
    }
}
