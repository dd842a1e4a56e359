using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Microsoft.Build.CopyOnWrite.Shared;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;

/// <summary>
/// An error or warning as `dotnet msbuild` printed it, with the project line of the task that logged it and its project:
/// the file of that line, else the project MSBuild names after the message (empty where it names neither).
/// </summary>
public sealed record Diagnostic(string Kind, string Code, string Message, int Line, string Project)
{
    public override string ToString() => $"({Line}) {Kind} {Code}: {Message}";
}

/// <summary>What a `dotnet msbuild` run did.</summary>
public sealed partial class BuildRun
{
    public BuildRun(int exitCode, string output, TimeSpan elapsed)
    {
        ExitCode = exitCode;
        Output = output;
        Elapsed = elapsed;
        Diagnostics = output.Split('\n')
            .Select(line => DiagnosticLine().Match(line.TrimEnd('\r')))
            .Where(match => match.Success)
            .Select(match => new Diagnostic(
                match.Groups["kind"].Value,
                match.Groups["code"].Value,
                match.Groups["message"].Value.Trim(),
                match.Groups["line"].Success ? int.Parse(match.Groups["line"].Value) : 0,
                match.Groups["file"].Value.Length > 0 ? match.Groups["file"].Value.Trim() : match.Groups["project"].Value))
            .ToList();
    }

    public int ExitCode { get; }

    public string Output { get; }

    public TimeSpan Elapsed { get; }

    public IReadOnlyList<Diagnostic> Diagnostics { get; }

    public IEnumerable<string> ErrorCodes => Diagnostics.Where(d => d.Kind == "error").Select(d => d.Code);

    public IEnumerable<string> WarningCodes => Diagnostics.Where(d => d.Kind == "warning").Select(d => d.Code);

    /// <summary>Our task says what it did in a "CopyOnWrite:" line; the stock task never prints one.</summary>
    public bool RanOurTask => Output.Contains("CopyOnWrite: ", StringComparison.Ordinal);

    public override string ToString() => $"exit code {ExitCode} after {Elapsed.TotalSeconds:0.0} s; output:\n{Output}";

    // "/x/p.proj(12,5): error MSB3021: Unable to copy ... [/x/p.proj]" (the project suffix is optional).
    [GeneratedRegex(@"^\s*(?:(?<file>.*?)\((?<line>\d+),\d+\)|MSBUILD)\s*:\s*(?<kind>error|warning)\s*(?<code>[A-Z]+\d+)?\s*:\s?(?<message>.*?)(?:\s\[(?<project>[^\[\]]*)\])?$")]
    private static partial Regex DiagnosticLine();
}

/// <summary>
/// Real project files run by real `dotnet msbuild` processes, with our Copy registered the way our SDK
/// registers it (a project UsingTask named "Copy" beats the built-in one), or without it: the stock task.
/// Every run has a time limit, so a hanging task fails the test instead of hanging it.
/// </summary>
public static class MSBuildProjects
{
    public const string StockProperty = "UseStockCopy";

    private static readonly Lazy<string> TaskAssembly = new(() =>
    {
        // A copy anyone can read (tests also run builds as `nobody`), away from the test host's own folder.
        string folder = TestScratch.NewFolder("task");
        string target = Path.Combine(folder, "Microsoft.Build.CopyOnWrite.dll");
        File.Copy(Path.Combine(AppContext.BaseDirectory, "Microsoft.Build.CopyOnWrite.dll"), target);
        MakeReadableByAnyone(folder);
        return target;
    });

    private static readonly Lazy<string> NobodyHome = new(() =>
    {
        string home = TestScratch.NewFolder("nobody-home");
        File.SetUnixFileMode(home, (UnixFileMode)0x1FF);
        MakeReadableByAnyone(home);
        return home;
    });

    /// <summary>Our net8.0 task assembly, built from this working tree.</summary>
    public static string TaskAssemblyPath => TaskAssembly.Value;

    /// <summary>Writes a project whose &lt;Copy&gt; elements run our task unless $(UseStockCopy) is true.</summary>
    public static string Write(string folder, string name, string body)
    {
        string path = Path.Combine(folder, name);
        File.WriteAllText(path, Compose(body));
        return path;
    }

    /// <summary>The project text; line numbers in diagnostics count from its first line.</summary>
    public static string Compose(string body) => $"""
        <Project>
          <UsingTask TaskName="Copy" AssemblyFile="{TaskAssemblyPath}" Condition="'$({StockProperty})' != 'true'" />
        {body}
        </Project>
        """;

    /// <summary>The 1-based line of the first line containing <paramref name="marker"/> in <paramref name="projectText"/>.</summary>
    public static int LineOf(string projectText, string marker)
    {
        string[] lines = projectText.Split('\n');
        int index = Array.FindIndex(lines, line => line.Contains(marker, StringComparison.Ordinal));
        if (index < 0)
        {
            throw new ArgumentException($"{marker} is not in the project");
        }

        return index + 1;
    }

    /// <summary>Runs the project to the end, or kills it and reports a timeout (exit code -1).</summary>
    public static BuildRun Run(string project, bool stock, TimeSpan timeout, params string[] extraArguments)
        => Run(project, stock, timeout, launcher: null, extraArguments);

    /// <summary>As <see cref="Run(string, bool, TimeSpan, string[])"/>, with `dotnet` started by <paramref name="launcher"/> (a program and its arguments) when given.</summary>
    public static BuildRun Run(string project, bool stock, TimeSpan timeout, IReadOnlyList<string>? launcher, params string[] extraArguments)
        => Finish(Start(project, stock, extraArguments, launcher: launcher), timeout);

    /// <summary>
    /// One `dotnet msbuild` building the projects in turn, each with MSBuild's Copy or ours and its own properties (the
    /// MSBuild task goes on after a project that failed; a diagnostic names the project of the task that logged it):
    /// the sides of a comparison, or a question on several volumes, in one process. As `nobody` with <paramref name="asNobody"/>.
    /// </summary>
    public static BuildRun RunSides(IEnumerable<(string Project, bool Stock, string Properties)> sides, TimeSpan timeout, IReadOnlyList<string>? launcher = null, bool asNobody = false, params string[] extraArguments)
    {
        string items = string.Concat(sides.Select(side =>
            $"""    <Side Include="{side.Project}" Properties="{StockProperty}={(side.Stock ? "true" : "false")};{side.Properties}" />""" + "\n"));
        string folder = TestScratch.NewFolder("sides");
        string all = Write(folder, "sides.proj", $"""
              <ItemGroup>
            {items}  </ItemGroup>
              <Target Name="Build">
                <MSBuild Projects="@(Side)" BuildInParallel="false" />
              </Target>
            """);
        if (asNobody)
        {
            MakeReadableByAnyone(folder);
        }

        return Finish(Start(all, stock: false, ["-m:1", .. extraArguments], asNobody, launcher), timeout);
    }

    /// <summary>The build started, run to the end, or killed and reported as a timeout (exit code -1).</summary>
    private static BuildRun Finish(ChildProcess started, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        using ChildProcess child = started;
        if (!child.WaitForExit(timeout))
        {
            child.KillTree();
            child.WaitForExit(TimeSpan.FromSeconds(10));
            return new BuildRun(-1, $"TIMED OUT after {timeout.TotalSeconds} s (killed). Output so far:\n{child.Output}", clock.Elapsed);
        }

        return new BuildRun(child.ExitCode, child.Output, clock.Elapsed);
    }

    /// <summary>Starts `dotnet msbuild` on the project; <paramref name="asNobody"/> drops root (setpriv) so permissions apply.</summary>
    /// <param name="launcher">A program and its arguments that start `dotnet` (e.g. with system calls made to fail); null: `dotnet` itself.</param>
    internal static ChildProcess Start(string project, bool stock, IEnumerable<string> extraArguments, bool asNobody = false, IReadOnlyList<string>? launcher = null)
    {
        var arguments = new List<string>
        {
            "msbuild", project, "-nologo", "-v:n", "-nr:false", "-clp:NoSummary", $"-p:{StockProperty}={(stock ? "true" : "false")}",
        };
        arguments.AddRange(extraArguments);
        IDictionary<string, string?> environment = SdkPackage.BuildEnvironment;
        environment["DOTNET_NOLOGO"] = "1";
        environment["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1";
        environment["DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE"] = "1";
        string folder = Path.GetDirectoryName(project)!;
        if (launcher is { Count: > 0 })
        {
            return ChildProcess.Start(launcher[0], [.. launcher.Skip(1), "dotnet", .. arguments], folder, environment);
        }

        if (!asNobody)
        {
            return ChildProcess.Start("dotnet", arguments, folder, environment);
        }

        environment["HOME"] = NobodyHome.Value;
        environment["DOTNET_CLI_HOME"] = NobodyHome.Value;
        return ChildProcess.Start("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "dotnet", .. arguments], folder, environment);
    }

    /// <summary>Opens <paramref name="folder"/> and every folder above it for reading and traversal by other users.</summary>
    public static void MakeReadableByAnyone(string folder)
    {
        for (DirectoryInfo? current = new(folder); current is not null && current.FullName != "/"; current = current.Parent)
        {
            UnixFileMode mode = File.GetUnixFileMode(current.FullName);
            const UnixFileMode Open = UnixFileMode.OtherRead | UnixFileMode.OtherExecute | UnixFileMode.GroupRead | UnixFileMode.GroupExecute;
            if ((mode & Open) != Open)
            {
                File.SetUnixFileMode(current.FullName, mode | Open);
            }
        }

        foreach (string file in Directory.EnumerateFiles(folder))
        {
            UnixFileMode mode = File.GetUnixFileMode(file);
            if ((mode & UnixFileMode.OtherRead) == 0)
            {
                File.SetUnixFileMode(file, mode | UnixFileMode.OtherRead | UnixFileMode.GroupRead);
            }
        }
    }
}

/// <summary>The project under two names, one a side, so that a diagnostic says which side it came from.</summary>
public sealed record Sides(string Stock, string Ours)
{
    public static Sides Of(string project)
    {
        string folder = Path.GetDirectoryName(project)!;
        var sides = new Sides(Path.Combine(folder, "stock.proj"), Path.Combine(folder, "ours.proj"));
        File.Move(project, sides.Stock);
        File.Copy(sides.Stock, sides.Ours);
        return sides;
    }
}
