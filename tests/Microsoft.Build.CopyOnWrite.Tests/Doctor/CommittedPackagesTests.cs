using System;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Doctor;

/// <summary>
/// What a fresh clone (CI) of a repository that adopted the SDK meets, as the doctor tells it: real git repositories,
/// real ignore files and NuGet.config files, our package files by name in a package folder. Each fix the doctor
/// prints is typed as printed, and then nothing is left to tell.
/// </summary>
[TestClass]
public sealed class CommittedPackagesTests
{
    /// <summary>What `dotnet new gitignore` writes for package folders, and the line many repositories have of their own.</summary>
    private const string StandardIgnoreLines = "*.nupkg\n**/[Pp]ackages/*\npackages\n";

    private static readonly string[] OurPackageFiles = ["Microsoft.Build.CopyOnWrite.2.0.0.nupkg", "Microsoft.Build.CopyOnWrite.Measure.2.0.0.nupkg"];

    [TestMethod]
    public void A_package_folder_the_ignore_file_keeps_out_of_git_add_is_named_with_its_rule_and_the_printed_lines_commit_it()
    {
        string repository = Repository(StandardIgnoreLines);
        Commit(repository);

        CommittedPackages found = Read(repository);

        PackageFolder folder = found.Folders.Single();
        Assert.AreEqual(GitHolds.Ignored, folder.Git);
        StringAssert.StartsWith(folder.IgnoredBy, ".gitignore:", "the rule, as git check-ignore -v says it");
        Finding finding = found.Findings().Single();
        Assert.AreEqual(Severity.Error, finding.Severity);
        StringAssert.Contains(finding.Message, Path.Combine(repository, "eng", "packages"));
        StringAssert.Contains(finding.Message, "MSB4236");
        CollectionAssert.AreEqual(new[] { $"git -C {repository} add -f eng/packages", $"git -C {repository} commit -m \"Commit the CopyOnWrite packages NuGet.config names\"" }, finding.Fix.ToArray());

        TypeEach(finding.Fix, repository);

        Assert.AreEqual(GitHolds.Committed, Read(repository).Folders.Single().Git);
        Assert.AreEqual(0, Read(repository).Findings().Count());
        CollectionAssert.AreEquivalent(OurPackageFiles.Select(f => "eng/packages/" + f).ToArray(), GitCommand.Run(repository, "ls-files", "eng/packages").Split('\n', StringSplitOptions.RemoveEmptyEntries), "both packages are in the commit");
    }

    [TestMethod]
    public void A_package_folder_not_committed_yet_is_named_and_a_committed_one_is_not()
    {
        string repository = Repository(ignoreLines: "bin/\nobj/\n");
        GitCommand.Run(repository, "add", "NuGet.config");
        GitCommand.Run(repository, "commit", "-q", "-m", "only the configuration");

        CommittedPackages found = Read(repository);

        Assert.AreEqual(GitHolds.NotCommitted, found.Folders.Single().Git);
        StringAssert.Contains(found.Findings().Single().Message, "not committed yet");
        Commit(repository);
        Assert.AreEqual(0, Read(repository).Findings().Count(), "git add -A took them");
    }

    [TestMethod]
    public void A_package_folder_outside_the_repository_is_named_with_the_line_that_names_one_inside()
    {
        string repository = Repository(ignoreLines: string.Empty, packagesInside: false);
        Commit(repository);
        string elsewhere = Path.Combine(Path.GetDirectoryName(repository)!, "packages-of-this-machine");

        CommittedPackages found = CommittedPackages.Read(repository, usesOurSdk: true, [elsewhere], [Path.Combine(repository, "NuGet.config")]);

        Assert.AreEqual(GitHolds.OutsideTheRepository, found.Folders.Single().Git);
        Finding finding = found.Findings().Single();
        StringAssert.Contains(finding.Message, "only this machine has that folder");
        CollectionAssert.AreEqual(new[] { "<add key=\"copy-on-write\" value=\"eng/packages\" />" }, finding.Fix.ToArray());
    }

    [TestMethod]
    public void A_repository_not_in_git_is_told_nothing_about_commits()
    {
        string repository = Repository(ignoreLines: null);

        CommittedPackages found = Read(repository);

        Assert.AreEqual(GitHolds.NoGit, found.Folders.Single().Git);
        Assert.AreEqual(0, found.Findings().Count());
    }

    [TestMethod]
    [DataRow("Newtonsoft.*", "", "Microsoft.Build.CopyOnWrite to no source and Microsoft.Build.CopyOnWrite.Measure to no source", DisplayName = "neither package mapped")]
    [DataRow("Newtonsoft.*", "Microsoft.Build.CopyOnWrite", "Microsoft.Build.CopyOnWrite.Measure to no source", DisplayName = "the SDK mapped, the tool not")]
    [DataRow("*", "Microsoft.Build.CopyOnWrite", "Microsoft.Build.CopyOnWrite.Measure to nuget.org only", DisplayName = "the SDK mapped, the tool caught by nuget.org's *")]
    public void A_package_source_mapping_that_does_not_send_our_packages_to_their_folder_is_named_and_the_printed_entry_does(string nugetOrgPattern, string ourPattern, string misrouted)
    {
        string ours = ourPattern.Length == 0 ? string.Empty : $"""<packageSource key="copy-on-write"><package pattern="{ourPattern}" /></packageSource>""";
        string repository = Repository(StandardIgnoreLines, mapping: $"""
              <packageSourceMapping>
                <packageSource key="nuget.org"><package pattern="{nugetOrgPattern}" /></packageSource>
                {ours}
              </packageSourceMapping>
            """);
        GitCommand.Run(repository, "add", "-f", "-A");
        GitCommand.Run(repository, "commit", "-q", "-m", "adopted");

        Finding finding = Read(repository).Findings().Single();

        StringAssert.Contains(finding.Message, $"sends {misrouted}, not to the source that holds them (copy-on-write):");
        string entry = finding.Fix.Single();
        string config = Path.Combine(repository, "NuGet.config");
        if (ours.Length == 0)
        {
            Assert.AreEqual("<packageSource key=\"copy-on-write\"><package pattern=\"Microsoft.Build.CopyOnWrite*\" /></packageSource>", entry, "a source entry under the key of the folder that holds them");
            File.WriteAllText(config, File.ReadAllText(config).Replace("<packageSourceMapping>", "<packageSourceMapping>" + entry, StringComparison.Ordinal));
        }
        else
        {
            Assert.AreEqual("<package pattern=\"Microsoft.Build.CopyOnWrite*\" />", entry, "a pattern in the folder's existing entry");
            File.WriteAllText(config, File.ReadAllText(config).Replace("<packageSource key=\"copy-on-write\">", "<packageSource key=\"copy-on-write\">" + entry, StringComparison.Ordinal));
        }

        Assert.AreEqual(0, Read(repository).Findings().Count(), "the printed entry sends both to their folder");
    }

    [TestMethod]
    public void A_mapping_is_no_concern_of_a_project_without_our_SDK()
    {
        string repository = Repository(StandardIgnoreLines, mapping: "<packageSourceMapping><packageSource key=\"nuget.org\"><package pattern=\"Newtonsoft.*\" /></packageSource></packageSourceMapping>");
        GitCommand.Run(repository, "add", "-f", "-A");
        GitCommand.Run(repository, "commit", "-q", "-m", "adopted");

        CommittedPackages found = CommittedPackages.Read(repository, usesOurSdk: false, [Path.Combine(repository, "eng", "packages")], [Path.Combine(repository, "NuGet.config")]);

        Assert.AreEqual(0, found.Findings().Count());
    }

    [TestMethod]
    [DataRow("Microsoft.Build.CopyOnWrite", "Microsoft.Build.CopyOnWrite", true)]
    [DataRow("microsoft.build.copyonwrite", "Microsoft.Build.CopyOnWrite", true)]
    [DataRow("Microsoft.Build.CopyOnWrite", "Microsoft.Build.CopyOnWrite.Measure", false)]
    [DataRow("Microsoft.Build.*", "Microsoft.Build.CopyOnWrite.Measure", true)]
    [DataRow("*", "Microsoft.Build.CopyOnWrite", true)]
    [DataRow("Microsoft.Build.CopyOnWrite.Measure*", "Microsoft.Build.CopyOnWrite", false)]
    public void NuGets_patterns_are_the_id_or_a_prefix_and_a_star(string pattern, string id, bool matches)
        => Assert.AreEqual(matches, CommittedPackages.Matches(pattern, id));

    /// <summary>A repository (in git unless <paramref name="ignoreLines"/> is null) whose NuGet.config names eng/packages, which holds our two packages.</summary>
    private static string Repository(string? ignoreLines, string mapping = "", bool packagesInside = true)
    {
        string root = TestScratch.NewFolder("adopted");
        string repository = Directory.CreateDirectory(Path.Combine(root, "repository")).FullName;
        string packages = packagesInside ? Path.Combine(repository, "eng", "packages") : Path.Combine(root, "packages-of-this-machine");
        Directory.CreateDirectory(packages);
        foreach (string file in OurPackageFiles)
        {
            File.WriteAllText(Path.Combine(packages, file), "a package's bytes: only its name matters here");
        }

        File.WriteAllText(Path.Combine(repository, "NuGet.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <add key="copy-on-write" value="eng/packages" />
                <add key="nuget.org" value="https://api.nuget.org/v3/index.json" />
              </packageSources>
            {mapping}
            </configuration>
            """);
        if (ignoreLines is not null)
        {
            File.WriteAllText(Path.Combine(repository, ".gitignore"), ignoreLines);
            GitCommand.Run(repository, "init", "-q");
            GitCommand.Run(repository, "config", "user.email", "tests@example.invalid");
            GitCommand.Run(repository, "config", "user.name", "tests");
        }

        return repository;
    }

    private static CommittedPackages Read(string repository)
        => CommittedPackages.Read(repository, usesOurSdk: true, [Path.Combine(repository, "eng", "packages"), "https://api.nuget.org/v3/index.json"], [Path.Combine(repository, "NuGet.config")]);

    private static void Commit(string repository)
    {
        GitCommand.Run(repository, "add", "-A");
        GitCommand.Run(repository, "commit", "-q", "-m", "adopted with git add -A");
    }

    /// <summary>Each line as a user types it in a shell, in the repository.</summary>
    private static void TypeEach(System.Collections.Generic.IEnumerable<string> lines, string repository)
    {
        foreach (string line in lines)
        {
            ProcessResult typed = ProcessRunner.Run("bash", ["-c", line], repository);
            Assert.IsTrue(typed.Succeeded, $"{line}:\n{typed.Output}");
        }
    }
}
