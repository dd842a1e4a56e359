using System;
using System.IO;
using Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.EndToEnd;

/// <summary>
/// The tool installed with `dotnet tool install --tool-path`, as the README says: not on PATH, so `dotnet cow-measure`
/// does not find it, and its path runs it; here on a solution file, which its doctor takes.
/// </summary>
[TestClass]
public sealed class ToolPathTests
{
    [TestMethod]
    public void Installed_with_tool_path_it_runs_by_its_path_and_not_as_dotnet_cow_measure()
    {
        string repository = TestScratch.NewFolder("tool-path-repository");
        File.WriteAllText(Path.Combine(repository, "Directory.Build.props"), "<Project />");
        Directory.CreateDirectory(Path.Combine(repository, "App"));
        File.WriteAllText(Path.Combine(repository, "App", "App.csproj"), "<Project Sdk=\"Microsoft.NET.Sdk\" />");
        File.WriteAllText(Path.Combine(repository, "App.slnx"), """<Solution><Project Path="App/App.csproj" /></Solution>""");

        ProcessResult asDotnetCommand = ProcessRunner.Run("dotnet", ["cow-measure", "doctor", "App.slnx"], repository, null, TimeSpan.FromMinutes(2));
        ToolRun byPath = InstalledTool.Run(repository, ["doctor", "App.slnx"]);

        Assert.AreNotEqual(0, asDotnetCommand.ExitCode, "a --tool-path install is not on PATH, so dotnet cow-measure cannot find it:\n" + asDotnetCommand.Output);
        Assert.AreEqual(0, byPath.ExitCode, byPath.ToString());
        StringAssert.Contains(byPath.Output, $"Repository: {repository} ");
        string readme = File.ReadAllText(Path.Combine(RepositoryLayout.Root, "README.md"));
        StringAssert.Contains(readme, "`dotnet tool install --tool-path DIR`");
        StringAssert.Contains(readme, "`DIR/dotnet-cow-measure ...`");
    }
}
