using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.RegularExpressions;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// The file system's own evidence of a clone: FIEMAP's "shared" extent flag as printed by `filefrag -v`
/// (e2fsprogs), an independent program, so a clone is never proven by our own code or log.
/// </summary>
public static partial class SharedExtents
{
    public static IReadOnlyList<string> ExtentFlags(string path)
    {
        ProcessResult result = ProcessRunner.Run("filefrag", "-v", "-s", path);
        Assert.IsTrue(result.Succeeded, $"filefrag failed on {path}: {result.Output}");

        // Extent rows look like "   0:        0..    4882:      65560..     70442:   4883:             last,shared,eof".
        return result.Output.Split('\n')
            .Select(line => ExtentRow().Match(line))
            .Where(match => match.Success)
            .Select(match => match.Groups["flags"].Value.Trim())
            .ToList();
    }

    /// <summary>True when the file has data extents and every one of them is shared with another file.</summary>
    public static bool AllShared(string path)
    {
        IReadOnlyList<string> flags = ExtentFlags(path);
        return flags.Count > 0 && flags.All(f => f.Split(',').Contains("shared"));
    }

    /// <summary>True when no extent is shared (an independent copy).</summary>
    public static bool NoneShared(string path) => ExtentFlags(path).All(f => !f.Split(',').Contains("shared"));

    public static void AssertAllShared(string path, string why)
        => Assert.IsTrue(AllShared(path), $"Expected every extent of {path} to be shared ({why}); filefrag flags: [{string.Join(" | ", ExtentFlags(path))}]");

    public static void AssertNoneShared(string path, string why)
        => Assert.IsTrue(NoneShared(path), $"Expected no shared extent in {path} ({why}); filefrag flags: [{string.Join(" | ", ExtentFlags(path))}]");

    [GeneratedRegex(@"^\s*\d+:\s+\d+\.\.\s*\d+:\s+\d+\.\.\s*\d+:\s+\d+:\s*(?<flags>\S*)\s*$")]
    private static partial Regex ExtentRow();
}
