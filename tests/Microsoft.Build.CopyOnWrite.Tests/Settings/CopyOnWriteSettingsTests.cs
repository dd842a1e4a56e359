using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Settings;

/// <summary>
/// What the CopyOnWrite properties' values mean (src/Microsoft.Build.CopyOnWrite/Settings/CopyOnWriteSettings.cs), row
/// by row: the raw values a build hands over in, the settings and the sentences for values not understood out. The
/// real builds that reach these rules through the SDK's targets are SettingsCheckedFirstTests and
/// SettingsOutsideProjectFilesTests; they load the packed task, so only these rows reach the code in this process.
/// </summary>
[TestClass]
public sealed class CopyOnWriteSettingsTests
{
    private static readonly (string Row, Dictionary<string, string> Values, string Expected, string[] Problems)[] ParseTable =
    {
        ("nothing set: the defaults", new(), "Auto, warn False, accept [], links False", []),
        ("whitespace is not a value", new() { ["CopyOnWriteMode"] = "  ", ["CopyOnWriteWarnWhenNotCloned"] = " " }, "Auto, warn False, accept [], links False", []),
        ("a mode in any case, trimmed", new() { ["CopyOnWriteMode"] = " required " }, "Required, warn False, accept [], links False", []),
        ("Off", new() { ["CopyOnWriteMode"] = "OFF" }, "Off, warn False, accept [], links False", []),
        ("an unknown mode: Auto, and said", new() { ["CopyOnWriteMode"] = "Bogus" }, "Auto, warn False, accept [], links False",
            ["CopyOnWriteMode has the value \"Bogus\"; it must be Auto, Required or Off."]),
        ("the switches take true and false in any case", new() { ["CopyOnWriteWarnWhenNotCloned"] = "True", ["CopyOnWriteInsteadOfLinks"] = "TRUE" }, "Auto, warn True, accept [], links True", []),
        ("a switch set false is the default", new() { ["CopyOnWriteWarnWhenNotCloned"] = "false" }, "Auto, warn False, accept [], links False", []),
        ("a switch takes no 1 (only DisableCopyOnWrite, the 1.x package's, does)", new() { ["CopyOnWriteInsteadOfLinks"] = "1" }, "Auto, warn False, accept [], links False",
            ["CopyOnWriteInsteadOfLinks has the value \"1\"; it must be true or false."]),
        ("accepted folders: full paths, empty items left out", new() { ["CopyOnWriteAcceptCopiesFrom"] = " /a ; ;/b;" }, "Auto, warn False, accept [/a,/b], links False", []),
        ("an accepted folder that is not a full path: left out, and said with the fix", new() { ["CopyOnWriteAcceptCopiesFrom"] = "/a;assets" }, "Auto, warn False, accept [/a], links False",
            ["CopyOnWriteAcceptCopiesFrom lists \"assets\", which is not a full path; list full paths, e.g. $(MSBuildThisFileDirectory)assets."]),
        ("every problem, in the order of the task's properties", new() { ["CopyOnWriteInsteadOfLinks"] = "yes", ["CopyOnWriteMode"] = "no", ["CopyOnWriteWarnWhenNotCloned"] = "maybe" },
            "Auto, warn False, accept [], links False",
            ["CopyOnWriteMode has the value \"no\"; it must be Auto, Required or Off.", "CopyOnWriteWarnWhenNotCloned has the value \"maybe\"; it must be true or false.",
             "CopyOnWriteInsteadOfLinks has the value \"yes\"; it must be true or false."]),
    };

    public static IEnumerable<object[]> ParseRows => ParseTable.Select(row => new object[] { row.Row });

    [TestMethod]
    [DynamicData(nameof(ParseRows))]
    public void Parse(string row)
    {
        (_, Dictionary<string, string> values, string expected, string[] problems) = ParseTable.Single(r => r.Row == row);

        CopyOnWriteSettings settings = CopyOnWriteSettings.Parse(name => values.GetValueOrDefault(name), out IReadOnlyList<string> found);
        CopyOnWriteSettings again = CopyOnWriteSettings.Parse(name => values.GetValueOrDefault(name), out string? first);

        Assert.AreEqual(expected, Describe(settings), row);
        CollectionAssert.AreEqual(problems, found.ToArray(), row);
        Assert.AreEqual(problems.FirstOrDefault(), first, row);
        Assert.AreEqual(expected, Describe(again), row);
        Assert.AreEqual(expected == Describe(CopyOnWriteSettings.Default), ReferenceEquals(CopyOnWriteSettings.Default, settings), $"{row}: the defaults are one shared instance");
    }

    [TestMethod]
    public void The_defaults_are_Auto_with_nothing_else_asked()
        => Assert.AreEqual("Auto, warn False, accept [], links False", Describe(CopyOnWriteSettings.Default));

    [TestMethod]
    public void From_outside_the_project_files_a_global_property_wins_over_the_environment_whatever_its_case()
    {
        var environment = new Dictionary<string, string> { ["CopyOnWriteMode"] = "Off", ["CopyOnWriteWarnWhenNotCloned"] = "true" };
        var global = new Dictionary<string, string> { ["copyonwritemode"] = "Required" };

        CopyOnWriteSettings settings = CopyOnWriteSettings.FromBuild(global, name => environment.GetValueOrDefault(name), out string? problem);

        Assert.AreEqual("Required, warn True, accept [], links False", Describe(settings));
        Assert.IsNull(problem);
    }

    [TestMethod]
    public void From_outside_the_project_files_the_environment_alone_and_its_first_problem()
    {
        var environment = new Dictionary<string, string> { ["CopyOnWriteInsteadOfLinks"] = "sure", ["CopyOnWriteAcceptCopiesFrom"] = "rel" };

        CopyOnWriteSettings settings = CopyOnWriteSettings.FromBuild((IReadOnlyDictionary<string, string>?)null, name => environment.GetValueOrDefault(name), out string? problem);

        Assert.AreEqual("Auto, warn False, accept [], links False", Describe(settings));
        Assert.AreEqual("CopyOnWriteAcceptCopiesFrom lists \"rel\", which is not a full path; list full paths, e.g. $(MSBuildThisFileDirectory)rel.", problem);
    }

    [TestMethod]
    public void From_outside_the_project_files_nothing_set_is_the_shared_defaults_without_a_problem()
    {
        CopyOnWriteSettings settings = CopyOnWriteSettings.FromBuild(new Dictionary<string, string> { ["Configuration"] = "Release", ["CopyOnWriteMode"] = "" }, _ => "", out string? problem);

        Assert.AreSame(CopyOnWriteSettings.Default, settings);
        Assert.IsNull(problem);
    }

    [TestMethod]
    public void The_task_factory_body_is_Name_equals_value_lines_and_a_value_runs_to_the_end_of_its_line()
    {
        Func<string, string?> values = CopyOnWriteSettings.FromTaskBody(" CopyOnWriteMode =Required\r\nCopyOnWriteAcceptCopiesFrom=/a=b;/c\n=no name\nno equals sign\n\nCopyOnWriteInsteadOfLinks=");

        Assert.AreEqual("Required", values("CopyOnWriteMode"));
        Assert.AreEqual("Required", values("copyonwritemode"));
        Assert.AreEqual("/a=b;/c", values("CopyOnWriteAcceptCopiesFrom"));
        Assert.AreEqual("", values("CopyOnWriteInsteadOfLinks"));
        Assert.IsNull(values("no equals sign"));
        Assert.IsNull(values(""));
        Assert.IsNull(CopyOnWriteSettings.FromTaskBody(null)("CopyOnWriteMode"));
    }

    [TestMethod]
    [DataRow(null, false)]
    [DataRow(" ", false)]
    [DataRow("true", true)]
    [DataRow(" TRUE ", true)]
    [DataRow("1", true)]
    [DataRow("False", false)]
    [DataRow("0", false)]
    [DataRow("yes", null)]
    [DataRow("10", null)]
    public void DisableCopyOnWrite_as_the_1x_package_read_it(string? value, bool? disabled)
        => Assert.AreEqual(disabled, CopyOnWriteSettings.IsDisabled(value), value);

    [TestMethod]
    [DataRow("/a", false, true)]
    [DataRow("a/b", false, false)]
    [DataRow("C:\\a", false, false)]
    [DataRow("C:\\", true, true)]
    [DataRow("C:\\a", true, true)]
    [DataRow("C:/a", true, true)]
    [DataRow("C:a", true, false)]
    [DataRow("C:", true, false)]
    [DataRow("\\\\server\\share", true, true)]
    [DataRow("//server/share", true, true)]
    [DataRow("\\a", true, false)]
    [DataRow("/a", true, false)]
    [DataRow("ab\\c", true, false)]
    public void A_full_path_depends_on_no_current_folder_or_drive(string path, bool onWindows, bool full)
        => Assert.AreEqual(full, CopyOnWriteSettings.IsFullPath(path, onWindows), $"{path} on {(onWindows ? "Windows" : "Unix")}");

    private static string Describe(CopyOnWriteSettings settings)
        => $"{settings.Mode}, warn {settings.WarnWhenNotCloned}, accept [{string.Join(",", settings.AcceptCopiesFrom)}], links {settings.InsteadOfLinks}";
}
