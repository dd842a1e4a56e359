using System;
using System.Collections.Generic;
using System.CommandLine;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;

namespace Microsoft.Build.CopyOnWrite.Measure.PackageCache;

/// <summary>
/// `dotnet cow-measure verify`: compares each file NuGet extracted with its .nupkg, read-only. Builds that link outputs
/// into the cache can change it (dotnet/msbuild#8273), and NuGet checks a package's signature, never its files.
/// </summary>
internal static class VerifyCommand
{
    /// <summary>A file of a package differs from the package's .nupkg, or a package cannot be verified.</summary>
    public const int PackagesDiffer = 5;

    public static Command Create()
    {
        var target = new Argument<string?>("PROJECT")
        {
            Description = "The project, solution (.sln, .slnx) or folder whose package folders to verify, found as `doctor` finds them: the NuGet package cache "
                + "and fallback folders MSBuild evaluates for it. Default: the current folder, unless --packages is given.",
            Arity = ArgumentArity.ZeroOrOne,
        };
        var packages = new Option<string[]>("--packages")
        {
            Description = "A package folder to verify (ID/VERSION/ID.VERSION.nupkg below it, as in ~/.nuget/packages), instead of the current folder's project's, "
                + "or besides PROJECT's when one is named. Repeat for more.",
            HelpName = "FOLDER",
        };
        var json = new Option<string?>("--json") { Description = "Also write the result as JSON to this file.", HelpName = "FILE" };
        var command = new Command("verify", "Verifies a NuGet package cache: compares every file NuGet extracted from each package with the package's own .nupkg "
            + $"(size, then CRC-32, then bytes) and names each that differs, with its number of links (a hard link into a build output is how a build damages it). "
            + $"Exit {PackagesDiffer} when a file differs or a package cannot be verified, and the folder to delete so that the next restore extracts it again. Changes nothing.")
        {
            target, packages, json,
        };
        command.SetAction((result, cancellation) => System.Threading.Tasks.Task.Run(
            () => Run(result.GetValue(target), result.GetValue(packages) ?? [], result.GetValue(json), Console.Out, Console.Error, Console.IsErrorRedirected ? null : Console.Error, cancellation),
            CancellationToken.None));
        return command;
    }

    /// <param name="named">The project, solution or folder named, or null.</param>
    /// <param name="progress">Where the progress line goes (a terminal), or null for none.</param>
    public static int Run(string? named, string[] packageFolders, string? json, TextWriter output, TextWriter error, TextWriter? progress = null, CancellationToken cancellation = default)
    {
        var folders = new List<CheckedFolder>();
        string header = "Package folders named with --packages:";
        if (named is not null || packageFolders.Length == 0)
        {
            string where = named ?? Environment.CurrentDirectory;
            if (!BuildFolders.TryFindProject(where, out string? project, out string? problem) || !BuildFolders.TryEvaluate(project!, out ProjectFolders? found, out problem))
            {
                error.WriteLine($"dotnet cow-measure verify {where}: {problem}" + (named is null ? " Or name the package folder with --packages FOLDER." : string.Empty));
                return Program.BadInput;
            }

            folders.AddRange(found!.Folders.Where(f => f.Role is FolderRole.PackageCache or FolderRole.PackageFallbackFolder));
            header = $"Package folders of {project}, as MSBuild evaluates it{(packageFolders.Length > 0 ? ", and those named with --packages" : string.Empty)}:";
        }

        folders.AddRange(packageFolders.Select(f => new CheckedFolder(FolderRole.NamedFolder, Path.TrimEndingDirectorySeparator(Path.GetFullPath(f)))));
        var verified = new List<VerifiedFolder>();
        var packages = new List<ExtractedPackage>();
        foreach (CheckedFolder folder in folders.DistinctBy(f => f.Path))
        {
            bool namedByUser = folder.Role == FolderRole.NamedFolder;
            if (!Directory.Exists(folder.Path))
            {
                if (namedByUser)
                {
                    error.WriteLine($"dotnet cow-measure verify --packages {folder.Path}: no such folder; name a NuGet package folder (`dotnet nuget locals global-packages --list` prints the package cache's).");
                    return Program.BadInput;
                }

                verified.Add(new VerifiedFolder(folder.Role, folder.Path, 0, "not there (nothing was restored into it yet): nothing to verify"));
                continue;
            }

            IReadOnlyList<ExtractedPackage> found = NuGetPackageFolder.Packages(folder.Path);
            if (found.Count == 0 && namedByUser)
            {
                string holds = Directory.EnumerateFileSystemEntries(folder.Path).Any() ? "none of its folders holds a package" : "it is empty";
                error.WriteLine($"dotnet cow-measure verify --packages {folder.Path}: not a NuGet package folder: expected {NuGetPackageFolder.ExpectedLayout}, and {holds}. "
                    + "Name the folder `dotnet nuget locals global-packages --list` prints, or a fallback folder.");
                return Program.BadInput;
            }

            verified.Add(new VerifiedFolder(folder.Role, folder.Path, found.Count, found.Count == 0 ? "no package in it: nothing to verify" : null));
            packages.AddRange(found);
        }

        CacheVerification result;
        try
        {
            using VerifyProgress? line = progress is null ? null : new VerifyProgress(progress, packages.Count);
            result = PackageVerifier.Verify(packages, line, cancellation);
        }
        catch (OperationCanceledException)
        {
            error.WriteLine("dotnet cow-measure verify: cancelled; nothing was changed.");
            return Program.MeasurementFailed;
        }

        output.WriteLine(header);
        output.Write(VerifyReport.Text(verified, result));
        if (json is not null)
        {
            try
            {
                File.WriteAllText(Path.GetFullPath(json), VerifyReport.Json(verified, result));
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                error.WriteLine($"dotnet cow-measure verify --json {json}: cannot write it ({e.Message}); name a file in a folder you can write to.");
                return Program.BadInput;
            }
        }

        return result.Intact ? 0 : PackagesDiffer;
    }
}
