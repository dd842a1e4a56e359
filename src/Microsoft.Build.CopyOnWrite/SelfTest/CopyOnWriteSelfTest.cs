using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite.SelfTest;

/// <summary>
/// The self-test as an MSBuild task (`-t:CopyOnWriteDoctor -p:CopyOnWriteDoctorSelfTest=true`, Sdk/Sdk.targets): the
/// real engine and Copy task of this MSBuild process, on each volume the build writes to. Its report is the doctor's
/// warning (COW007, so that the terminal logger shows it); a failed check is error COW009.
/// </summary>
public sealed class CopyOnWriteSelfTest : Microsoft.Build.Utilities.Task, ICancelableTask
{
    /// <summary>Error: a self-test check failed; the message says whether an output differed from its source.</summary>
    public const string FailedCode = "COW009";

    private readonly CancellationTokenSource _cancellation = new();

    /// <summary>Folders the build writes to (the intermediate output folder, the package cache); the temp folder is added. One per volume is tested.</summary>
    [Required]
    public ITaskItem[] Folders { get; set; } = [];

    public string? JsonFile { get; set; }

    public string? MarkdownFile { get; set; }

    public void Cancel() => _cancellation.Cancel();

    public override bool Execute()
    {
        IReadOnlyList<string> folders = SelfTestRunner.OnePerVolume(Folders.Select(item => Path.GetFullPath(item.ItemSpec)).Append(Path.GetTempPath()));
        var runner = new SelfTestRunner(CloneEngines.Current, line => Log.LogMessage(MessageImportance.Normal, "{0}", line));
        SelfTestReport report = runner.Run(folders, _cancellation.Token);
        Log.LogWarning(subcategory: null, warningCode: Doctor.CopyOnWriteDoctor.ReportCode, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0,
            message: "{0}", string.Join("\n", report.Lines()));
        Write(JsonFile, report.Json(), "CopyOnWriteDoctorSelfTestJson");
        Write(MarkdownFile, report.Markdown(), "CopyOnWriteDoctorSelfTestMarkdown");
        if (!report.Passed)
        {
            Log.LogError(subcategory: null, errorCode: FailedCode, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0, message: "{0}",
                report.AnyMismatch
                    ? "CopyOnWrite self-test: an output differed from its source (MISMATCH above). Build with -p:DisableCopyOnWrite=true until it is fixed, and please report it with the markdown block (-p:CopyOnWriteDoctorSelfTestMarkdown=selftest.md)."
                    : "CopyOnWrite self-test: a check failed (FAILED above); no output differed from its source. Please report it with the markdown block (-p:CopyOnWriteDoctorSelfTestMarkdown=selftest.md).");
        }

        return !Log.HasLoggedErrors;
    }

    private void Write(string? file, string text, string property)
    {
        if (string.IsNullOrEmpty(file))
        {
            return;
        }

        try
        {
            File.WriteAllText(file, text);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Log.LogError($"CopyOnWrite self-test: cannot write {file} ({property}): {e.Message} Name a file in a folder that exists and that you can write to.");
        }
    }
}
