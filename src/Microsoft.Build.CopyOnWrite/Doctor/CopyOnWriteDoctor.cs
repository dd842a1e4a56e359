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

    /// <summary>
    /// The project's properties as MSBuild evaluated them, one item per name of <see cref="ProjectFolders.PropertyNames"/>
    /// (the name, its value in metadata Value), handed in as they are: what they mean is ProjectFolders' rule, which the
    /// tool follows too.
    /// </summary>
    [Required]
    public ITaskItem[] Properties { get; set; } = [];

    /// <summary>Fail (COW005) when the repository cannot clone what it builds.</summary>
    public bool RequireClone { get; set; }

    /// <summary>Where to write the check as JSON (optional).</summary>
    public string? JsonFile { get; set; }

    /// <summary>Whether the repository clones what it builds.</summary>
    [Output]
    public bool RepositoryClones { get; set; }

    public override bool Execute()
    {
        var values = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (ITaskItem property in Properties)
        {
            values[property.ItemSpec] = property.GetMetadata("Value");
        }

        if (ProjectFolders.PropertyNames.FirstOrDefault(name => !values.ContainsKey(name)) is string missing)
        {
            Log.LogError($"CopyOnWriteDoctor: the property {missing} was not handed in; Sdk.targets passes every name of ProjectFolders.PropertyNames as an item of Properties.");
            return false;
        }

        ProjectFolders project = ProjectFolders.From(name => values[name]);
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
