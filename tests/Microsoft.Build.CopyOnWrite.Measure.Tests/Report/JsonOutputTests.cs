using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using System;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;
using Microsoft.Build.CopyOnWrite.Measure.Forecast;
using Microsoft.Build.CopyOnWrite.Measure.PackageCache;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Measure.SelfTest;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Report;

/// <summary>
/// The JSON the tool writes (doctor --json, the self-test's --selftest-json, verify --json, predict --json) keeps its
/// fields and values: each report is made from the same fixed inputs (volumes from an inspector of our own, files
/// in a fixed folder) and parsed, and compared with the document the tool wrote for them at d84d593
/// (golden/*.json, captured with COW_CAPTURE_JSON=1 before the writers moved to System.Text.Json). Names, values,
/// nulls and the order of arrays count; the order of an object's fields and the white space do not.
/// </summary>
[TestClass]
public sealed class JsonOutputTests
{
    /// <summary>The forecast's files, in this run's scratch; the golden document names them under <see cref="GoldenFolder"/>.</summary>
    private static readonly Lazy<string> ForecastFolder = new(() => TestScratch.NewFolder("json-golden"));

    private const string GoldenFolder = "/tmp/cow-json-golden";

    private static string Folder => ForecastFolder.Value;

    private static string Golden(string name) => Path.Combine(RepositoryLayout.Root, "tests", "Microsoft.Build.CopyOnWrite.Measure.Tests", "Report", "golden", name + ".json");

    [TestMethod]
    public void Doctor_json_has_the_fields_and_values_it_had() => AssertAsBefore("doctor", DoctorJson());

    [TestMethod]
    public void Self_test_json_has_the_fields_and_values_it_had() => AssertAsBefore("selftest", SelfTestJson());

    [TestMethod]
    public void Verify_json_has_the_fields_and_values_it_had() => AssertAsBefore("verify", VerifyJson());

    [TestMethod]
    public void Predict_json_has_the_fields_and_values_it_had() => AssertAsBefore("predict", PredictJson());

    [TestMethod]
    public void The_comparison_sees_a_changed_value_a_missing_field_and_another_order_of_an_array()
    {
        Assert.IsNull(Difference("""{"a":[1,2],"b":{"c":"x","d":null}}""", """{ "b": {"d": null, "c": "x"}, "a": [1, 2.0] }"""));
        Assert.AreEqual("$.b.c: \"x\" before, \"y\" now", Difference("""{"b":{"c":"x"}}""", """{"b":{"c":"y"}}"""));
        Assert.AreEqual("$.b: fields c before, (none) now", Difference("""{"b":{"c":"x"}}""", """{"b":{}}"""));
        Assert.AreEqual("$.a[0]: 1 before, 2 now", Difference("""{"a":[1,2]}""", """{"a":[2,1]}"""));
        Assert.AreEqual("$.a: Null before, False now", Difference("""{"a":null}""", """{"a":false}"""));
    }

    private static void AssertAsBefore(string name, string json)
    {
        string golden = Golden(name);
        if (Environment.GetEnvironmentVariable("COW_CAPTURE_JSON") == "1")
        {
            Directory.CreateDirectory(Path.GetDirectoryName(golden)!);
            File.WriteAllText(golden, json);
        }

        Assert.IsTrue(File.Exists(golden), $"no golden document {golden}");
        string? difference = Difference(File.ReadAllText(golden), json);
        Assert.IsNull(difference, $"{name}'s JSON changed: {difference}\n{json}");
    }

    /// <summary>The first place where the two documents differ, as "$.path: before, now", or null.</summary>
    private static string? Difference(string before, string now)
    {
        using JsonDocument a = JsonDocument.Parse(before);
        using JsonDocument b = JsonDocument.Parse(now);
        return Difference("$", a.RootElement, b.RootElement);
    }

    private static string? Difference(string path, JsonElement a, JsonElement b)
    {
        bool IsBool(JsonElement e) => e.ValueKind is JsonValueKind.True or JsonValueKind.False;
        if (a.ValueKind != b.ValueKind && !(IsBool(a) && IsBool(b)))
        {
            return $"{path}: {a.ValueKind} before, {b.ValueKind} now";
        }

        switch (a.ValueKind)
        {
            case JsonValueKind.Object:
                string[] namesA = a.EnumerateObject().Select(p => p.Name).Order(StringComparer.Ordinal).ToArray();
                string[] namesB = b.EnumerateObject().Select(p => p.Name).Order(StringComparer.Ordinal).ToArray();
                if (!namesA.SequenceEqual(namesB))
                {
                    static string Names(string[] names) => names.Length == 0 ? "(none)" : string.Join(", ", names);
                    return $"{path}: fields {Names(namesA)} before, {Names(namesB)} now";
                }

                return namesA.Select(n => Difference($"{path}.{n}", a.GetProperty(n), b.GetProperty(n))).FirstOrDefault(d => d is not null);
            case JsonValueKind.Array:
                if (a.GetArrayLength() != b.GetArrayLength())
                {
                    return $"{path}: {a.GetArrayLength()} items before, {b.GetArrayLength()} now";
                }

                return a.EnumerateArray().Zip(b.EnumerateArray()).Select((pair, i) => Difference($"{path}[{i}]", pair.First, pair.Second)).FirstOrDefault(d => d is not null);
            case JsonValueKind.Number:
                return a.GetDecimal() == b.GetDecimal() ? null : $"{path}: {a.GetRawText()} before, {b.GetRawText()} now";
            case JsonValueKind.String:
                return a.GetString() == b.GetString() ? null : $"{path}: \"{a.GetString()}\" before, \"{b.GetString()}\" now";
            default:
                return a.ValueKind == b.ValueKind ? null : $"{path}: {a.ValueKind} before, {b.ValueKind} now";
        }
    }

    private static string DoctorJson()
    {
        CheckedFolder[] folders =
        [
            new(FolderRole.Repository, "/golden/xfs/repo"),
            new(FolderRole.BuildOutput, "/golden/xfs/repo/bin/Debug/net10.0"),
            new(FolderRole.IntermediateOutput, "/golden/xfs/repo/obj/Debug/net10.0"),
            new(FolderRole.PackageCache, "/golden/ext4/home/me/.nuget/packages"),
            new(FolderRole.PackageFallbackFolder, "/golden/unknown/fallback \"quoted\" é"),
            new(FolderRole.DotnetInstallation, "/golden/ext4/usr/share/dotnet"),
            new(FolderRole.TempFolder, "/golden/tmpfs/tmp"),
            new(FolderRole.NamedFolder, "/golden/btrfs/spare"),
        ];
        DoctorCheck check = DoctorCheck.Run(folders, new GoldenVolumes(), AdviceOS.Linux);
        return DoctorReport.Json(check);
    }

    private static string SelfTestJson()
    {
        var report = new SelfTestReport([("OS", "Linux 6.1 \"golden\""), ("CPU", "2 cores"), ("tab", "a\tb")]);
        var xfs = new SelfTestVolume("/golden/xfs/repo/obj", Facts("/golden/xfs", "xfs", true), "/dev/loop0 on /golden/xfs type xfs (rw,relatime)") { Cloned = 12 };
        xfs.Checks.Add(new SelfTestCheck("fresh files", true, "12 files cloned, every byte equal", false));
        xfs.Checks.Add(new SelfTestCheck("held open", false, "MSB3021 \"x\" \\ y", true));
        xfs.Timings.Add(new SelfTestTiming(4096, new Spread(12.345, 10.01, 20.99), new Spread(30.05, 28, 41.26)));
        xfs.Timings.Add(new SelfTestTiming(64 << 20, new Spread(100.04, 99.95, 101.5), new Spread(50000.5, 49000.25, 51000.75)));
        var ext4 = new SelfTestVolume("/golden/ext4/home", Facts("/golden/ext4", "ext4", false), null);
        ext4.Checks.Add(new SelfTestCheck("fresh files", true, "copied: ext4 cannot clone", false));
        report.Volumes.Add(xfs);
        report.Volumes.Add(ext4);
        return report.Json();
    }

    private static string VerifyJson()
    {
        var damaged = new ExtractedPackage("newtonsoft.json", "13.0.1", "/golden/packages/newtonsoft.json/13.0.1");
        var unreadable = new ExtractedPackage("cut.zip", "1.0.0", "/golden/packages/cut.zip/1.0.0");
        var result = new CacheVerification(
            3,
            120,
            5_000_000,
            2,
            "/golden/packages/a/1.0.0/lib/a.dll",
            [
                new FileDifference(damaged, "lib/net6.0/Newtonsoft.Json.dll", DifferenceKind.Content, "other bytes from byte 1,000 on", 2, false),
                new FileDifference(damaged, "lib/x.dll", DifferenceKind.Missing, "not on disk", null, false),
                new FileDifference(damaged, "lib/y.dll", DifferenceKind.NotAFile, "a symbolic link to /elsewhere", 1, true),
            ],
            [new UnverifiedPackage(unreadable, "its package file is not a readable zip", true)],
            TimeSpan.FromMilliseconds(1234.5));
        return VerifyReport.Json([new VerifiedFolder(FolderRole.PackageCache, "/golden/packages", 3, null), new VerifiedFolder(FolderRole.PackageFallbackFolder, "/golden/fallback", 0, "not there")], result);
    }

    private static string PredictJson()
    {
        // Files on disk in a fixed folder (the forecast stats them): two that clone on one volume, a small one, an
        // empty one, one gone since the build, one linked.
        Directory.CreateDirectory(Path.Combine(Folder, "src"));
        Directory.CreateDirectory(Path.Combine(Folder, "bin"));
        void Write(string name, int bytes) => File.WriteAllBytes(Path.Combine(Folder, name), new byte[bytes]);
        foreach (string side in new[] { "src", "bin" })
        {
            Write($"{side}/big.bin", 3 << 20);
            Write($"{side}/small.txt", 2000);
            Write($"{side}/empty.txt", 0);
        }

        Write("src/gone.bin", 100);
        string P(string name) => Path.Combine(Folder, name);
        var start = new DateTime(2026, 1, 2, 3, 4, 5, DateTimeKind.Utc);
        CopyTaskRun Run(string project, int startMs, int endMs, bool ours, FileCopy[] files, int skipped)
            => new(project, start.AddMilliseconds(startMs), start.AddMilliseconds(endMs), ours, files, skipped);
        var build = new BuildCopies("/golden/msbuild.binlog", start, start.AddSeconds(10), true,
        [
            Run("/golden/App/App.csproj", 1000, 1250, false, [new(P("src/big.bin"), P("bin/big.bin"), CopyKind.Copied), new(P("src/small.txt"), P("bin/small.txt"), CopyKind.Copied)], 3),
            Run("/golden/Lib/Lib.csproj", 1100, 1400, true, [new(P("src/empty.txt"), P("bin/empty.txt"), CopyKind.Copied), new(P("src/gone.bin"), P("bin/gone.bin"), CopyKind.Copied), new(P("src/big.bin"), P("bin/linked.bin"), CopyKind.HardLinked)], 0),
        ]);
        return ForecastReport.Json(CopyForecast.From(build, new GoldenVolumes())).Replace(Folder, GoldenFolder, StringComparison.Ordinal);
    }

    private static VolumeFacts Facts(string root, string fileSystem, bool? canClone)
        => new(root, fileSystem, canClone, canClone is null ? "unknown \"why\"" : $"a probe clone in {root}", canClone == true ? true : null, null, null, fileSystem == "tmpfs" ? "tmpfs \"used\" moves" : null, "8:" + root.Length);

    /// <summary>Volumes by the first folder under /golden (xfs, btrfs, ext4, tmpfs, unknown); the forecast's fixed folder on xfs.</summary>
    private sealed class GoldenVolumes : VolumeFactsInspector
    {
        public override VolumeLocation Locate(string path) => Of(path).Location;

        public override VolumeFacts Inspect(string folder, bool mayWrite) => Of(folder);

        private static VolumeFacts Of(string path)
        {
            if (path.StartsWith(Folder, StringComparison.Ordinal))
            {
                return Facts(Folder, "xfs", true) with { FileSystemId = "8:" + GoldenFolder.Length };
            }

            string kind = path.Split('/', StringSplitOptions.RemoveEmptyEntries).ElementAtOrDefault(1) ?? "unknown";
            return Facts("/golden/" + kind, kind, kind switch { "xfs" or "btrfs" => true, "ext4" or "tmpfs" => false, _ => null });
        }
    }
}
