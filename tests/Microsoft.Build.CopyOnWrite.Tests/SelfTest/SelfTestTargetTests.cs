using System.IO;
using System.Text.Json;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.SelfTest;

/// <summary>The self-test's SDK door, as a user runs it in a repository that uses the packed SDK, on XFS: the report prints, the JSON and markdown land where asked.</summary>
[TestClass]
public sealed class SelfTestTargetTests
{
    [TestMethod]
    public void The_doctor_target_with_CopyOnWriteDoctorSelfTest_runs_the_self_test_in_MSBuild_and_writes_its_report()
    {
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Require("xfs").NewFolder("selftest-target"), PackageRoute.SdkElement);

        ProcessResult run = repository.Dotnet(
            null, "msbuild", "Lib.csproj", "-restore", "-nologo", "-nr:false", "-t:CopyOnWriteDoctor",
            "-p:CopyOnWriteDoctorSelfTest=true", "-p:CopyOnWriteDoctorSelfTestJson=selftest.json", "-p:CopyOnWriteDoctorSelfTestMarkdown=selftest.md");

        Assert.IsTrue(run.Succeeded, run.Output);
        StringAssert.Contains(run.Output, "CopyOnWrite self-test: the real engine and Copy task");
        StringAssert.Contains(run.Output, "Result: every check passed.");
        using JsonDocument json = JsonDocument.Parse(File.ReadAllText(Path.Combine(repository.Root, "selftest.json")));
        Assert.IsTrue(json.RootElement.GetProperty("passed").GetBoolean());
        JsonElement first = json.RootElement.GetProperty("volumes")[0];
        Assert.AreEqual("xfs", first.GetProperty("fileSystem").GetString(), "the intermediate output folder's volume comes first");
        Assert.IsTrue(first.GetProperty("cloned").GetInt32() > 0, "files were cloned on XFS");
        StringAssert.Contains(File.ReadAllText(Path.Combine(repository.Root, "selftest.md")), "### CopyOnWrite self-test");
    }
}
