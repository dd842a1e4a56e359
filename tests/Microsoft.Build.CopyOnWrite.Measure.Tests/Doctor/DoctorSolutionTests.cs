using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;
using Microsoft.Build.CopyOnWrite.TestKit;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Doctor;

/// <summary>
/// The doctor on a repository laid out as real ones are (issue 59): a solution whose first project is a benchmark with
/// a custom OutDir, a test project on two target frameworks, the artifacts output layout, all built for real by
/// `dotnet build` in the solution's folder. Named by that folder, as with no argument there, the doctor checks every
/// project that build built, names each with its verdict, and finds each project's real output folders.
/// </summary>
[TestClass]
public sealed class DoctorSolutionTests
{
    [TestMethod]
    public void In_a_solution_folder_every_project_is_checked_with_each_target_frameworks_real_output_folders()
    {
        string repository = TestScratch.NewFolder("doctor-solution");
        File.WriteAllText(Path.Combine(repository, "Directory.Build.props"), "<Project><PropertyGroup><UseArtifactsOutput>true</UseArtifactsOutput></PropertyGroup></Project>");
        string bench = Project(repository, "bench/Bench", "<TargetFramework>net10.0</TargetFramework><OutDir>$(MSBuildThisFileDirectory)../../custom-out/</OutDir>");
        string tests = Project(repository, "tests/Lib.Tests", "<TargetFrameworks>net8.0;net10.0</TargetFrameworks>");
        string solution = Path.Combine(repository, "Repo.slnx");
        File.WriteAllText(solution, $"""
            <Solution>
              <Project Path="{Path.GetRelativePath(repository, bench)}" />
              <Project Path="{Path.GetRelativePath(repository, tests)}" />
            </Solution>
            """);
        (int built, string buildOutput) = InProcessMSBuild.Build(solution, ["-restore", "-p:NuGetAudit=false"], new Dictionary<string, string?>());
        Assert.AreEqual(0, built, "the solution's build, in this process:\n" + buildOutput);

        var output = new StringWriter();
        var error = new StringWriter();
        string json = Path.Combine(TestScratch.NewFolder("doctor-solution-json"), "doctor.json");
        int exit = DoctorCommand.Run([repository], json, false, output, error);

        string text = output.ToString();
        Assert.AreEqual(0, exit, text + error);
        string[] lines = text.Split('\n');
        StringAssert.StartsWith(lines[0], "CopyOnWrite doctor: ", "the title first");
        StringAssert.StartsWith(lines[1], $"Repository: {repository} ", "then the repository");
        StringAssert.Contains(text, "Projects `dotnet build` builds here: 2, each checked");
        foreach (string project in new[] { bench, tests })
        {
            Assert.IsTrue(lines.Any(line => line.StartsWith($"  {project}: ", StringComparison.Ordinal) && line.Contains("clone", StringComparison.Ordinal)), $"{project} is not named with its verdict:\n{text}");
        }

        string artifacts = Path.Combine(repository, "artifacts");
        string[] expected =
        [
            $"    build output {Path.Combine(repository, "custom-out")}",
            $"    intermediate output (obj) {Path.Combine(artifacts, "obj", "Bench", "debug")}",
            $"    build output {Path.Combine(artifacts, "bin", "Lib.Tests", "debug_net8.0")}",
            $"    build output {Path.Combine(artifacts, "bin", "Lib.Tests", "debug_net10.0")}",
            $"    intermediate output (obj) {Path.Combine(artifacts, "obj", "Lib.Tests", "debug_net8.0")}",
            $"    intermediate output (obj) {Path.Combine(artifacts, "obj", "Lib.Tests", "debug_net10.0")}",
        ];
        foreach (string folder in expected)
        {
            Assert.IsTrue(lines.Any(line => line.TrimEnd('/') == folder || line == folder + "/"), $"missing \"{folder}\" (found there after the build):\n{text}");
            Assert.IsTrue(Directory.Exists(folder.Split(' ').Last()), $"premise: the build made {folder}");
        }

        Assert.IsFalse(text.Contains("(not there yet)", StringComparison.Ordinal), "a folder the build made is said not to be there:\n" + text);

        // The JSON: the worst project's check on top, as for one project, and every project's own under "projects".
        using JsonDocument document = JsonDocument.Parse(File.ReadAllText(json));
        JsonElement[] projects = document.RootElement.GetProperty("projects").EnumerateArray().ToArray();
        CollectionAssert.AreEquivalent(new[] { bench, tests }, projects.Select(p => p.GetProperty("project").GetString()).ToArray(), "every project, once");
        CollectionAssert.Contains(new[] { bench, tests }, document.RootElement.GetProperty("project").GetString(), "which project's check is on top");
        Assert.IsTrue(document.RootElement.TryGetProperty("repositoryClones", out _), "the one-project fields stay on top");
        foreach (JsonElement project in projects)
        {
            string[] outputs = project.GetProperty("check").GetProperty("folders").EnumerateArray()
                .Where(f => f.GetProperty("role").GetString() == "buildOutput").Select(f => f.GetProperty("path").GetString()!.TrimEnd('/')).ToArray();
            string[] expectedOutputs = project.GetProperty("project").GetString() == bench
                ? [Path.Combine(repository, "custom-out")]
                : [Path.Combine(artifacts, "bin", "Lib.Tests", "debug_net8.0"), Path.Combine(artifacts, "bin", "Lib.Tests", "debug_net10.0")];
            CollectionAssert.AreEquivalent(expectedOutputs, outputs, $"{project.GetProperty("project").GetString()}'s own build outputs");
            Assert.AreEqual(JsonValueKind.Null, project.GetProperty("problem").ValueKind);
        }
    }

    private static string Project(string repository, string relative, string properties)
    {
        string folder = Directory.CreateDirectory(Path.Combine(repository, relative)).FullName;
        string project = Path.Combine(folder, Path.GetFileName(relative) + ".csproj");
        File.WriteAllText(project, $"""<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup>{properties}<OutputType>Library</OutputType></PropertyGroup></Project>""");
        File.WriteAllText(Path.Combine(folder, "Class1.cs"), "namespace X; public static class C { }");
        return project;
    }
}
