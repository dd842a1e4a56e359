using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Layout;

/// <summary>
/// A rule the build and the tool both apply is written once: the shapes its twins had are allowed in its one file
/// only, anywhere under src/. A second copy fails here with the file that holds it and the one place to call instead.
/// </summary>
[TestClass]
public sealed class OneRuleTests
{
    [TestMethod]
    [DataRow("path inside a folder (the character after the folder is a separator)", @"\[\w+\.Length\] is '/' or '\\\\'", "Settings/CopySources.cs")]
    [DataRow("where a source comes from: NuGet's default package cache by its path", @"(IndexOf|EndsWith|Contains)\(""/\.nuget/packages", "Settings/CopySources.cs")]
    [DataRow("where a source comes from: the fallback folders of NUGET_FALLBACK_PACKAGES", @"\(""NUGET_FALLBACK_PACKAGES""\)", "Settings/CopySources.cs")]
    [DataRow("where a source comes from: the .NET installation of DOTNET_HOST_PATH", @"\(""DOTNET_HOST_PATH""\)", "Settings/CopySources.cs")]
    [DataRow("the statfs call and its struct layout, one file per OS", @"partial int f?statfs\(", "Cloning/Linux/LinuxNative.cs|Volumes/MacVolumeSystem.cs")]
    [DataRow("what DisableCopyOnWrite's values mean", @"""DisableCopyOnWrite""", "Settings/CopyOnWriteSettings.cs")]
    [DataRow("how a loop volume is formatted", @"""mkfs\.(xfs|btrfs|ext4)""", "Volumes.cs")]
    /// <param name="itsFile">The file (path under its project) allowed to hold the shape; '|' between the files of a rule written once per OS.</param>
    public void A_rule_is_written_in_one_file(string rule, string shape, string itsFile)
    {
        string src = Path.Combine(RepositoryLayout.Root, "src");
        var regex = new Regex(shape);
        string[] holders = Directory.EnumerateFiles(src, "*.cs", SearchOption.AllDirectories)
            .Where(file => !file.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}") && !file.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}"))
            .Where(file => regex.IsMatch(File.ReadAllText(file)))
            .Select(file => Path.GetRelativePath(src, file).Replace('\\', '/'))
            .ToArray();

        Assert.IsTrue(holders.Length > 0 && holders.All(file => itsFile.Split('|').Any(allowed => file.EndsWith("/" + allowed, System.StringComparison.Ordinal))),
            $"{rule}: written in {string.Join(", ", holders.DefaultIfEmpty("no file"))}; it belongs in {itsFile} only (call it from there). If the rule moved, move this row with it.");
    }
}
