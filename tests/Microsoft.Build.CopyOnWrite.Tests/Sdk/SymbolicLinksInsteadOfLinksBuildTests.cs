using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Task;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// CopyOnWriteInsteadOfLinks and a content file an earlier build made a symbolic link to its source
/// (CreateSymbolicLinksForAdditionalFilesIfPossible): docs/links.md's promise on real builds. Where the volume clones,
/// the link becomes a clone; where it cannot (ext4), the link stays and the build says so once, in the build that turns
/// the setting on and in the builds after it, and no build turns it into a byte copy behind the user's back. The builds
/// run in this process.
/// </summary>
[TestClass]
public sealed class SymbolicLinksInsteadOfLinksBuildTests
{
    private const string SymbolicLinks = "-p:CreateSymbolicLinksForAdditionalFilesIfPossible=true";
    private const string Setting = "-p:CopyOnWriteInsteadOfLinks=true";
    private const string LinkKept = "and stays one, although CopyOnWriteInsteadOfLinks is true, because";

    [TestMethod]
    public void On_ext4_a_symbolic_link_to_the_source_stays_one_and_is_said_once_per_build_when_the_setting_comes_and_after()
    {
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Ext4.NewFolder("symlink-ext4"), PackageRoute.SdkElement);
        string source = Path.Combine(repository.Root, ConsumerRepository.ContentFile);
        BuildInThisProcess(repository, SymbolicLinks);
        Assert.AreEqual(source, new FileInfo(repository.CopiedContent).LinkTarget, "premise: the content file in bin/ is a symbolic link to its source");

        ProcessResult turnedOn = BuildInThisProcess(repository, SymbolicLinks, Setting);

        Assert.AreEqual(source, new FileInfo(repository.CopiedContent).LinkTarget, "the symbolic link stays where no clone can be made:\n" + turnedOn.Output);
        AssertSaidOnce(turnedOn, "the build that turns the setting on");

        File.AppendAllText(source, "changed");
        ProcessResult after = BuildInThisProcess(repository, SymbolicLinks, Setting);

        Assert.AreEqual(source, new FileInfo(repository.CopiedContent).LinkTarget, "linked again as asked, after the source changed:\n" + after.Output);
        AssertSaidOnce(after, "a build after it, the source changed");
    }

    [TestMethod]
    public void On_ext4_the_setting_alone_never_turns_a_symbolic_link_into_a_byte_copy()
    {
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Ext4.NewFolder("symlink-ext4-setting-alone"), PackageRoute.SdkElement);
        string source = Path.Combine(repository.Root, ConsumerRepository.ContentFile);
        BuildInThisProcess(repository, SymbolicLinks);

        ProcessResult build = BuildInThisProcess(repository, Setting);

        Assert.AreEqual(source, new FileInfo(repository.CopiedContent).LinkTarget, "the link the target leaves up to date stays a link:\n" + build.Output);
        AssertSaidOnce(build, "the setting given without the link property");
    }

    [TestMethod]
    public void On_XFS_a_symbolic_link_to_the_source_becomes_a_clone_when_the_setting_comes_and_stays_one_after_the_source_changes()
    {
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Xfs.NewFolder("symlink-xfs"), PackageRoute.SdkElement);
        string source = Path.Combine(repository.Root, ConsumerRepository.ContentFile);
        BuildInThisProcess(repository, SymbolicLinks);
        Assert.AreEqual(source, new FileInfo(repository.CopiedContent).LinkTarget, "premise: the content file in bin/ is a symbolic link to its source");
        byte[] sourceBytes = File.ReadAllBytes(source);

        ProcessResult turnedOn = BuildInThisProcess(repository, SymbolicLinks, Setting);

        CloneInsteadOfLinksTests.AssertIndependentClone(source, repository.CopiedContent, "the symbolic link replaced in the build that turns the setting on:\n" + turnedOn.Output);
        CollectionAssert.AreEqual(sourceBytes, File.ReadAllBytes(source), "the source keeps its bytes");
        StringAssert.Contains(turnedOn.Output, $"\"{repository.CopiedContent}\" was a link to \"{source}\"", "said for the file");

        File.AppendAllText(source, "changed");
        BuildInThisProcess(repository, SymbolicLinks, Setting);

        CloneInsteadOfLinksTests.AssertIndependentClone(source, repository.CopiedContent, "cloned instead of linked after the source changed");
    }

    private static ProcessResult BuildInThisProcess(ConsumerRepository repository, params string[] arguments)
    {
        // One node (this process): OncePerBuild says a diagnosis once per MSBuild node (-m runs one per core).
        ProcessResult build = repository.TryBuildInProcess(null, [.. arguments, "-v:n"]);
        Assert.IsTrue(build.Succeeded, build.Output);
        return build;
    }

    private static void AssertSaidOnce(ProcessResult build, string when)
    {
        string[] said = build.Output.Split('\n').Where(line => line.Contains(LinkKept, System.StringComparison.Ordinal)).ToArray();
        Assert.AreEqual(1, said.Length, $"{when}: the kept link is said once:\n" + build.Output);
        StringAssert.Contains(said[0], "ext4", "names the file system that cannot clone");
    }
}
