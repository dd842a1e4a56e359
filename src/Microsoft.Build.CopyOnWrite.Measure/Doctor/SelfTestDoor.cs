using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Reflection;
using System.Runtime.Loader;
using Microsoft.Build.CopyOnWrite.Doctor;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// `doctor --selftest`: the self-test of the SDK's own assembly (src/Microsoft.Build.CopyOnWrite/SelfTest), taken from
/// the SDK package this tool carries (sdk/ beside it) and loaded into this process, so that what runs is the engine and
/// Copy task a build runs, not a copy compiled into the tool.
/// </summary>
internal static class SelfTestDoor
{
    private const string TaskAssemblyEntry = "tools/net8.0/Microsoft.Build.CopyOnWrite.dll";

    /// <summary>The folders a build writes to (outputs, package cache; the temp folder is added), one per volume.</summary>
    public static int Run(DoctorCheck check, string? jsonFile, string? markdownFile, TextWriter output, TextWriter error, System.Threading.CancellationToken cancellation)
    {
        string[] folders = check.Folders
            .Where(found => found.Folder.Role is FolderRole.IntermediateOutput or FolderRole.BuildOutput or FolderRole.PackageCache or FolderRole.NamedFolder)
            .OrderBy(found => found.Folder.Role == FolderRole.IntermediateOutput ? 0 : 1)
            .Select(found => found.Folder.Path)
            .ToArray();
        MethodInfo run;
        try
        {
            Assembly sdk = AssemblyLoadContext.Default.LoadFromAssemblyPath(ExtractTaskAssembly());
            run = sdk.GetType("Microsoft.Build.CopyOnWrite.SelfTest.SelfTestRunner", throwOnError: true)!
                .GetMethod("RunForTool", BindingFlags.NonPublic | BindingFlags.Static)
                ?? throw new MissingMethodException("SelfTestRunner.RunForTool");
        }
        catch (Exception e) when (e is MeasureException or IOException or InvalidDataException or TypeLoadException or MissingMethodException or BadImageFormatException)
        {
            error.WriteLine($"dotnet-cow-measure: doctor --selftest: cannot load the SDK's self-test from this tool's package ({e.Message}); reinstall the tool.");
            return Program.BadInput;
        }

        output.WriteLine();
        output.WriteLine($"Self-test in {string.Join(", ", folders)} and the temp folder (one folder per volume), every output compared with its source:");
        try
        {
            return (int)run.Invoke(null, [folders, output, Full(jsonFile), Full(markdownFile), cancellation])!;
        }
        catch (TargetInvocationException e) when (e.InnerException is OperationCanceledException)
        {
            error.WriteLine("dotnet-cow-measure: doctor --selftest: cancelled; the self-test's files are removed and the processes it started have ended.");
            return Program.MeasurementFailed;
        }
        catch (TargetInvocationException e) when (e.InnerException is IOException or UnauthorizedAccessException)
        {
            error.WriteLine($"dotnet-cow-measure: doctor --selftest: {e.InnerException.Message}");
            return Program.BadInput;
        }
    }

    private static string? Full(string? path) => path is null ? null : Path.GetFullPath(path);

    /// <summary>
    /// The package's IL task assembly, extracted once per package into the temp folder: named by the package's bytes, not
    /// only its version, so that a package rebuilt with the same version (a local build) is never run from an older copy.
    /// </summary>
    private static string ExtractTaskAssembly()
    {
        (string folder, string version) = Measurement.FindPackage(packageDir: null);
        string packagePath = Path.Combine(folder, $"Microsoft.Build.CopyOnWrite.{version}.nupkg");
        string contentHash;
        using (FileStream bytes = File.OpenRead(packagePath))
        {
            contentHash = Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(bytes))[..12].ToLowerInvariant();
        }

        string target = Path.Combine(Path.GetTempPath(), $"cow-measure-selftest-{version}-{contentHash}", "Microsoft.Build.CopyOnWrite.dll");
        if (!File.Exists(target))
        {
            using ZipArchive package = ZipFile.OpenRead(packagePath);
            ZipArchiveEntry entry = package.GetEntry(TaskAssemblyEntry) ?? throw new InvalidDataException($"the package has no {TaskAssemblyEntry}");
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            string partial = target + "." + Environment.ProcessId + ".tmp";
            entry.ExtractToFile(partial, overwrite: true);
            File.Move(partial, target, overwrite: true);
        }

        return target;
    }
}
