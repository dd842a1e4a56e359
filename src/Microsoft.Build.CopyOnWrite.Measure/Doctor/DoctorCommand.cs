using System.Collections.Generic;
using System.CommandLine;
using System.IO;
using System.Linq;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Measure.SelfTest;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// `dotnet cow-measure doctor [FOLDER...]`: before any build, can this machine clone what the repository builds, by
/// the build's own rules (the task assembly's CloneRule, CopySources and settings parser).
/// </summary>
internal static class DoctorCommand
{
    /// <summary>--require-clone and the repository cannot clone what it builds.</summary>
    public const int CannotClone = 3;

    public static Command Create()
    {
        var folders = new Argument<string[]>("FOLDER")
        {
            Description = "The repository, a folder in it, a solution (.sln, .slnx) or a project file (default: the current folder), then any other folders to check (a drive you could build on). "
                + "The folders are those MSBuild evaluates for the project named, else for what `dotnet build` would build in the folder named.",
            Arity = ArgumentArity.ZeroOrMore,
        };
        var json = new Option<string?>("--json") { Description = "Also write the check as JSON to this file (in a solution folder: every project's, the worst one's on top).", HelpName = "FILE" };
        var requireClone = new Option<bool>("--require-clone")
        {
            Description = $"Exit with {CannotClone} when the repository cannot clone what it builds, by the rule of CopyOnWriteMode=Required (a file copied, not cloned, fails unless it comes from the .NET installation, a NuGet fallback folder of NUGET_FALLBACK_PACKAGES or a folder in CopyOnWriteAcceptCopiesFrom), or when a fresh clone would not restore our packages (their folder not committed, a packageSourceMapping without them): for a CI step, or before a push.",
        };
        var copiesFrom = new Option<string[]>("--copies-from")
        {
            Description = "A folder a step of the build copies from, besides the repository and the package folders (the temp folder, a shared drive): judged as CopyOnWriteMode=Required judges it. Repeat for more.",
            HelpName = "FOLDER",
        };
        var selfTest = new Option<bool>("--selftest")
        {
            Description = $"Then run the SDK's self-test on the volumes a build writes to: the real engine and Copy task on files written moments before, settled files up to 64 MiB, a destination "
                + $"another process holds, four writers onto one destination, and the time per file against File.Copy, every output compared with its source (exit {SelfTestMismatch} on a mismatch).",
        };
        var selfTestJson = new Option<string?>("--selftest-json") { Description = "Write the self-test's report as JSON to this file.", HelpName = "FILE" };
        var selfTestMarkdown = new Option<string?>("--selftest-markdown") { Description = "Write the self-test's report as a markdown block to paste into an issue.", HelpName = "FILE" };
        var command = new Command("doctor", "Checks, before any build, whether this machine can clone what the repository builds: the repository, "
            + "its outputs, the NuGet package cache and fallback folders, the .NET installation and the temp folder, each on its volume, "
            + "which of them share a volume that clones, and the command that fixes each problem.")
        {
            folders, json, requireClone, copiesFrom, selfTest, selfTestJson, selfTestMarkdown,
        };
        // Ctrl-C cancels (the self-test then removes its files and stops the processes it started) instead of ending the
        // process. Run on the calling thread, as before: a test holds the probe's system call on the main thread (strace).
        command.SetAction((result, cancellation) =>
        {
            var selfTestFiles = result.GetValue(selfTest) ? (result.GetValue(selfTestJson), result.GetValue(selfTestMarkdown)) : ((string?, string?)?)null;
            return System.Threading.Tasks.Task.FromResult(Run(result.GetValue(folders) ?? [], result.GetValue(json), result.GetValue(requireClone), Console.Out, Console.Error, result.GetValue(copiesFrom) ?? [], selfTestFiles, cancellation));
        });
        return command;
    }

    /// <summary>--selftest and an output differed from its source.</summary>
    public const int SelfTestMismatch = SelfTest.SelfTestReport.MismatchExitCode;

    /// <param name="selfTest">With --selftest: its JSON and markdown files (each may be null); null without it.</param>
    public static int Run(string[] folders, string? json, bool requireClone, TextWriter output, TextWriter error, string[]? copiesFrom = null, (string? Json, string? Markdown)? selfTest = null, System.Threading.CancellationToken cancellation = default)
    {
        string named = folders.Length > 0 ? folders[0] : Environment.CurrentDirectory;
        if (!BuildFolders.TryFindProjects(named, out IReadOnlyList<string> projects, out string? problem))
        {
            error.WriteLine($"dotnet cow-measure doctor {named}: {problem}");
            return Program.BadInput;
        }

        // Every project `dotnet build` builds there, each evaluated by MSBuild, one after the other.
        List<(ProjectFolders? Found, string? Problem)> evaluated = projects.Select(project => BuildFolders.TryEvaluate(project, out ProjectFolders? found, out string? why) ? (found, null) : ((ProjectFolders?)null, why)).ToList();
        if (evaluated.All(e => e.Found is null))
        {
            error.WriteLine($"dotnet cow-measure doctor {named}: {evaluated[0].Problem}");
            return Program.BadInput;
        }

        IEnumerable<CheckedFolder> Extra() => (folders.Length > 1 ? folders[1..] : []).Select(f => new CheckedFolder(FolderRole.NamedFolder, Path.GetFullPath(f)))
            .Concat((copiesFrom ?? []).Select(f => new CheckedFolder(FolderRole.CopiedFrom, Path.GetFullPath(f))));
        VolumeFactsInspector volumes = VolumeFactsInspector.ForThisProcess();
        BuildFacts Facts(ProjectFolders found) => found.Facts with { Committed = CommittedPackages.Read(found.Repository, found.UsesOurSdk, found.PackageSources, found.NuGetConfigFiles) };
        List<(string Project, ProjectFolders? Found, string? Problem, DoctorCheck? Check)> checks = evaluated
            .Select((e, i) => (projects[i], e.Found, e.Problem, e.Found is null ? null : DoctorCheck.Run(e.Found.Folders.Concat(Extra()), volumes, AdviceOSes.ThisProcess, Facts(e.Found), LinuxMounts.VolumesUsersKeepThatMayClone)))
            .ToList();
        if (cancellation.IsCancellationRequested)
        {
            error.WriteLine("dotnet cow-measure doctor: cancelled; the check left no file behind.");
            return Program.MeasurementFailed;
        }

        // The worst verdict is the repository's: does not clone, then unknown, then clones; the first such project.
        static int Rank(DoctorCheck? check) => check is null ? 3 : check.Verdict.Clones switch { false => 0, null => 1, true => 2 };
        var worst = checks.Where(c => c.Check is not null).OrderBy(c => Rank(c.Check)).First();
        DoctorCheck check = worst.Check!;
        IReadOnlyList<string> lines = DoctorReport.Lines(check);
        output.WriteLine(lines[0]);
        output.WriteLine($"Repository: {worst.Found!.Repository} (the folder of the project's Directory.Build.props, else the project's); folders: those of {worst.Project}, as MSBuild evaluates it.");
        if (checks.Count > 1)
        {
            output.WriteLine($"Projects `dotnet build` builds here: {checks.Count}, each checked; below, the worst one's folders ({worst.Project}):");
            foreach (var each in checks)
            {
                string said = each.Check?.Verdict.Clones switch
                {
                    _ when each.Check is null => "not checked: " + each.Problem,
                    true => "clones what it builds",
                    false => "does NOT clone what it builds",
                    null => "whether it clones what it builds could not be told",
                };
                output.WriteLine($"  {each.Project}: {said}");
                foreach (FolderOnVolume folder in each.Check?.Folders.Where(f => f.Folder.Role is FolderRole.BuildOutput or FolderRole.IntermediateOutput) ?? [])
                {
                    output.WriteLine($"    {DoctorCheck.Describe(folder.Folder.Role)} {folder.Folder.Path}{(folder.Exists ? string.Empty : " (not there yet)")}");
                }
            }
        }

        foreach (string line in lines.Skip(1))
        {
            output.WriteLine(line);
        }

        if (json is not null)
        {
            try
            {
                File.WriteAllText(Path.GetFullPath(json), checks.Count == 1
                    ? DoctorReport.Json(check)
                    : DoctorReport.Json(worst.Project, checks.Select(c => (c.Project, c.Check, c.Problem))));
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                error.WriteLine($"dotnet cow-measure doctor --json {json}: cannot write it ({e.Message}); name a file in a folder you can write to.");
                return Program.BadInput;
            }
        }

        int verdict = requireClone && checks.Any(c => c.Check is { RepositoryClones: false } or { FreshCloneFails: true }) ? CannotClone : 0;
        if (selfTest is { } files)
        {
            int tested = SelfTestDoor.Run(check, files.Json, files.Markdown, output, error, cancellation);
            return tested != 0 ? tested : verdict; // a mismatch (4) or a failed check (1) outranks the verdict
        }

        return verdict;
    }
}
