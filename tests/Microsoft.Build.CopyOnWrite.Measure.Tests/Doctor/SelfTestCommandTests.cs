using System.IO;
using System.Linq;
using System.Text.Json;
using Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Doctor;

/// <summary>
/// `dotnet cow-measure doctor --selftest`, installed as a user installs it, on a repository on XFS: the SDK's own
/// self-test runs from the package the tool carries, on the repository's volume and the temp folder's, and says so.
/// </summary>
[TestClass]
public sealed class SelfTestCommandTests
{
    [TestMethod]
    public void Doctor_selftest_runs_the_SDKs_self_test_on_the_repositorys_volume_and_writes_its_reports()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = xfs.NewFolder("selftest-repo");
        TinySolution.WriteInto(repository);
        string reports = xfs.NewFolder("selftest-reports");

        ToolRun run = InstalledTool.Run(repository, ["doctor", "--selftest", "--selftest-json", Path.Combine(reports, "selftest.json"), "--selftest-markdown", Path.Combine(reports, "selftest.md")]);

        Assert.AreEqual(0, run.ExitCode, run.Output + run.Error);
        StringAssert.Contains(run.Output, "CopyOnWrite self-test: the real engine and Copy task");
        StringAssert.Contains(run.Output, "Result: every check passed.");
        using JsonDocument json = JsonDocument.Parse(File.ReadAllText(Path.Combine(reports, "selftest.json")));
        JsonElement[] volumes = json.RootElement.GetProperty("volumes").EnumerateArray().ToArray();
        Assert.AreEqual("xfs", volumes[0].GetProperty("fileSystem").GetString(), "the repository's outputs' volume first");
        Assert.IsTrue(volumes[0].GetProperty("cloned").GetInt32() > 0);
        StringAssert.Contains(File.ReadAllText(Path.Combine(reports, "selftest.md")), "| 4 writers onto one destination with a reader | ok |");
    }
}
