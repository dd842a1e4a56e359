using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Measure;

internal sealed class Options
{
    public const string Usage = """
        Measures what Microsoft.Build.CopyOnWrite saves on a repository.

        Usage: dotnet run -c Release --project src/Microsoft.Build.CopyOnWrite.Measure -- PATH [options]

          PATH                   A .sln/.slnx/project file, or a folder holding one (as `dotnet build` takes).
                                 Its folder tree (or, for a file, the folder of the file) is copied; the
                                 original is never built or changed.
          --root DIR             Copy this folder instead (e.g. the repository root, when PATH is deeper and
                                 needs files from above it such as global.json or Directory.Build.props).
          --runs N               Clean and incremental builds per volume and variant (default 3).
          --volume KIND          xfs, btrfs, ext4 (fresh loop-mounted file systems; needs root) or here (a
                                 folder on the file system of --work). Repeat or comma-separate; default: here.
          --volume-size MIB      Size of each loop image (default 6144; sparse).
          --touch FILE           Before each incremental build, touch this file (relative to the copied root),
                                 e.g. a source file of a low-level project. Default: no change (a no-op build).
          --configuration NAME   Build configuration (default Debug).
          --out DIR              Where the report goes (default ./copy-on-write-measurement).
          --work DIR             Scratch folder (default /var/tmp/cow-measure).
          --package-dir DIR      Use the Microsoft.Build.CopyOnWrite .nupkg in DIR instead of packing this repository.
          --keep                 Keep the volumes and workspaces (for inspection).

        Each variant is built with `dotnet build` in a fresh MSBuild process: "copy-on-write" with our SDK,
        "stock" with -p:DisableCopyOnWrite=true (MSBuild's own Copy task).
        """;

    public string Target { get; private set; } = string.Empty;
    public string? Root { get; private set; }
    public int Runs { get; private set; } = 3;
    public List<string> Volumes { get; } = new();
    public int VolumeSizeMiB { get; private set; } = 6144;
    public string? Touch { get; private set; }
    public string Configuration { get; private set; } = "Debug";
    public string Out { get; private set; } = Path.GetFullPath("copy-on-write-measurement");
    public string Work { get; private set; } = "/var/tmp/cow-measure";
    public string? PackageDir { get; private set; }
    public bool Keep { get; private set; }
    public bool HelpRequested { get; private set; }

    public static Options Parse(string[] args)
    {
        var options = new Options();
        for (int i = 0; i < args.Length; i++)
        {
            string arg = args[i];
            string Next() => i + 1 < args.Length ? args[++i] : throw new MeasureException($"{arg} needs a value.\n\n{Usage}");
            switch (arg)
            {
                case "-h" or "--help" or "-?":
                    options.HelpRequested = true;
                    return options;
                case "--runs":
                    options.Runs = int.TryParse(Next(), out int runs) && runs > 0 ? runs : throw new MeasureException("--runs takes a positive number.");
                    break;
                case "--volume":
                    options.Volumes.AddRange(Next().Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(v => v.ToLowerInvariant()));
                    break;
                case "--volume-size":
                    options.VolumeSizeMiB = int.TryParse(Next(), out int size) && size >= 512 ? size : throw new MeasureException("--volume-size takes a number of MiB, at least 512.");
                    break;
                case "--touch":
                    options.Touch = Next();
                    break;
                case "--configuration" or "-c":
                    options.Configuration = Next();
                    break;
                case "--root":
                    options.Root = Path.GetFullPath(Next());
                    break;
                case "--out":
                    options.Out = Path.GetFullPath(Next());
                    break;
                case "--work":
                    options.Work = Path.GetFullPath(Next());
                    break;
                case "--package-dir":
                    options.PackageDir = Path.GetFullPath(Next());
                    break;
                case "--keep":
                    options.Keep = true;
                    break;
                default:
                    if (arg.StartsWith('-') || options.Target.Length > 0)
                    {
                        throw new MeasureException($"Unknown argument '{arg}'.\n\n{Usage}");
                    }

                    options.Target = Path.GetFullPath(arg);
                    break;
            }
        }

        if (options.Target.Length == 0)
        {
            throw new MeasureException(Usage);
        }

        if (!File.Exists(options.Target) && !Directory.Exists(options.Target))
        {
            throw new MeasureException($"{options.Target} does not exist.");
        }

        if (options.Volumes.Count == 0)
        {
            options.Volumes.Add("here");
        }

        foreach (string volume in options.Volumes)
        {
            if (volume is not ("xfs" or "btrfs" or "ext4" or "here"))
            {
                throw new MeasureException($"Unknown volume kind '{volume}': use xfs, btrfs, ext4 or here.");
            }
        }

        options.Root ??= Directory.Exists(options.Target) ? options.Target : Path.GetDirectoryName(options.Target)!;
        string relative = Path.GetRelativePath(options.Root, options.Target);
        if (relative.StartsWith("..", StringComparison.Ordinal))
        {
            throw new MeasureException($"{options.Target} is not inside --root {options.Root}.");
        }

        return options;
    }

    /// <summary>The build target relative to the copied root ("." for the root folder itself).</summary>
    public string RelativeTarget => Path.GetRelativePath(Root!, Target);
}
