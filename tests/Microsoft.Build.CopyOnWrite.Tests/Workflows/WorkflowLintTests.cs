using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Workflows;

/// <summary>
/// The GitHub workflows are written here and run only where this repository's CI has no runner (Windows): the first
/// real run must not die of a typo. Each is checked against GitHub's workflow schema by action-validator
/// (@action-validator/cli from the npm registry, the version pinned below), and the validator is shown to catch a typo.
/// </summary>
[TestClass]
public sealed class WorkflowLintTests
{
    private const string Validator = "@action-validator/cli@0.6.0";

    private static readonly Lazy<string?> ValidatorPath = new(Install);

    private static string WorkflowFolder => Path.Combine(RepositoryLayout.Root, ".github", "workflows");

    [TestMethod]
    public void Every_workflow_is_valid_for_GitHub_Actions()
    {
        string validator = RequireValidator();
        string[] workflows = Directory.GetFiles(WorkflowFolder, "*.yml");
        Assert.IsTrue(workflows.Length > 0, $"no workflow in {WorkflowFolder}");

        foreach (string workflow in workflows)
        {
            ProcessResult check = ProcessRunner.Run(validator, [workflow], timeout: TimeSpan.FromMinutes(1));
            Assert.IsTrue(check.Succeeded, $"{Path.GetFileName(workflow)} is not a valid workflow:\n{check.Output}");
        }
    }

    [TestMethod]
    public void The_validator_catches_a_mistyped_key_in_our_workflow()
    {
        string validator = RequireValidator();
        string workflow = Directory.GetFiles(WorkflowFolder, "*.yml").First();
        string mistyped = Path.Combine(TestScratch.NewFolder("workflow"), "mistyped.yml");
        string text = File.ReadAllText(workflow);
        Assert.IsTrue(text.Contains("runs-on:", StringComparison.Ordinal), "the workflow names its runner");
        File.WriteAllText(mistyped, text.Replace("runs-on:", "runs-onn:", StringComparison.Ordinal));

        ProcessResult check = ProcessRunner.Run(validator, [mistyped], timeout: TimeSpan.FromMinutes(1));

        Assert.IsFalse(check.Succeeded, "a job without runs-on must be refused:\n" + check.Output);
        StringAssert.Contains(check.Output, "runs-onn");
    }

    private static string RequireValidator()
    {
        string? path = ValidatorPath.Value;
        if (path is null)
        {
            Assert.Inconclusive($"SKIPPED: checking the workflows needs node and npm (apt-get install nodejs npm) to install {Validator}; see the test output");
        }

        return path!;
    }

    /// <summary>Installs the pinned validator into the test run's scratch folder; null when npm is missing or fails (said on the console).</summary>
    private static string? Install()
    {
        string prefix = TestScratch.NewFolder("action-validator");
        ProcessResult install;
        try
        {
            install = ProcessRunner.Run("npm", ["install", "--no-audit", "--no-fund", "--prefix", prefix, Validator], timeout: TimeSpan.FromMinutes(5));
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            Console.WriteLine($"npm is not installed: {e.Message}");
            return null;
        }

        string path = Path.Combine(prefix, "node_modules", ".bin", "action-validator");
        if (!install.Succeeded || !File.Exists(path))
        {
            Console.WriteLine($"npm could not install {Validator}:\n{install.Output}");
            return null;
        }

        return path;
    }
}
