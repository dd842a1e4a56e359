using System.IO;
using System.Linq;
using System.Xml.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Layout;

/// <summary>
/// Shapes of the SDK's targets that cost every build. A target that MSBuild skipped for its condition is not done: it
/// is weighed again at every later request into the project, and an InitialTargets target is part of every request
/// (the common targets make dozens per project: GetTargetPath, GetCopyToOutputDirectoryItems...). A Condition on such a
/// &lt;Target&gt; made whole builds 15% slower (docs/performance.md); the condition belongs on the tasks inside.
/// </summary>
[TestClass]
public sealed class SdkTargetsShapeTests
{
    [TestMethod]
    public void No_target_of_ours_in_InitialTargets_has_a_Condition_on_its_Target_element()
    {
        string[] offences = SdkFiles().SelectMany(file => ConditionedInitialTargets(XDocument.Load(file).Root!).Select(offence => $"{Path.GetFileName(file)}: {offence}")).ToArray();

        Assert.AreEqual(0, offences.Length, string.Join("\n", offences));
    }

    [TestMethod]
    public void Every_InitialTargets_name_of_ours_is_a_target_in_the_same_file()
    {
        foreach (string file in SdkFiles())
        {
            XElement project = XDocument.Load(file).Root!;
            foreach (string name in InitialTargetsOf(project))
            {
                Assert.IsTrue(project.Elements("Target").Any(t => (string?)t.Attribute("Name") == name), $"{Path.GetFileName(file)}: InitialTargets names {name}, which it does not define, so the rule above cannot see it");
            }
        }
    }

    [TestMethod]
    public void The_rule_finds_the_shape_that_made_builds_slower_and_allows_the_condition_on_the_task()
    {
        XElement slower = XElement.Parse("""<Project InitialTargets="_Other;_Check"><Target Name="_Other" /><Target Name="_Check" Condition="'$(A)' != ''"><Message Text="a" /></Target></Project>""");
        XElement fixedShape = XElement.Parse("""<Project InitialTargets="_Check"><Target Name="_Check"><Message Text="a" Condition="'$(A)' != ''" /></Target><Target Name="_Hook" Condition="'$(A)' != ''" /></Project>""");

        StringAssert.Contains(ConditionedInitialTargets(slower).Single(), "_Check");
        Assert.AreEqual(0, ConditionedInitialTargets(fixedShape).Count());
    }

    private static System.Collections.Generic.IEnumerable<string> ConditionedInitialTargets(XElement project)
        => from name in InitialTargetsOf(project)
           from target in project.Elements("Target").Where(t => (string?)t.Attribute("Name") == name)
           where target.Attribute("Condition") is not null
           select $"InitialTargets names {name}, whose <Target> has Condition=\"{target.Attribute("Condition")!.Value}\"; put the condition on the tasks inside it";

    private static string[] SdkFiles() => Directory.GetFiles(Path.Combine(RepositoryLayout.Root, "Sdk"), "*.targets").Concat(Directory.GetFiles(Path.Combine(RepositoryLayout.Root, "Sdk"), "*.props")).ToArray();

    private static string[] InitialTargetsOf(XElement project)
        => ((string?)project.Attribute("InitialTargets") ?? string.Empty).Split(';', System.StringSplitOptions.RemoveEmptyEntries | System.StringSplitOptions.TrimEntries);
}
