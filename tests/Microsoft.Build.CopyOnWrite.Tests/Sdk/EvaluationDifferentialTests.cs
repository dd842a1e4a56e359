using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// Adopting the SDK leaves a project's evaluation as it was. Real project shapes, each written twice (stock and adopted
/// by one of the README's routes), restored and evaluated in this process by the installed .NET SDK's MSBuild as a build
/// evaluates it and as restore does; every property and every item is compared. Only the SDK's own names and the short list in
/// <see cref="IntendedDifferences"/> may differ, each in exactly the way the list says.
/// </summary>
[TestClass]
public sealed class EvaluationDifferentialTests
{
    private const string Console = """<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputType>Exe</OutputType><TargetFramework>net10.0</TargetFramework></PropertyGroup><!-- package references --></Project>""";

    private const string Library = """<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup><!-- package references --></Project>""";

    private const string TestProject = """
        <Project Sdk="Microsoft.NET.Sdk">
          <PropertyGroup><TargetFramework>net10.0</TargetFramework><IsTestProject>true</IsTestProject></PropertyGroup>
          <ItemGroup>
            <PackageReference Include="Microsoft.NET.Test.Sdk" Version="18.11.0" />
            <PackageReference Include="MSTest.TestAdapter" Version="4.5.3" />
            <PackageReference Include="MSTest.TestFramework" Version="4.5.3" />
          </ItemGroup>
          <!-- package references -->
        </Project>
        """;

    private const string WebProject = """<Project Sdk="Microsoft.NET.Sdk.Web"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup><!-- package references --></Project>""";

    private const string MultiTargeting = """<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFrameworks>net8.0;net10.0</TargetFrameworks></PropertyGroup><!-- package references --></Project>""";

    /// <summary>Every warnings-as-errors property set before our Sdk.targets (Directory.Build.props) and after it (Directory.Build.targets, the project file).</summary>
    private const string WarningsPropertiesBefore = """
        <PropertyGroup>
          <MSBuildTreatWarningsAsErrors>true</MSBuildTreatWarningsAsErrors>
          <TreatWarningsAsErrors>true</TreatWarningsAsErrors>
          <WarningsNotAsErrors>XX1001;NU1603</WarningsNotAsErrors>
          <WarningsAsErrors>XX1002</WarningsAsErrors>
          <NoWarn>$(NoWarn);XX1003</NoWarn>
          <MSBuildWarningsAsMessages>XX1004</MSBuildWarningsAsMessages>
        </PropertyGroup>
        """;

    private const string WarningsPropertiesAfter = """
        <PropertyGroup>
          <WarningsNotAsErrors>$(WarningsNotAsErrors);XX1005</WarningsNotAsErrors>
          <MSBuildWarningsAsErrors>$(MSBuildWarningsAsErrors);XX1006</MSBuildWarningsAsErrors>
        </PropertyGroup>
        """;

    private const string MSBuildWarningsProject = """
        <Project Sdk="Microsoft.NET.Sdk">
          <PropertyGroup>
            <TargetFramework>net10.0</TargetFramework>
            <WarningsNotAsErrors>XX1007</WarningsNotAsErrors>
          </PropertyGroup>
          <!-- package references -->
        </Project>
        """;

    private const string ArtifactsPathProps = """<PropertyGroup><ArtifactsPath>$(MSBuildThisFileDirectory)artifacts</ArtifactsPath></PropertyGroup>""";

    private static readonly Dictionary<string, string> Build = new();

    private static readonly Dictionary<string, string> Restore = new() { ["MSBuildIsRestoring"] = "true", ["ExcludeRestorePackageImports"] = "true" };

    [TestMethod]
    [DataRow("console", PackageRoute.SdkElement)]
    [DataRow("console", PackageRoute.SdkElementWithVersion)]
    [DataRow("console", PackageRoute.PackageReference)]
    [DataRow("library", PackageRoute.SdkElement)]
    [DataRow("library", PackageRoute.PackageReference)]
    [DataRow("test project", PackageRoute.SdkElement)]
    [DataRow("test project", PackageRoute.PackageReference)]
    [DataRow("web project", PackageRoute.SdkElement)]
    [DataRow("web project", PackageRoute.PackageReference)]
    [DataRow("multi-targeting", PackageRoute.SdkElement)]
    [DataRow("multi-targeting", PackageRoute.SdkElementWithVersion)]
    [DataRow("multi-targeting", PackageRoute.PackageReference)]
    [DataRow("warnings properties in Directory.Build.props and .targets", PackageRoute.SdkElement)]
    [DataRow("warnings properties in Directory.Build.props and .targets", PackageRoute.SdkElementWithVersion)]
    [DataRow("warnings properties in Directory.Build.props and .targets", PackageRoute.PackageReference)]
    [DataRow("ArtifactsPath", PackageRoute.SdkElement)]
    [DataRow("ArtifactsPath", PackageRoute.PackageReference)]
    public void Adopting_the_SDK_changes_no_property_or_item_but_its_own_and_the_intended_ones(string shape, PackageRoute route)
    {
        AdoptionPair pair = Write(shape, route);
        if (route == PackageRoute.PackageReference)
        {
            (ProcessResult stockRestore, ProcessResult adoptedRestore) = (InProcessBuild.Restore(pair.StockProject), InProcessBuild.Restore(pair.AdoptedProject));
            Assert.IsTrue(stockRestore.Succeeded && adoptedRestore.Succeeded, "restore failed:\n" + stockRestore.Output + adoptedRestore.Output);
        }

        var evaluations = new List<(string Name, Dictionary<string, string> GlobalProperties)> { ("build", Build), ("restore", Restore) };
        if (shape == "multi-targeting")
        {
            evaluations.Add(("build of net8.0", new Dictionary<string, string> { ["TargetFramework"] = "net8.0" }));
        }

        List<string> unintended = [];
        foreach ((string name, Dictionary<string, string> globalProperties) in evaluations)
        {
            EvaluationSnapshot stock = EvaluationSnapshot.Of(pair.StockProject, globalProperties);
            EvaluationSnapshot adopted = EvaluationSnapshot.Of(pair.AdoptedProject, globalProperties);
            unintended.AddRange(UnintendedDifferences(stock, adopted, pair, route).Select(difference => $"{name} evaluation: {difference}"));
            // A PackageReference's build/ files are imported neither by restore's evaluation nor by a multi-targeting project's outer build.
            bool ourTargetsImported = route != PackageRoute.PackageReference || (globalProperties != Restore && !(shape == "multi-targeting" && globalProperties == Build));
            if (ourTargetsImported)
            {
                StringAssert.EndsWith(adopted.Properties.GetValueOrDefault("MSBuildWarningsNotAsErrors"), ";COW006", $"{name} evaluation: our code must stay out of -warnAsError");
            }
        }

        Assert.AreEqual(0, unintended.Count, $"{shape} adopted by {route} evaluates differently from the stock project:\n" + string.Join("\n", unintended));
    }

    /// <summary>
    /// The properties adopting the SDK changes besides its own, each with why that is harmless and the exact change
    /// allowed (stock value, adopted value, our Sdk folder in the package cache). docs/how-it-works.md lists the same.
    /// </summary>
    private static readonly Dictionary<string, (string Why, Func<string, string, string, bool> Holds)> IntendedDifferences = new(StringComparer.OrdinalIgnoreCase)
    {
        ["MSBuildWarningsNotAsErrors"] = (
            "COW006 is never an error under -warnAsError; added after MSBuild filled it from WarningsNotAsErrors",
            (stock, adopted, _) => adopted == stock + ";COW006"),
        ["CustomAfterDirectoryBuildTargets"] = (
            "<Sdk> in Directory.Build.props hands WarningsNotAsErrors.targets to the hook after Directory.Build.targets; the project's own entries stay, in order, before it",
            (stock, adopted, sdkFolder) => adopted == stock + ";" + Path.Combine(sdkFolder, "WarningsNotAsErrors.targets")),
        ["CustomAfterMicrosoftCommonCrossTargetingTargets"] = (
            "the same for the outer build of a multi-targeting project; set only where the project leaves it empty",
            (stock, adopted, sdkFolder) => stock.Length == 0 && adopted == Path.Combine(sdkFolder, "WarningsNotAsErrors.targets")),
        ["PkgMicrosoft_Build_CopyOnWrite"] = (
            "NuGet's path to a referenced package that has a tools/ folder, named after ours: only where a PackageReference brings it",
            (stock, adopted, sdkFolder) => stock.Length == 0 && adopted == Path.GetDirectoryName(sdkFolder)),
    };

    private static bool IsOurs(string name)
        => name.StartsWith("CopyOnWrite", StringComparison.OrdinalIgnoreCase)
        || name.StartsWith("_CopyOnWrite", StringComparison.OrdinalIgnoreCase)
        || name.Equals("DisableCopyOnWrite", StringComparison.OrdinalIgnoreCase); // the 1.x package's switch, which we honour

    private static IEnumerable<string> UnintendedDifferences(EvaluationSnapshot stock, EvaluationSnapshot adopted, AdoptionPair pair, PackageRoute route)
    {
        string sdkFolder = Path.Combine(SdkPackage.PackageCache, "microsoft.build.copyonwrite", SdkPackage.Version, "Sdk") + Path.DirectorySeparatorChar;
        foreach (string name in stock.Properties.Keys.Union(adopted.Properties.Keys, StringComparer.OrdinalIgnoreCase).Order(StringComparer.Ordinal))
        {
            string stockValue = Normalized(stock.Properties.GetValueOrDefault(name) ?? "", pair);
            string adoptedValue = Normalized(adopted.Properties.GetValueOrDefault(name) ?? "", pair);
            if (stockValue == adoptedValue || (IsOurs(name) && !stock.Properties.ContainsKey(name)))
            {
                continue;
            }

            if (IntendedDifferences.TryGetValue(name, out var intended) && intended.Holds(stockValue, adoptedValue, sdkFolder.TrimEnd(Path.DirectorySeparatorChar)))
            {
                continue;
            }

            yield return $"property {name}: stock \"{stockValue}\", adopted \"{adoptedValue}\"";
        }

        List<string> stockItems = stock.Items.Select(item => Normalized(item, pair)).ToList();
        foreach (string item in adopted.Items.Select(item => Normalized(item, pair)))
        {
            if (!stockItems.Remove(item) && !(route == PackageRoute.PackageReference && item.StartsWith("PackageReference Microsoft.Build.CopyOnWrite ", StringComparison.Ordinal)))
            {
                yield return "item only when adopted: " + item;
            }
        }

        foreach (string item in stockItems)
        {
            yield return "item only in the stock project: " + item;
        }
    }

    /// <summary>The two repositories live in two folders: their paths (also without the root, as MSBuildProjectDirectoryNoRoot) are compared as one.</summary>
    private static string Normalized(string value, AdoptionPair pair)
        => new[] { pair.Adopted, pair.Stock, pair.Adopted.TrimStart('/'), pair.Stock.TrimStart('/') }
            .Aggregate(value, (normalized, folder) => normalized.Replace(folder, "<repository>", StringComparison.Ordinal));

    private static AdoptionPair Write(string shape, PackageRoute route)
    {
        string folder = TestScratch.NewFolder("evaluation-" + shape.Split(' ')[0]);
        return shape switch
        {
            "console" => AdoptionPair.Create(folder, route, Console),
            "library" => AdoptionPair.Create(folder, route, Library),
            "test project" => AdoptionPair.Create(folder, route, TestProject),
            "web project" => AdoptionPair.Create(folder, route, WebProject),
            "multi-targeting" => AdoptionPair.Create(folder, route, MultiTargeting),
            "warnings properties in Directory.Build.props and .targets" => AdoptionPair.Create(folder, route, MSBuildWarningsProject, WarningsPropertiesBefore, WarningsPropertiesAfter),
            "ArtifactsPath" => AdoptionPair.Create(folder, route, Library, ArtifactsPathProps),
            _ => throw new ArgumentException("no such shape: " + shape, nameof(shape)),
        };
    }
}
