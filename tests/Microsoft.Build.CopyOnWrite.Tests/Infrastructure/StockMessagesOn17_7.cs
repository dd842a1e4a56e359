using System.Collections;
using System.IO;
using System.Reflection;
using System.Resources;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// Our Copy in an MSBuild 17.7 (on .NET, or its .NET Framework build under Mono) says the stock task's messages in that
/// MSBuild's own words, read from its Microsoft.Build.Tasks.Core: a project whose two Copy calls fail, as warnings
/// (ContinueOnError), with MSB3030 (a missing source, which 17.7 has a text for) and MSB3896 (SourceFolders with
/// DestinationFiles, which 17.7's Copy does not know, so it has no text: the message names its text and arguments).
/// </summary>
public static class StockMessagesOn17_7
{
    public static string WriteProject(string folder, string taskAssembly)
    {
        string project = Path.Combine(folder, "stock-messages.proj");
        File.WriteAllText(project, $"""
            <Project>
              <UsingTask TaskName="Copy" AssemblyFile="{taskAssembly}" />
              <Target Name="Build">
                <Copy SourceFiles="missing.txt" DestinationFolder="out" ContinueOnError="true" />
                <Copy SourceFolders="lib" DestinationFiles="out/a.txt" ContinueOnError="true" />
              </Target>
            </Project>
            """);
        return project;
    }

    /// <param name="tasksAssembly">The Microsoft.Build.Tasks.Core the build ran with, whose texts the log must show.</param>
    public static void AssertSaidInItsWords(ProcessResult build, string tasksAssembly)
    {
        Assert.IsTrue(build.Succeeded, build.Output);
        string missing = string.Format(WithoutCode(Text(tasksAssembly, "Copy.SourceFileNotFound")!), "missing.txt");
        StringAssert.Contains(build.Output, "warning MSB3030: " + missing, "MSB3030 must be MSBuild's own text:\n" + build.Output);
        Assert.IsNull(Text(tasksAssembly, "Copy.IncompatibleParameters"), "this MSBuild has a text for MSB3896 after all");
        StringAssert.Contains(build.Output, "warning MSB3896: Copy.IncompatibleParameters (\"SourceFolders\", \"DestinationFiles\")", build.Output);
    }

    /// <summary>A text of the neutral resources of <paramref name="tasksAssembly"/> (read, not run: another MSBuild is loaded here), or null.</summary>
    private static string? Text(string tasksAssembly, string name)
    {
        using Stream resources = Assembly.LoadFile(tasksAssembly).GetManifestResourceStream("Microsoft.Build.Tasks.Core.Strings.resources")!;
        using var reader = new ResourceReader(resources);
        foreach (DictionaryEntry entry in reader)
        {
            if ((string)entry.Key == name)
            {
                return (string?)entry.Value;
            }
        }

        return null;
    }

    private static string WithoutCode(string text) => text.Substring(text.IndexOf(": ", System.StringComparison.Ordinal) + 2);
}
