using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite.Doctor;

/// <summary>
/// The doctor as an MSBuild task (target CopyOnWriteDoctor in Sdk/Sdk.targets): the project hands in its properties
/// as MSBuild evaluated them, <see cref="ProjectFolders"/> finds the folders in them as `dotnet cow-measure doctor`
/// does, and the check is the same (<see cref="DoctorCheck"/>).
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

    // The project's properties as MSBuild evaluated them, each handed in as it is; what they mean is ProjectFolders'
    // rule, which the tool follows too. Sdk.targets passes one parameter per name of ProjectFolders.PropertyNames.
    public string? MSBuildProjectFullPath { get; set; }
    public string? DirectoryBuildPropsPath { get; set; }
    public string? CopyOnWriteDoctorRepository { get; set; }
    public string? OutDir { get; set; }
    public string? IntermediateOutputPath { get; set; }

    /// <summary>NuGet's _OutputPackagesPath (its _GetRestoreSettings target): the package cache its configuration names.</summary>
    public string? NuGetConfiguredPackagesPath { get; set; }

    /// <summary>NuGet's _OutputFallbackFolders (its _GetRestoreSettings target).</summary>
    public string? NuGetConfiguredFallbackFolders { get; set; }
    public string? NuGetPackageRoot { get; set; }
    public string? NuGetPackageFolders { get; set; }
    public string? NetCoreRoot { get; set; }
    public string? DotnetHostPath { get; set; }
    public string? CopyOnWriteDoctorCopiesFrom { get; set; }
    public string? ProjectAssetsFile { get; set; }
    public string? CopyOnWriteAcceptCopiesFrom { get; set; }

    public string? CopyOnWriteInsteadOfLinks { get; set; }
    public string? CreateHardLinksForCopyLocalIfPossible { get; set; }
    public string? CreateHardLinksForCopyFilesToOutputDirectoryIfPossible { get; set; }
    public string? CreateHardLinksForAdditionalFilesIfPossible { get; set; }
    public string? CreateHardLinksForCopyAdditionalFilesIfPossible { get; set; }
    public string? CreateHardLinksForPublishFilesIfPossible { get; set; }
    public string? CreateSymbolicLinksForCopyLocalIfPossible { get; set; }
    public string? CreateSymbolicLinksForCopyFilesToOutputDirectoryIfPossible { get; set; }
    public string? CreateSymbolicLinksForAdditionalFilesIfPossible { get; set; }
    public string? CreateSymbolicLinksForCopyAdditionalFilesIfPossible { get; set; }
    public string? CreateSymbolicLinksForPublishFilesIfPossible { get; set; }

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
        ProjectFolders project = ProjectFolders.From(name => name switch
        {
            "MSBuildProjectFullPath" => MSBuildProjectFullPath,
            "DirectoryBuildPropsPath" => DirectoryBuildPropsPath,
            "CopyOnWriteDoctorRepository" => CopyOnWriteDoctorRepository,
            "OutDir" => OutDir,
            "IntermediateOutputPath" => IntermediateOutputPath,
            "_OutputPackagesPath" => NuGetConfiguredPackagesPath,
            "_OutputFallbackFolders" => NuGetConfiguredFallbackFolders,
            "NuGetPackageRoot" => NuGetPackageRoot,
            "NuGetPackageFolders" => NuGetPackageFolders,
            "NetCoreRoot" => NetCoreRoot,
            "DOTNET_HOST_PATH" => DotnetHostPath,
            "CopyOnWriteDoctorCopiesFrom" => CopyOnWriteDoctorCopiesFrom,
            "ProjectAssetsFile" => ProjectAssetsFile,
            "CopyOnWriteAcceptCopiesFrom" => CopyOnWriteAcceptCopiesFrom,
            "NUGET_FALLBACK_PACKAGES" => FallbackPackagesEnvironment,
            "CopyOnWriteInsteadOfLinks" => CopyOnWriteInsteadOfLinks,
            "CreateHardLinksForCopyLocalIfPossible" => CreateHardLinksForCopyLocalIfPossible,
            "CreateHardLinksForCopyFilesToOutputDirectoryIfPossible" => CreateHardLinksForCopyFilesToOutputDirectoryIfPossible,
            "CreateHardLinksForAdditionalFilesIfPossible" => CreateHardLinksForAdditionalFilesIfPossible,
            "CreateHardLinksForCopyAdditionalFilesIfPossible" => CreateHardLinksForCopyAdditionalFilesIfPossible,
            "CreateHardLinksForPublishFilesIfPossible" => CreateHardLinksForPublishFilesIfPossible,
            "CreateSymbolicLinksForCopyLocalIfPossible" => CreateSymbolicLinksForCopyLocalIfPossible,
            "CreateSymbolicLinksForCopyFilesToOutputDirectoryIfPossible" => CreateSymbolicLinksForCopyFilesToOutputDirectoryIfPossible,
            "CreateSymbolicLinksForAdditionalFilesIfPossible" => CreateSymbolicLinksForAdditionalFilesIfPossible,
            "CreateSymbolicLinksForCopyAdditionalFilesIfPossible" => CreateSymbolicLinksForCopyAdditionalFilesIfPossible,
            "CreateSymbolicLinksForPublishFilesIfPossible" => CreateSymbolicLinksForPublishFilesIfPossible,
            _ => throw new ArgumentException($"CopyOnWriteDoctor takes no property {name}; add a parameter for it and pass it in Sdk.targets.", nameof(name)),
        });
        DoctorCheck check = DoctorCheck.Run(project.Folders, VolumeCatalog.Fresh(), AdviceOSes.ThisProcess, project.Facts);
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
