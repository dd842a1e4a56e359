using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Text.RegularExpressions;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Savings;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Doctor;

/// <summary>
/// `dotnet msbuild -t:CopyOnWriteDoctor` in a repository that imports the packed SDK: the folders as MSBuild and
/// NuGet resolved them, checked on real volumes (the repository on an XFS or ext4 loop volume, the test run's package
/// cache on the machine's own volume).
/// </summary>
[TestClass]
public sealed class DoctorTargetTests
{
    [TestMethod]
    public void The_target_checks_the_projects_own_folders_and_names_the_package_cache_on_another_volume()
    {
        LoopFileSystem xfs = LoopFileSystems.Xfs;
        ConsumerRepository repository = ConsumerRepository.Create(xfs.NewFolder("doctor"), PackageRoute.SdkElement);
        string json = Path.Combine(repository.Root, "doctor.json");

        ProcessResult doctor = repository.Dotnet(null, "msbuild", "Lib.csproj", "-restore", "-t:CopyOnWriteDoctor", $"-p:CopyOnWriteDoctorJson={json}", "-nologo", "-nr:false");

        Assert.AreEqual(0, doctor.ExitCode, doctor.Output);
        StringAssert.Contains(doctor.Output, "CopyOnWrite doctor: can this machine clone what this repository builds?");
        using JsonDocument check = JsonDocument.Parse(File.ReadAllText(json));
        var folders = check.RootElement.GetProperty("folders").EnumerateArray().ToDictionary(f => f.GetProperty("role").GetString()!, f => f);
        Assert.AreEqual(repository.Root, folders["repository"].GetProperty("path").GetString(), "Directory.Build.props' folder");
        Assert.AreEqual(xfs.MountPoint, folders["repository"].GetProperty("volume").GetString());
        Assert.IsTrue(folders["repository"].GetProperty("canClone").GetBoolean());
        StringAssert.StartsWith(folders["buildOutput"].GetProperty("path").GetString(), Path.Combine(repository.Root, "bin"));
        StringAssert.StartsWith(folders["intermediateOutput"].GetProperty("path").GetString(), Path.Combine(repository.Root, "obj"));
        Assert.AreEqual(Path.GetFullPath(repository.PackageCache).TrimEnd('/'), folders["packageCache"].GetProperty("path").GetString()!.TrimEnd('/'), "NuGet's package root, from NUGET_PACKAGES");
        Assert.IsTrue(folders.ContainsKey("dotnetInstallation") && folders.ContainsKey("tempFolder"), string.Join(", ", folders.Keys));
        Assert.IsTrue(check.RootElement.GetProperty("repositoryClones").GetBoolean());
        string[] warnings = check.RootElement.GetProperty("findings").EnumerateArray().Where(f => f.GetProperty("severity").GetString() == "warning").Select(f => f.GetProperty("message").GetString()!).ToArray();
        Assert.IsTrue(warnings.Any(w => w.Contains("NuGet package cache") && w.Contains(repository.PackageCache.TrimEnd('/'))), string.Join("\n", warnings));
    }

    [TestMethod]
    public void The_target_says_a_project_asks_for_links_and_names_CopyOnWriteInsteadOfLinks_where_the_volumes_clone()
    {
        LoopFileSystem xfs = LoopFileSystems.Xfs;
        ConsumerRepository repository = ConsumerRepository.Create(xfs.NewFolder("doctor-links"), PackageRoute.SdkElement, directoryBuildProps: "<CreateHardLinksForCopyLocalIfPossible>true</CreateHardLinksForCopyLocalIfPossible>");

        ProcessResult doctor = repository.Dotnet(new Dictionary<string, string?> { ["NUGET_PACKAGES"] = xfs.NewFolder("doctor-links-packages") }, "msbuild", "Lib.csproj", "-restore", "-t:CopyOnWriteDoctor", "-nologo", "-nr:false");

        Assert.AreEqual(0, doctor.ExitCode, doctor.Output);
        StringAssert.Contains(doctor.Output, "The project asks for links (CreateHardLinksForCopyLocalIfPossible), so outputs are hard or symbolic links into the package cache");
        StringAssert.Contains(doctor.Output, "<CopyOnWriteInsteadOfLinks>true</CopyOnWriteInsteadOfLinks>");
    }

    [TestMethod]
    public void With_CopyOnWriteDoctorRequireClone_a_repository_on_ext4_fails_with_COW005_and_the_reason()
    {
        using LoopFileSystem xfs = LoopFileSystems.RequireNew("xfs", 1024, LoopFileSystems.KeptFolder); // mounted before the doctor looks, not in a temp folder
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Ext4.NewFolder("doctor"), PackageRoute.PackageReference);

        ProcessResult doctor = repository.Dotnet(null, "msbuild", "Lib.csproj", "-restore", "-t:CopyOnWriteDoctor", "-p:CopyOnWriteDoctorRequireClone=true", "-nologo", "-nr:false");

        Assert.AreNotEqual(0, doctor.ExitCode, doctor.Output);
        StringAssert.Contains(doctor.Output, "error COW005: CopyOnWrite: this repository cannot clone what it builds");
        StringAssert.Contains(doctor.Output, "(ext4), which cannot clone");
        StringAssert.Contains(doctor.Output, "This machine already has");
        StringAssert.Contains(doctor.Output, $"{xfs.MountPoint} (xfs)", "the test's XFS volume is one that clones");
    }

    [TestMethod]
    public void A_JSON_file_that_cannot_be_written_is_a_clear_error_after_the_check_not_a_task_crash()
    {
        ConsumerRepository repository = ConsumerRepository.Create(LoopFileSystems.Ext4.NewFolder("doctor"), PackageRoute.PackageReference);
        string json = Path.Combine(repository.Root, "no-such-folder", "doctor.json");

        ProcessResult doctor = repository.Dotnet(null, "msbuild", "Lib.csproj", "-restore", "-t:CopyOnWriteDoctor", $"-p:CopyOnWriteDoctorJson={json}", "-nologo", "-nr:false");

        Assert.AreNotEqual(0, doctor.ExitCode, doctor.Output);
        StringAssert.Contains(doctor.Output, "CopyOnWrite doctor: can this machine clone what this repository builds?", "the check still ran and printed");
        StringAssert.Contains(doctor.Output, $"error : CopyOnWriteDoctor: cannot write the check to {json} (CopyOnWriteDoctorJson)");
        Assert.IsFalse(doctor.Output.Contains("MSB4018"), $"the task crashed instead of reporting:\n{doctor.Output}");
        Assert.IsFalse(File.Exists(json));
    }

    private const string Header = "CopyOnWrite doctor: can this machine clone what this repository builds?";

    /// <summary>
    /// The README's command, typed in a solution folder of a terminal (a pseudo-terminal made by `script`) with the
    /// terminal logger at its default verbosity: the report prints (as warning COW007, the only kind of event that
    /// logger shows), once although every project of the solution is asked, and the JSON goes where the user asked,
    /// relative to the folder the command was typed in.
    /// </summary>
    [TestMethod]
    [DataRow("slnx")]
    [DataRow("sln")]
    public void In_a_terminal_from_a_solution_folder_the_report_prints_once_and_the_JSON_lands_in_the_current_folder(string format)
    {
        SavingsProjects projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("doctor-solution"));
        SdkPackage.Dotnet(projects.Root, "new", "sln", "--name", "Both", "--format", format);
        SdkPackage.Dotnet(projects.Root, "sln", $"Both.{format}", "add", "App/App.csproj", "Lib/Lib.csproj");
        IDictionary<string, string?> environment = SdkPackage.BuildEnvironment;
        environment.Remove("MSBUILDTERMINALLOGGER");
        environment["TERM"] = "xterm-256color";

        ProcessResult terminal = ProcessRunner.Run("script", ["-qec", "dotnet msbuild -restore -t:CopyOnWriteDoctor -tl:on -nr:false -p:CopyOnWriteDoctorJson=doctor.json", "/dev/null"], projects.Root, environment, System.TimeSpan.FromMinutes(10));

        string shown = Regex.Replace(terminal.Output, @"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)", string.Empty);
        Assert.AreEqual(0, terminal.ExitCode, shown);
        Assert.AreEqual(1, Regex.Matches(shown, Regex.Escape(Header)).Count, "the report must print once in the terminal:\n" + shown);
        StringAssert.Contains(shown, "warning COW007");
        StringAssert.Contains(shown, "Result: the repository clones what it builds.");
        Assert.IsTrue(File.Exists(Path.Combine(projects.Root, "doctor.json")), "CopyOnWriteDoctorJson=doctor.json is relative to the folder the command ran in:\n" + shown);
        Assert.IsFalse(File.Exists(Path.Combine(projects.Root, "App", "doctor.json")) || File.Exists(Path.Combine(projects.Root, "Lib", "doctor.json")), "a project wrote the JSON into its own folder");
        using JsonDocument check = JsonDocument.Parse(File.ReadAllText(Path.Combine(projects.Root, "doctor.json")));
        Assert.IsTrue(check.RootElement.GetProperty("repositoryClones").GetBoolean(), "the solution is on XFS with the repository");
    }

    [TestMethod]
    public void With_the_classic_console_logger_and_warnAsError_the_report_prints_once_per_solution_build_and_fails_nothing()
    {
        SavingsProjects projects = SavingsProjects.Create(LoopFileSystems.Xfs.NewFolder("doctor-solution-console"));
        SdkPackage.Dotnet(projects.Root, "new", "sln", "--name", "Both");
        SdkPackage.Dotnet(projects.Root, "sln", "add", "App/App.csproj", "Lib/Lib.csproj");

        ProcessResult console = ProcessRunner.Run("dotnet", ["msbuild", "-restore", "-t:CopyOnWriteDoctor", "-tl:off", "-nr:false", "-nologo", "-warnAsError"], projects.Root, SdkPackage.BuildEnvironment, System.TimeSpan.FromMinutes(10));

        Assert.AreEqual(0, console.ExitCode, "the report (COW007) is never an error, even under -warnAsError:\n" + console.Output);
        // The console logger repeats every warning in its closing list: the report is said once, and listed once there.
        IReadOnlyList<string> headers = SavingsProjects.DistinctLinesContaining(console.Output, Header);
        Assert.AreEqual(1, headers.Count, "one project reports for the solution:\n" + console.Output);
    }
}
