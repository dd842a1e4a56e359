using System;
using System.Collections.Generic;
using System.CommandLine;
using System.CommandLine.Parsing;
using System.IO;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>What one invocation asked for, checked.</summary>
internal sealed record Options(
    string Target,
    string Root,
    IReadOnlyList<string> Volumes,
    int Runs,
    bool Incremental,
    string? Touch,
    string Configuration,
    string Out,
    string LoopFolder,
    int LoopSizeMiB,
    string? PackageDir,
    bool Keep)
{
    /// <summary>The build target relative to the copied root ("." for the root folder itself).</summary>
    public string RelativeTarget => Path.GetRelativePath(Root, Target);
}

/// <summary>The command line: options, their help and their validation (System.CommandLine).</summary>
internal static class CommandLine
{
    private static readonly Argument<string> TargetArgument = new("PATH")
    {
        Description = "The solution (.sln, .slnx), project file, or folder holding one, to build (as `dotnet build` takes it). "
            + "Its folder is copied onto each volume; the original is never built or changed.",
    };

    private static readonly Option<string[]> VolumeOption = new("--volume")
    {
        Description = "A folder to measure in, on the file system to measure (e.g. D:\\cow on a Dev Drive, C:\\cow on NTFS, /mnt/xfs/scratch); "
            + "created if its parent exists. Or, on Linux as root, xfs, btrfs or ext4: a fresh loop-mounted volume of that kind. "
            + "Repeat for each volume (at least one).",
        HelpName = "FOLDER|xfs|btrfs|ext4",
        Required = true,
        Arity = ArgumentArity.OneOrMore,
    };

    private static readonly Option<int> RunsOption = new("--runs")
    {
        Description = "Clean (and incremental) builds per volume and Copy task; medians and spread are taken over them.",
        DefaultValueFactory = _ => 3,
        HelpName = "N",
    };

    private static readonly Option<bool> NoIncrementalOption = new("--no-incremental")
    {
        Description = "Measure clean builds only (about half the time).",
    };

    private static readonly Option<string?> TouchOption = new("--touch")
    {
        Description = "Before each incremental build, touch this file (relative to the copied folder), e.g. a source file of a "
            + "low-level project. Default: nothing changes (a no-op build).",
        HelpName = "FILE",
    };

    private static readonly Option<string> ConfigurationOption = new("--configuration", "-c")
    {
        Description = "The build configuration.",
        DefaultValueFactory = _ => "Debug",
        HelpName = "NAME",
    };

    private static readonly Option<string?> RootOption = new("--root")
    {
        Description = "Copy this folder instead of PATH's own (e.g. the repository root, when PATH is deeper and needs files "
            + "from above it such as global.json or Directory.Build.props).",
        HelpName = "FOLDER",
    };

    private static readonly Option<string> OutOption = new("--out")
    {
        Description = "Where the report goes (measurement.md, measurement.json, chart.svg, logs/).",
        DefaultValueFactory = _ => "cow-measurement",
        HelpName = "FOLDER",
    };

    private static readonly Option<string> LoopFolderOption = new("--loop-dir")
    {
        Description = "Where fresh loop volumes (--volume xfs|btrfs|ext4) keep their sparse images and mount points.",
        DefaultValueFactory = _ => "/var/tmp/cow-measure",
        HelpName = "FOLDER",
    };

    private static readonly Option<int> LoopSizeOption = new("--loop-size")
    {
        Description = "Size of each fresh loop volume, in MiB (sparse: only what is written takes space).",
        DefaultValueFactory = _ => 6144,
        HelpName = "MIB",
    };

    private static readonly Option<string?> PackageDirOption = new("--package-dir")
    {
        Description = "Measure the Microsoft.Build.CopyOnWrite .nupkg in this folder instead of the one inside this tool.",
        HelpName = "FOLDER",
    };

    private static readonly Option<bool> KeepOption = new("--keep")
    {
        Description = "Keep each volume's copy of the tree, its package cache and loop volumes mounted, for inspection.",
    };

    public static RootCommand Create(Func<Options, System.Threading.CancellationToken, int> run)
    {
        var command = new RootCommand(
            "Measures what Microsoft.Build.CopyOnWrite saves on a repository: builds it with our Copy task and with MSBuild's own, "
            + "on each volume you name, and reports build time, time in Copy, files cloned and copied, and disk space used.")
        {
            TargetArgument, VolumeOption, RunsOption, NoIncrementalOption, TouchOption, ConfigurationOption, RootOption,
            OutOption, LoopFolderOption, LoopSizeOption, PackageDirOption, KeepOption,
        };

        TargetArgument.Validators.Add(result =>
        {
            string path = result.GetValueOrDefault<string>() ?? string.Empty;
            if (!File.Exists(path) && !Directory.Exists(path))
            {
                result.AddError($"PATH {path}: no such solution, project or folder.");
            }
        });
        VolumeOption.Validators.Add(result =>
        {
            if ((result.GetValueOrDefault<string[]>() ?? []).Any(string.IsNullOrWhiteSpace))
            {
                result.AddError("--volume needs a folder (or xfs, btrfs, ext4).");
            }
        });
        RunsOption.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<int>() < 1)
            {
                result.AddError("--runs takes a number of at least 1.");
            }
        });
        LoopSizeOption.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<int>() < 512)
            {
                result.AddError("--loop-size takes a number of MiB, at least 512.");
            }
        });
        RootOption.Validators.Add(result => RequireFolder(result, "--root"));
        PackageDirOption.Validators.Add(result => RequireFolder(result, "--package-dir"));
        command.Validators.Add(result =>
        {
            string? target = result.GetValue(TargetArgument);
            string? root = result.GetValue(RootOption);
            if (target is not null && root is not null && Directory.Exists(root)
                && Path.GetRelativePath(Path.GetFullPath(root), Path.GetFullPath(target)).StartsWith("..", StringComparison.Ordinal))
            {
                result.AddError($"PATH {target} is not inside --root {root}.");
            }
        });

        command.SetAction((result, cancellation) => System.Threading.Tasks.Task.Run(() => run(Bind(result), cancellation), System.Threading.CancellationToken.None));
        return command;
    }

    private static void RequireFolder(OptionResult result, string name)
    {
        string? folder = result.GetValueOrDefault<string?>();
        if (folder is not null && !Directory.Exists(folder))
        {
            result.AddError($"{name} {folder}: no such folder.");
        }
    }

    private static Options Bind(ParseResult result)
    {
        string target = Path.GetFullPath(result.GetValue(TargetArgument)!);
        string root = result.GetValue(RootOption) is string given
            ? Path.GetFullPath(given)
            : Directory.Exists(target) ? target : Path.GetDirectoryName(target)!;
        return new Options(
            target,
            root,
            result.GetValue(VolumeOption)!,
            result.GetValue(RunsOption),
            !result.GetValue(NoIncrementalOption),
            result.GetValue(TouchOption),
            result.GetValue(ConfigurationOption)!,
            Path.GetFullPath(result.GetValue(OutOption)!),
            Path.GetFullPath(result.GetValue(LoopFolderOption)!),
            result.GetValue(LoopSizeOption),
            result.GetValue(PackageDirOption) is string packages ? Path.GetFullPath(packages) : null,
            result.GetValue(KeepOption));
    }
}
