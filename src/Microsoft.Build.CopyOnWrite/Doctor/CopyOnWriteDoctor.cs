using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite.Doctor;

/// <summary>
/// The doctor as an MSBuild task (target CopyOnWriteDoctor in Sdk/Sdk.targets): the project hands in its folders
/// (repository, outputs, NuGet's package folders, the .NET installation) as MSBuild resolved them; the temp folder
/// is added here. The same check as `dotnet cow-measure doctor` (<see cref="DoctorCheck"/>).
/// </summary>
public sealed class CopyOnWriteDoctor : Microsoft.Build.Utilities.Task
{
    /// <summary>Error: CopyOnWriteDoctorRequireClone=true and the repository cannot clone what it builds.</summary>
    public const string CannotCloneCode = "COW005";

    /// <summary>
    /// Warning: the doctor's report. A warning, not messages: the terminal logger shows no message at its default
    /// verbosity, and a report asked for must print there too (Sdk.targets keeps it from becoming an error).
    /// </summary>
    public const string ReportCode = "COW007";

    /// <summary>The folders to check, each with metadata Role: Repository, BuildOutput, IntermediateOutput, PackageCache, PackageFallbackFolder, DotnetInstallation.</summary>
    [Required]
    public ITaskItem[] Folders { get; set; } = [];

    /// <summary>The project's ProjectAssetsFile (restore's result), read for the packages a build copies; the repository is searched for more.</summary>
    public string? ProjectAssetsFile { get; set; }

    /// <summary>The project's CopyOnWriteAcceptCopiesFrom, as the build reads it: copies from there pass Required.</summary>
    public string? AcceptCopiesFrom { get; set; }

    /// <summary>NUGET_FALLBACK_PACKAGES, as the build reads it: copies from there pass Required.</summary>
    public string? FallbackPackagesEnvironment { get; set; }

    /// <summary>Fail (COW005) when the repository cannot clone what it builds.</summary>
    public bool RequireClone { get; set; }

    /// <summary>Where to write the check as JSON (optional).</summary>
    public string? JsonFile { get; set; }

    /// <summary>Whether the repository clones what it builds.</summary>
    [Output]
    public bool RepositoryClones { get; set; }

    public override bool Execute()
    {
        var folders = new List<CheckedFolder>();
        foreach (ITaskItem item in Folders)
        {
            string role = item.GetMetadata("Role");
            if (!Enum.TryParse(role, ignoreCase: true, out FolderRole parsed))
            {
                Log.LogError($"CopyOnWriteDoctor: the folder {item.ItemSpec} has Role \"{role}\"; use one of {string.Join(", ", Enum.GetNames(typeof(FolderRole)))}.");
                return false;
            }

            folders.Add(new CheckedFolder(parsed, Path.GetFullPath(item.ItemSpec)));
        }

        folders.Add(new CheckedFolder(FolderRole.TempFolder, Path.GetTempPath()));
        var facts = new BuildFacts(
            string.IsNullOrEmpty(ProjectAssetsFile) ? [] : [ProjectAssetsFile!],
            BuildFacts.FullPaths(AcceptCopiesFrom),
            BuildFacts.FullPaths(FallbackPackagesEnvironment));
        DoctorCheck check = DoctorCheck.Run(folders, VolumeCatalog.Fresh(), AdviceOSes.ThisProcess, facts);
        Log.LogWarning(subcategory: null, warningCode: ReportCode, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0,
            message: "{0}", string.Join("\n", DoctorReport.Lines(check)));

        if (!string.IsNullOrEmpty(JsonFile))
        {
            try
            {
                File.WriteAllText(JsonFile, DoctorReport.Json(check));
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                Log.LogError($"CopyOnWriteDoctor: cannot write the check to {JsonFile} (CopyOnWriteDoctorJson): {e.Message} Name a file in a folder that exists and that you can write to.");
            }
        }

        RepositoryClones = check.RepositoryClones;
        if (RequireClone && !check.RepositoryClones)
        {
            Finding? why = check.Findings.FirstOrDefault(f => f.Severity == Severity.Error);
            Log.LogError(subcategory: null, errorCode: CannotCloneCode, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0,
                message: "{0}", $"CopyOnWrite: this repository cannot clone what it builds, and CopyOnWriteDoctorRequireClone is true. {why?.Message ?? "Whether its volume clones could not be told."} The doctor's findings above say what to type.");
        }

        return !Log.HasLoggedErrors;
    }
}
