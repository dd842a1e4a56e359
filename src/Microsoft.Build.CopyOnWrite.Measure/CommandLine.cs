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
internal sealed class CommandLine
{
    private readonly Argument<string> _target = new("PATH")
    {
        Description = "The solution (.sln, .slnx), project file, or folder holding one, to build (as `dotnet build` takes it). "
            + "Its folder is copied onto each volume; the original is never built or changed.",
    };

    private readonly Option<string[]> _volume = new("--volume")
    {
        Description = "A folder to measure in, on the file system to measure (e.g. D:\\cow on a Dev Drive, C:\\cow on NTFS, /mnt/xfs/scratch); "
            + "created if its parent exists. Or, on Linux as root, xfs, btrfs or ext4: a fresh loop-mounted volume of that kind. "
            + "Repeat for each volume (at least one).",
        HelpName = "FOLDER|xfs|btrfs|ext4",
        Required = true,
        Arity = ArgumentArity.OneOrMore,
    };

    private readonly Option<int> _runs = new("--runs")
    {
        Description = "Clean (and incremental) builds per volume and Copy task; medians and spread are taken over them.",
        DefaultValueFactory = _ => 3,
        HelpName = "N",
    };

    private readonly Option<bool> _noIncremental = new("--no-incremental")
    {
        Description = "Measure clean builds only (about half the time).",
    };

    private readonly Option<string?> _touch = new("--touch")
    {
        Description = "Before each incremental build, touch this file (relative to the copied folder), e.g. a source file of a "
            + "low-level project. Default: nothing changes (a no-op build).",
        HelpName = "FILE",
    };

    private readonly Option<string> _configuration = new("--configuration", "-c")
    {
        Description = "The build configuration.",
        DefaultValueFactory = _ => "Debug",
        HelpName = "NAME",
    };

    private readonly Option<string?> _root = new("--root")
    {
        Description = "Copy this folder instead of PATH's own (e.g. the repository root, when PATH is deeper and needs files "
            + "from above it such as global.json or Directory.Build.props).",
        HelpName = "FOLDER",
    };

    private readonly Option<string> _out = new("--out")
    {
        Description = "Where the report goes (measurement.md, measurement.json, chart.svg, logs/).",
        DefaultValueFactory = _ => "cow-measurement",
        HelpName = "FOLDER",
    };

    private readonly Option<string> _loopFolder = new("--loop-dir")
    {
        Description = "Where fresh loop volumes (--volume xfs|btrfs|ext4) keep their sparse images and mount points.",
        DefaultValueFactory = _ => "/var/tmp/cow-measure",
        HelpName = "FOLDER",
    };

    private readonly Option<int> _loopSize = new("--loop-size")
    {
        Description = "Size of each fresh loop volume, in MiB (sparse: only what is written takes space).",
        DefaultValueFactory = _ => 6144,
        HelpName = "MIB",
    };

    private readonly Option<string?> _packageDir = new("--package-dir")
    {
        Description = "Measure the Microsoft.Build.CopyOnWrite .nupkg in this folder instead of the one inside this tool.",
        HelpName = "FOLDER",
    };

    private readonly Option<bool> _keep = new("--keep")
    {
        Description = "Keep each volume's copy of the tree, its package cache and loop volumes mounted, for inspection.",
    };

    private CommandLine()
    {
    }

    /// <summary>The commands besides measuring, by name.</summary>
    public static (string Name, Func<Command> Create)[] Subcommands => [("predict", Forecast.PredictCommand.Create), ("doctor", Doctor.DoctorCommand.Create), ("verify", PackageCache.VerifyCommand.Create)];

    /// <summary>
    /// The command to parse <paramref name="args"/> with. A subcommand gets a root of its own: under the measuring
    /// root its usage line and help would show the root's PATH argument, which the subcommand does not take.
    /// </summary>
    public static RootCommand For(string[] args, Func<Options, System.Threading.CancellationToken, int> run)
    {
        RootCommand measuring = Create(run);
        return args.Length > 0 && Subcommands.FirstOrDefault(s => s.Name == args[0]).Create is { } subcommand
            ? new RootCommand(measuring.Description ?? string.Empty) { subcommand() }
            : measuring;
    }

    /// <summary>The command, which calls <paramref name="run"/> with the checked options.</summary>
    public static RootCommand Create(Func<Options, System.Threading.CancellationToken, int> run) => new CommandLine().Build(run);

    private RootCommand Build(Func<Options, System.Threading.CancellationToken, int> run)
    {
        var command = new RootCommand(
            "Measures what Microsoft.Build.CopyOnWrite saves on a repository: builds it with our Copy task and with MSBuild's own, "
            + "on each volume you name, and reports build time, time in Copy, files cloned and copied, and disk space used.")
        {
            _target, _volume, _runs, _noIncremental, _touch, _configuration, _root,
            _out, _loopFolder, _loopSize, _packageDir, _keep,
        };
        foreach ((string _, Func<Command> create) in Subcommands)
        {
            command.Subcommands.Add(create());
        }

        _target.Validators.Add(result =>
        {
            string path = result.GetValueOrDefault<string>() ?? string.Empty;
            if (!File.Exists(path) && !Directory.Exists(path))
            {
                result.AddError($"PATH {path}: no such solution, project or folder.");
            }
            else if (!Directory.Exists(path) && !FileAsFound.Of(Path.GetFullPath(path)).Regular)
            {
                result.AddError($"PATH {path}: not a regular file (a FIFO, a device...); name a solution, a project or a folder.");
            }
        });
        _volume.Validators.Add(result =>
        {
            if ((result.GetValueOrDefault<string[]>() ?? []).Any(string.IsNullOrWhiteSpace))
            {
                result.AddError("--volume needs a folder (or xfs, btrfs, ext4).");
            }
        });
        _runs.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<int>() < 1)
            {
                result.AddError("--runs takes a number of at least 1.");
            }
        });
        _loopSize.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<int>() < 512)
            {
                result.AddError("--loop-size takes a number of MiB, at least 512.");
            }
        });
        _root.Validators.Add(result => RequireFolder(result, "--root"));
        _packageDir.Validators.Add(result => RequireFolder(result, "--package-dir"));
        command.Validators.Add(result =>
        {
            string? target = result.GetValue(_target);
            string? root = result.GetValue(_root);
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

    private Options Bind(ParseResult result)
    {
        string target = Path.GetFullPath(result.GetValue(_target)!);
        string root = result.GetValue(_root) is string given
            ? Path.GetFullPath(given)
            : Directory.Exists(target) ? target : Path.GetDirectoryName(target)!;
        return new Options(
            target,
            root,
            result.GetValue(_volume)!,
            result.GetValue(_runs),
            !result.GetValue(_noIncremental),
            result.GetValue(_touch),
            result.GetValue(_configuration)!,
            Path.GetFullPath(result.GetValue(_out)!),
            Path.GetFullPath(result.GetValue(_loopFolder)!),
            result.GetValue(_loopSize),
            result.GetValue(_packageDir) is string packages ? Path.GetFullPath(packages) : null,
            result.GetValue(_keep));
    }
}
