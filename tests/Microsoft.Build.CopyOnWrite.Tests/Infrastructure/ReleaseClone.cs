using System;
using System.IO;
using System.Linq;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// A clone of this repository holding the working tree as it is (committed or not, as one new commit), whose
/// origin remote is a URL of the test's choosing, packed with the release command: the package a release from a
/// clone of the public repository makes. The working tree itself has no such remote.
/// </summary>
public sealed class ReleaseClone
{
    private ReleaseClone(string root, string commit, string packagePath)
    {
        Root = root;
        Commit = commit;
        PackagePath = packagePath;
    }

    public string Root { get; }

    /// <summary>The commit the package was packed from.</summary>
    public string Commit { get; }

    public string PackagePath { get; }

    public static ReleaseClone Pack(string originUrl)
    {
        string folder = TestScratch.NewFolder("release-clone");
        string root = Path.Combine(folder, "repository");
        GitCommand.Run(RepositoryLayout.Root, "clone", "--quiet", RepositoryLayout.Root, root);

        // Tracked and untracked files that git does not ignore, as they are now; tracked files deleted are deleted.
        string listed = GitCommand.Run(RepositoryLayout.Root, "-c", "core.quotePath=false", "ls-files", "--cached", "--others", "--exclude-standard");
        foreach (string relative in listed.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Distinct())
        {
            string source = Path.Combine(RepositoryLayout.Root, relative);
            string destination = Path.Combine(root, relative);
            if (File.Exists(source))
            {
                Directory.CreateDirectory(Path.GetDirectoryName(destination)!);
                File.Copy(source, destination, overwrite: true);
            }
            else if (File.Exists(destination))
            {
                File.Delete(destination);
            }
        }

        GitCommand.Run(root, "add", "--all");
        GitCommand.Run(root, "-c", "user.name=Release clone", "-c", "user.email=release-clone@example.invalid", "commit", "--quiet", "--allow-empty", "-m", "The working tree under test");
        GitCommand.Run(root, "remote", "set-url", "origin", originUrl);
        string commit = GitCommand.Run(root, "rev-parse", "HEAD").Trim();

        (string packagePath, _) = SdkPackage.PackWithReleaseCommand(root, Path.Combine(folder, "packages"));
        return new ReleaseClone(root, commit, packagePath);
    }
}
