using System;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;
using Microsoft.Build.CopyOnWrite.Measure.SelfTest;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.SelfTest;

/// <summary>
/// What `doctor --selftest` says when the Copy task fails, in a process that carries no Microsoft.Build.Tasks.Core (this
/// one, as the installed tool): MSBuild's own words from the installed SDK (the door's MSBuildTexts), not a text's name.
/// </summary>
[TestClass]
public sealed class SelfTestMessagesTests
{
    [TestMethod]
    public void A_copy_the_task_fails_is_reported_in_MSBuilds_own_words_with_its_code()
    {
        string folder = TestScratch.NewFolder("selftest-messages");
        MSBuildTexts.FromInstalledSdk(); // as SelfTestDoor does before it runs the self-test

        SelfTestReport report = new SelfTestRunner(new RefusingEngine(), _ => { }).Run([folder], CancellationToken.None);

        string text = string.Join("\n", report.Lines());
        string writers = report.Lines().Single(line => line.Contains("writers onto one destination", StringComparison.Ordinal));
        StringAssert.Contains(writers, "MSB3021: Unable to copy file", text);
        StringAssert.Contains(writers, RefusingEngine.Refusal, "the engine's own error inside MSBuild's text");
        Assert.IsFalse(writers.Contains("Copy.Error", StringComparison.Ordinal), "a text's name instead of MSBuild's text:\n" + writers);
    }

    /// <summary>
    /// Refuses every file with a failure the Copy task never retries, whichever MSBuild runs it (this process runs the
    /// installed SDK's; from 18.7 on, an access denied is retried).
    /// </summary>
    private sealed class RefusingEngine : ICloneEngine
    {
        public const string Refusal = "refused by the test's engine";

        public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
            => throw new NotSupportedException(Refusal);
    }
}
