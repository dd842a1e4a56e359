using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Measure.SelfTest;

namespace Microsoft.Build.CopyOnWrite.Measure.Doctor;

/// <summary>
/// `doctor --selftest`: the self-test (../SelfTest) on the folders the check found a build writes to, one per volume,
/// with the engine and Copy task of the task assembly this tool references, the one its SDK package carries.
/// </summary>
internal static class SelfTestDoor
{
    /// <summary>Prints the report; returns 0, 1 (a check failed or a file could not be written) or <see cref="DoctorCommand.SelfTestMismatch"/>.</summary>
    public static int Run(DoctorCheck check, string? jsonFile, string? markdownFile, TextWriter output, TextWriter error, CancellationToken cancellation)
    {
        IEnumerable<string> buildFolders = check.Folders
            .Where(found => found.Folder.Role is FolderRole.IntermediateOutput or FolderRole.BuildOutput or FolderRole.PackageCache or FolderRole.NamedFolder)
            .OrderBy(found => found.Folder.Role == FolderRole.IntermediateOutput ? 0 : 1)
            .Select(found => found.Folder.Path);
        output.WriteLine();
        output.WriteLine($"Self-test in {string.Join(", ", buildFolders)} and the temp folder (one folder per volume), every output compared with its source:");
        SelfTestReport report;
        try
        {
            MSBuildTexts.FromInstalledSdk();
            IReadOnlyList<string> folders = SelfTestRunner.OnePerVolume(buildFolders.Append(Path.GetTempPath()));
            report = new SelfTestRunner(CloneEngines.Current, output.WriteLine).Run(folders, cancellation);
        }
        catch (OperationCanceledException)
        {
            error.WriteLine("dotnet cow-measure doctor --selftest: cancelled; the self-test's files are removed and the processes it started have ended.");
            return Program.MeasurementFailed;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            error.WriteLine($"dotnet cow-measure doctor --selftest: {e.Message}");
            return Program.BadInput;
        }

        output.WriteLine();
        foreach (string line in report.Lines())
        {
            output.WriteLine(line);
        }

        foreach ((string? file, string text, string option) in new[] { (jsonFile, report.Json(), "--selftest-json"), (markdownFile, report.Markdown(), "--selftest-markdown") })
        {
            try
            {
                if (file is not null)
                {
                    File.WriteAllText(Path.GetFullPath(file), text);
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                error.WriteLine($"dotnet cow-measure doctor {option} {file}: cannot write it ({e.Message}); name a file in a folder you can write to.");
                return Program.BadInput;
            }
        }

        return report.ExitCode;
    }
}
