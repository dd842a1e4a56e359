using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;

/// <summary>What one run of the tool printed, apart: its progress and report (standard output), its errors (standard error).</summary>
public sealed record ToolRun(int ExitCode, string Output, string Error)
{
    /// <summary>The non-empty lines the tool wrote to standard error.</summary>
    public IReadOnlyList<string> ErrorLines => Error.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);

    public override string ToString() => $"exit code {ExitCode}\n--- standard error:\n{Error}\n--- standard output:\n{Output}";
}

/// <summary>
/// dotnet cow-measure as a user gets it: packed once per test run from the working tree, then installed with
/// `dotnet tool install --tool-path` from that package folder, into a folder with no repository around it and a
/// NuGet cache of its own (so no older package of the same version can stand in).
/// </summary>
public static class InstalledTool
{
    private static readonly Lazy<(string Tool, string Packages, string Version, string Home)> Installed = new(Install);

    /// <summary>The installed command.</summary>
    public static string Path => Installed.Value.Tool;

    /// <summary>The folder holding both packages (the tool's and the SDK's).</summary>
    public static string PackageFolder => Installed.Value.Packages;

    public static string Version => Installed.Value.Version;

    /// <summary>A folder outside any repository: no Microsoft.Build.CopyOnWrite.sln and no .git above it.</summary>
    public static string OutsideAnyRepository => Installed.Value.Home;

    /// <summary>Runs the installed tool in <paramref name="workingDirectory"/>; <paramref name="asUser"/> runs it as that unprivileged uid through setpriv.</summary>
    public static ToolRun Run(string workingDirectory, IEnumerable<string> arguments, int? asUser = null, TimeSpan? timeout = null)
    {
        var start = new ProcessStartInfo(asUser is null ? Path : "setpriv")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory,
        };
        if (asUser is int uid)
        {
            foreach (string argument in new[] { $"--reuid={uid}", $"--regid={uid}", "--clear-groups", Path })
            {
                start.ArgumentList.Add(argument);
            }

            // A home the unprivileged user can write to, for the .NET host's first-run files.
            string home = TestScratch.NewFolder("home-" + uid);
            if (!OperatingSystem.IsWindows())
            {
                File.SetUnixFileMode(home, (UnixFileMode)0x1FF);
            }

            start.Environment["HOME"] = home;
            start.Environment["DOTNET_CLI_HOME"] = home;
        }

        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        start.Environment["MSBuildExtensionsPath"] = null;
        start.Environment["MSBuildSDKsPath"] = null;
        start.Environment["MSBUILD_EXE_PATH"] = null;

        var output = new StringBuilder();
        var error = new StringBuilder();
        using var process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, e) => { if (e.Data is not null) { lock (output) { output.AppendLine(e.Data); } } };
        process.ErrorDataReceived += (_, e) => { if (e.Data is not null) { lock (error) { error.AppendLine(e.Data); } } };
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (!process.WaitForExit(timeout ?? TimeSpan.FromMinutes(15)))
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail($"dotnet cow-measure did not finish in time:\n{output}\n{error}");
        }

        process.WaitForExit();
        lock (output)
        {
            lock (error)
            {
                return new ToolRun(process.ExitCode, output.ToString(), error.ToString());
            }
        }
    }

    private static (string, string, string, string) Install()
    {
        // Outside the repository and its git work tree, readable by an unprivileged user (setpriv tests run the tool from here).
        string home = System.IO.Path.Combine("/var/tmp", $"cow-measure-tool-tests-{Environment.ProcessId}");
        Directory.CreateDirectory(home);
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(home, (UnixFileMode)0x1ED); // rwxr-xr-x
        }

        // The run's one pack (build/test.sh's; a test process run alone makes it the same way).
        string packages = SdkPackage.Folder;
        var environment = new Dictionary<string, string?>
        {
            ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
            ["DOTNET_NOLOGO"] = "1",
            ["MSBUILDDISABLENODEREUSE"] = "1",
            ["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0",
            ["MSBuildExtensionsPath"] = null,
            ["MSBuildSDKsPath"] = null,
            ["MSBUILD_EXE_PATH"] = null,
        };

        string package = Directory.GetFiles(packages, "Microsoft.Build.CopyOnWrite.Measure.*.nupkg").Single();
        string version = System.IO.Path.GetFileNameWithoutExtension(package)["Microsoft.Build.CopyOnWrite.Measure.".Length..];

        string tools = System.IO.Path.Combine(home, "tools");
        environment["NUGET_PACKAGES"] = System.IO.Path.Combine(home, "nuget-packages");
        ProcessResult install = ProcessRunner.Run(
            "dotnet",
            ["tool", "install", "Microsoft.Build.CopyOnWrite.Measure", "--version", version, "--tool-path", tools, "--add-source", packages],
            home,
            environment,
            TimeSpan.FromMinutes(5));
        Assert.IsTrue(install.Succeeded, $"dotnet tool install failed:\n{install.Output}");
        string tool = System.IO.Path.Combine(tools, OperatingSystem.IsWindows() ? "dotnet-cow-measure.exe" : "dotnet-cow-measure");
        Assert.IsTrue(File.Exists(tool), $"dotnet tool install did not make {tool}:\n{install.Output}");
        TestScratchCleanup.Register(home);
        return (tool, packages, version, home);
    }
}

/// <summary>Folders outside the test scratch root that the assembly cleanup removes too.</summary>
public static class TestScratchCleanup
{
    private static readonly List<string> Folders = new();

    public static void Register(string folder)
    {
        lock (Folders)
        {
            Folders.Add(folder);
        }
    }

    public static void DeleteAll()
    {
        lock (Folders)
        {
            foreach (string folder in Folders.Where(Directory.Exists))
            {
                try
                {
                    Directory.Delete(folder, recursive: true);
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                    Console.WriteLine($"Could not delete {folder}: {e.Message}");
                }
            }

            Folders.Clear();
        }
    }
}
