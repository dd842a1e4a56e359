using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// A real `dotnet build` of a repository that uses the packed SDK, on XFS, with a system call of our engine's way made
/// to fail for the whole build (linkat, which names each new file, answering ENOSYS as some sandboxes and old kernels
/// do): the build succeeds as it does with MSBuild's own Copy, says once what failed (warning COW006), even under
/// -warnAsError; and CopyOnWriteMode=Required does not take such a file for a clone (COW001 names the fault).
/// </summary>
[TestClass]
public sealed class EngineFaultBuildTests
{
    private static readonly string[] NamingFails = ["linkat=ENOSYS"];

    [TestMethod]
    public void A_build_whose_engine_meets_an_unforeseen_error_succeeds_and_says_so_once_even_under_warnAsError()
    {
        ConsumerRepository repository = RestoredRepository("engine-fault");

        ProcessResult build = repository.Run(SystemCallFaults.Launcher(NamingFails), ["build", "Lib.csproj", "-nologo", "-nr:false", "-v:n", "-warnAsError"]);

        Assert.IsTrue(build.Succeeded, "the stock task succeeds here, so the build must:\n" + build.Output);
        Assert.IsTrue(TestFiles.SameBytes(System.IO.Path.Combine(repository.Root, ConsumerRepository.ContentFile), repository.CopiedContent));
        string log = build.Output[..build.Output.IndexOf("Build succeeded.", System.StringComparison.Ordinal)]; // the recap after it repeats warnings
        string[] faults = log.Split('\n').Where(line => line.Contains(": warning COW006:")).ToArray();
        Assert.AreEqual(1, faults.Length, "one warning for the first fault of the process:\n" + build.Output);
        StringAssert.Contains(faults[0], "our engine failed at LinuxCloneEngine.");
        StringAssert.Contains(faults[0], "Function not implemented");
        StringAssert.Contains(faults[0], "file system xfs");
        Assert.IsFalse(build.Output.Contains("error COW006"), "never an error, whatever -warnAsError says");
    }

    [TestMethod]
    public void Required_does_not_count_a_file_our_engine_failed_on_as_cloned()
    {
        ConsumerRepository repository = RestoredRepository("engine-fault-required");

        ProcessResult build = repository.Run(SystemCallFaults.Launcher(NamingFails), ["build", "Lib.csproj", "-nologo", "-nr:false", "-v:n", "-p:CopyOnWriteMode=Required"]);

        Assert.IsFalse(build.Succeeded, build.Output);
        string[] required = build.Output.Split('\n').Where(line => line.Contains("error COW001")).ToArray();
        Assert.IsTrue(required.Length > 0, build.Output);
        StringAssert.Contains(required[0], "our engine failed at LinuxCloneEngine.");
        StringAssert.Contains(required[0], "please report it");
    }

    private static ConsumerRepository RestoredRepository(string purpose)
    {
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Require("xfs").NewFolder(purpose), PackageRoute.SdkElement);
        ProcessResult restore = repository.Dotnet(null, "restore", "Lib.csproj", "-nologo");
        Assert.IsTrue(restore.Succeeded, restore.Output);
        return repository;
    }
}
