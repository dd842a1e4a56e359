using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>git in a folder; a failing command fails the test with what git printed.</summary>
public static class GitCommand
{
    public static string Run(string folder, params string[] arguments)
    {
        ProcessResult git = ProcessRunner.Run("git", ["-C", folder, .. arguments]);
        Assert.IsTrue(git.Succeeded, $"git {string.Join(' ', arguments)} failed:\n{git.Output}");
        return git.Output;
    }
}
