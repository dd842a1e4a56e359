using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Savings;

/// <summary>
/// A small two-project build that consumes the packed SDK like a user (global.json msbuild-sdks plus one
/// &lt;Sdk&gt; in Directory.Build.props): Lib with content files, and App referencing Lib, so that the copies
/// of both projects and several Copy invocations are involved. Cheap enough to build in seconds.
/// </summary>
internal sealed partial class SavingsProjects
{
    private SavingsProjects(string root) => Root = root;

    public string Root { get; }

    public string App => Path.Combine(Root, "App", "App.csproj");

    /// <param name="folder">Where to write the projects (a folder on the file system under test).</param>
    /// <param name="directoryBuildProps">Extra XML inside Directory.Build.props' PropertyGroup.</param>
    /// <param name="appProperties">Extra XML inside App.csproj's PropertyGroup.</param>
    /// <param name="contentFolder">Where Lib's content files live (null: in Lib itself).</param>
    /// <param name="contentFiles">How many content files Lib has (300 KB, 200 KB, then 100 KB each).</param>
    /// <param name="appTargetFramework">App's target framework, e.g. net462 (Lib's is then netstandard2.0, so the
    /// SDK copies its .NET Standard facades into App's output); null: both net10.0.</param>
    public static SavingsProjects Create(string folder, string directoryBuildProps = "", string appProperties = "", string? contentFolder = null, int contentFiles = 2, string? appTargetFramework = null)
    {
        // .NET Framework and .NET Standard need packages from the public registry (reference assemblies, NETStandard.Library).
        SdkPackage.WriteNuGetConfig(folder, withPublicRegistry: appTargetFramework is not null);
        File.WriteAllText(Path.Combine(folder, "global.json"), File.ReadAllText(Path.Combine(RepositoryLayout.Root, "global.json")));
        var projects = new SavingsProjects(folder);
        projects.WriteDirectoryBuildProps(directoryBuildProps);

        string lib = Path.Combine(folder, "Lib");
        string content = contentFolder ?? Path.Combine(lib, "content");
        string[] names = { "first.bin", "second.bin", "third.bin", "fourth.bin" };
        for (int i = 0; i < contentFiles; i++)
        {
            TestFiles.Write(content, names[i], i switch { 0 => 300_000, 1 => 200_000, _ => 100_000 });
        }

        Directory.CreateDirectory(lib);
        File.WriteAllText(Path.Combine(lib, "Lib.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              {(appTargetFramework is null ? string.Empty : "<PropertyGroup><TargetFramework>netstandard2.0</TargetFramework></PropertyGroup>")}
              <ItemGroup>
                <None Include="{content}/*.bin" Link="%(Filename)%(Extension)" CopyToOutputDirectory="PreserveNewest" />
              </ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(lib, "Lib.cs"), "public static class Lib { public static int Answer => 42; }");

        string app = Path.Combine(folder, "App");
        Directory.CreateDirectory(app);
        File.WriteAllText(Path.Combine(app, "App.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <OutputType>Exe</OutputType>
                {(appTargetFramework is null ? string.Empty : $"<TargetFramework>{appTargetFramework}</TargetFramework>")}
                {appProperties}
              </PropertyGroup>
              <ItemGroup>
                <ProjectReference Include="../Lib/Lib.csproj" />
              </ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(app, "Program.cs"), "public static class Program { public static void Main() => System.Console.WriteLine(Lib.Answer); }");
        return projects;
    }

    /// <summary>(Re)writes Directory.Build.props: the SDK element, net10.0, and <paramref name="properties"/>.</summary>
    public void WriteDirectoryBuildProps(string properties)
        => File.WriteAllText(Path.Combine(Root, "Directory.Build.props"), $"""
            <Project>
              <Sdk Name="Microsoft.Build.CopyOnWrite" />
              <PropertyGroup>
                <TargetFramework>net10.0</TargetFramework>
                {properties}
              </PropertyGroup>
            </Project>
            """);

    /// <summary>Deletes both projects' bin/ folders, so the next build copies everything again.</summary>
    public void DeleteOutputs()
    {
        foreach (string project in new[] { "App", "Lib" })
        {
            string bin = Path.Combine(Root, project, "bin");
            if (Directory.Exists(bin))
            {
                Directory.Delete(bin, recursive: true);
            }
        }
    }

    /// <summary>App's output folder for its target framework.</summary>
    public string AppOutput(string targetFramework = "net10.0") => Path.Combine(Root, "App", "bin", "Debug", targetFramework);

    /// <summary>
    /// `dotnet build App` in this test process (<see cref="InProcessBuild"/>: our targets and task are the question), which
    /// must succeed; returns what it printed.
    /// </summary>
    public string Build(params string[] arguments)
    {
        ProcessResult build = TryBuild(arguments);
        Assert.IsTrue(build.Succeeded, $"the build of {App} failed:\n{build.Output}");
        return build.Output;
    }

    /// <summary>`dotnet build App` in this test process, whatever its outcome.</summary>
    public ProcessResult TryBuild(params string[] arguments) => TryBuildWithEnvironment(new Dictionary<string, string?>(), arguments);

    /// <summary>`dotnet build App` in this test process with extra environment variables, whatever its outcome.</summary>
    public ProcessResult TryBuildWithEnvironment(IDictionary<string, string?> variables, params string[] arguments)
        => InProcessBuild.DotnetBuild(App, arguments, variables);

    /// <summary>The real `dotnet build App`, which must succeed: where the command line is the question (several nodes, -mt).</summary>
    public string DotnetBuild(params string[] arguments)
        => SdkPackage.Dotnet(Root, ["build", App, "-nologo", "-nr:false", .. arguments]).Output;

    /// <summary>The real `dotnet build App`, with extra environment variables, whatever its outcome: where the command line is the question (-mt).</summary>
    public ProcessResult TryDotnetBuild(IDictionary<string, string?> variables, params string[] arguments)
        => SdkPackage.TryDotnet(Root, ["build", App, "-nologo", "-nr:false", .. arguments], variables);

    /// <summary>The -logger: argument the SDK publishes as $(CopyOnWriteSummaryLogger), as the README's -getProperty reads it.</summary>
    public string SummaryLoggerArgument() => InProcessBuild.Property(App, "CopyOnWriteSummaryLogger");

    /// <summary>Lines that contain <paramref name="text"/>, each error or warning counted once (the console logger repeats them at the end).</summary>
    public static IReadOnlyList<string> DistinctLinesContaining(string output, string text)
        => output.Split('\n').Select(line => NodePrefix().Replace(line.Trim(), string.Empty)).Where(line => line.Contains(text, System.StringComparison.Ordinal)).Distinct().ToList();

    public static IReadOnlyList<string> LinesContaining(string output, string text)
        => output.Split('\n').Select(line => line.Trim()).Where(line => line.Contains(text, System.StringComparison.Ordinal)).ToList();

    [GeneratedRegex(@"^\d+>")]
    private static partial Regex NodePrefix();
}
