using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Parity.Tests;

/// <summary>
/// The stock task's codes and messages in other languages than English: MSBuild's own Copy and ours on identical trees,
/// compared line by line as the English scenarios are, for every code and plain message of the stock task
/// (<see cref="Scenarios.EveryStockMessage"/>). In-process the language is the test thread's UI culture; from a project
/// file it is DOTNET_CLI_UI_LANGUAGE, from which `dotnet msbuild` takes the build's.
/// </summary>
[TestClass]
public sealed class LanguageParityTests
{
    [TestMethod]
    [DataRow("de")]
    [DataRow("ja")]
    [DataRow("zh-Hans")]
    public void InProcess(string language)
    {
        var diffs = new List<string>();
        var observed = new Dictionary<string, Observation>();
        InLanguage(CultureInfo.GetCultureInfo(language), () =>
        {
            foreach (Scenario scenario in Runnable(Scenarios.EveryStockMessage))
            {
                (Observation stock, Observation ours) = ParityHarness.RunInProcess(scenario);
                observed[scenario.Name] = stock;
                diffs.Add(Compare(scenario, stock, ours));
            }
        });

        AssertStockSpoke(language, observed);
        Assert.AreEqual(string.Empty, string.Concat(diffs), $"in {language}");
    }

    [TestMethod]
    [DataRow("de")]
    [DataRow("ja")]
    [DataRow("zh-Hans")]
    public void ProjectFile(string language) => CompareProjectFileRuns(language, multiThreaded: false);

    /// <summary>The multi-threaded flavour under -mt, which runs inside MSBuild's process as the stock task does: one language is enough to show it.</summary>
    [TestMethod]
    public void ProjectFileMultiThreaded() => CompareProjectFileRuns("ja", multiThreaded: true);

    /// <summary>
    /// In a task host: the flavour for older MSBuild under -mt, which MSBuild runs there (<see cref="MultiThreadedBuildTests"/>).
    /// Errors and warnings are compared, and the files; the messages are not, as MSBuild adds its own task-host lines to
    /// the task's there. Not the question-mode scenario: MSBuild sets FailIfNotIncremental from -question over the
    /// project's value for a task in its own process (the stock one here), not for one in a task host.
    /// </summary>
    [TestMethod]
    public void InTaskHost()
    {
        List<Scenario> scenarios = ForProjectFiles().Where(s => !s.Parameters.ContainsKey("FailIfNotIncremental")).ToList();
        Dictionary<string, (Observation Stock, Observation Ours, string Log)> results = ProjectFileRunner.Run(scenarios, multiThreaded: true, "de", typeof(Copy).Assembly.Location);
        var diffs = new List<string>();
        foreach (Scenario scenario in scenarios)
        {
            (Observation stock, Observation ours, _) = results[scenario.Name];
            stock.Events.RemoveAll(e => e.Kind == "message");
            ours.Events.RemoveAll(e => e.Kind == "message");
            diffs.Add(Compare(scenario, stock, ours));
        }

        AssertStockSpoke("de", results.ToDictionary(r => r.Key, r => r.Value.Stock));
        Assert.AreEqual(string.Empty, string.Concat(diffs), "in de, ours in a task host");
    }

    private static void CompareProjectFileRuns(string language, bool multiThreaded)
    {
        List<Scenario> scenarios = ForProjectFiles().ToList();
        Dictionary<string, (Observation Stock, Observation Ours, string Log)> results = ProjectFileRunner.Run(scenarios, multiThreaded, language);
        var diffs = new List<string>();
        foreach (Scenario scenario in scenarios)
        {
            (Observation stock, Observation ours, string log) = results[scenario.Name];
            Assert.IsNotNull(stock.Success, $"The stock task did not run for {scenario.Name}:{Environment.NewLine}{log}");
            Assert.IsNotNull(ours.Success, $"Our task did not run for {scenario.Name}:{Environment.NewLine}{log}");
            diffs.Add(Compare(scenario, stock, ours));
        }

        AssertStockSpoke(language, results.ToDictionary(r => r.Key, r => r.Value.Stock));
        Assert.AreEqual(string.Empty, string.Concat(diffs), $"in {language}{(multiThreaded ? " with -mt" : string.Empty)}");
    }

    /// <summary>The difference in one scenario (empty when none), as <see cref="ParityTests"/> reports it; both sides in full with PARITY_VERBOSE=1.</summary>
    private static string Compare(Scenario scenario, Observation stock, Observation ours)
    {
        string? diff = ParityHarness.Compare(scenario, stock, ours);
        if (Environment.GetEnvironmentVariable("PARITY_VERBOSE") == "1")
        {
            Console.WriteLine($"{scenario.Name}, stock:{Environment.NewLine}{stock.Describe()}{Environment.NewLine}ours:{Environment.NewLine}{ours.Describe()}");
        }

        return diff is null ? string.Empty : diff + Environment.NewLine;
    }

    /// <summary>
    /// The premise: MSBuild here has texts in <paramref name="language"/> and the stock task used them (else both sides
    /// would be English and the comparison would prove nothing). Its MSB3030 line must differ from the English one.
    /// </summary>
    private static void AssertStockSpoke(string language, Dictionary<string, Observation> stock)
    {
        const string Scenario = "missing source";
        string english = string.Empty;
        InLanguage(CultureInfo.InvariantCulture, () => english = MissingSourceLine(ParityHarness.RunInProcess(Scenarios.Named(Scenario)).Stock));
        Assert.AreNotEqual(english, MissingSourceLine(stock[Scenario]), $"MSBuild's Copy did not speak {language} here ({TaskDriver.StockAssemblyLocation})");

        static string MissingSourceLine(Observation observation) => observation.Events.Single(e => e.Code == "MSB3030").Text;
    }

    /// <summary>
    /// Runs <paramref name="body"/> with this thread's UI language set to <paramref name="culture"/>, and the stock task's
    /// texts read in it (<see cref="TaskDriver.ForgetStockTexts"/>, <see cref="IntendedDifferences.StockLanguageFixedPerProcess"/>);
    /// then puts both back.
    /// </summary>
    private static void InLanguage(CultureInfo culture, Action body)
    {
        CultureInfo previous = CultureInfo.CurrentUICulture;
        CultureInfo.CurrentUICulture = culture;
        TaskDriver.ForgetStockTexts();
        try
        {
            body();
        }
        finally
        {
            CultureInfo.CurrentUICulture = previous;
            TaskDriver.ForgetStockTexts();
        }
    }

    private static IEnumerable<Scenario> Runnable(IEnumerable<Scenario> scenarios)
        => scenarios.Where(s => !s.NeedsOtherVolume || Scratch.OtherVolumeRoot is not null);

    /// <summary>
    /// One `dotnet msbuild` per side: a scenario that needs an environment of its own (MSBUILDALWAYSRETRY, for MSB3894 and
    /// MSB3895) would cost a second, and runs in-process only.
    /// </summary>
    private static IEnumerable<Scenario> ForProjectFiles() => Runnable(Scenarios.EveryStockMessage).Where(s => s.Environment.Count == 0);
}
