using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Microsoft.Build.CopyOnWrite.Measure.PackageCache;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.PackageCache;

/// <summary>
/// `dotnet cow-measure verify` on package folders NuGet itself extracted: a real restore, damaged the way a build with
/// MSBuild's hard links damages it (dotnet/msbuild#8273) or by hand, one way a test. Every run is checked to leave the
/// package folder as it found it, bytes and times.
/// </summary>
[TestClass]
public sealed class VerifyCommandTests
{
    private const string SampleId = "Cow.Verify.Sample";

    // The sample package's files as NuGet extracts them, by entry: %2B is '+' on disk, the root .nuspec is ID.nuspec in
    // lower case; the zip's packaging parts and its folder entry are not extracted.
    private static readonly (string Entry, string OnDisk, int Bytes, CompressionLevel Compression)[] SampleFiles =
    [
        ("content/data.bin", "content/data.bin", 256 << 10, CompressionLevel.Optimal),
        ("content/stored.bin", "content/stored.bin", 64 << 10, CompressionLevel.NoCompression),
        ("docs/a%2Bb c/readme.txt", "docs/a+b c/readme.txt", 3000, CompressionLevel.Optimal),
        ("tools/empty.txt", "tools/empty.txt", 0, CompressionLevel.Optimal),
    ];

    private static readonly Lazy<(string Consumer, string Cache)> Sample = new(RestoreSamplePackage);

    /// <summary>
    /// A package cache just restored into (by `dotnet restore` of a project naming it with RestorePackagesPath), found
    /// from the project's folder as the doctor finds it: exit 0, every file checked, the folder untouched.
    /// </summary>
    [TestMethod]
    public void A_package_cache_just_restored_found_from_the_project_verifies_with_exit_code_0()
    {
        (string consumer, string cache) = Sample.Value;
        string json = Path.Combine(TestScratch.NewFolder("verify-report"), "verify.json");

        (int exit, string output) = VerifyReadOnly(cache, consumer, [], json);

        Assert.AreEqual(0, exit, output);
        StringAssert.Contains(output, $"Package folders of {Path.Combine(consumer, "Consumer.csproj")}, as MSBuild evaluates it:");
        StringAssert.Contains(output, $"NuGet package cache {cache}: 1 package");
        StringAssert.Contains(output, "Result: every file of every package matches its .nupkg.");
        using JsonDocument report = JsonDocument.Parse(File.ReadAllText(json));
        Assert.AreEqual("intact", report.RootElement.GetProperty("result").GetString());
        Assert.AreEqual(1, report.RootElement.GetProperty("packagesChecked").GetInt32());
        Assert.AreEqual(SampleFiles.Length + 1, report.RootElement.GetProperty("filesChecked").GetInt32(), "the files and the .nuspec");
        Assert.AreEqual(0, report.RootElement.GetProperty("differences").GetArrayLength());
    }

    /// <summary>
    /// dotnet/msbuild#8273 for real: MSBuild's own Copy with CreateHardLinksForCopyLocalIfPossible hard-links the package's
    /// assembly into bin/, a tool writes into bin/'s file in place, and the package cache's file has changed with it.
    /// verify finds the cache whole after the restore, then names exactly that file, its two links, and the folder to
    /// delete; deleting it as printed and restoring brings the package back whole.
    /// </summary>
    [TestMethod]
    public void A_write_into_an_output_hard_linked_by_MSBuilds_Copy_is_found_with_its_two_links_and_the_folder_to_delete()
    {
        LinkingSolution solution = RestoredSolutionWithoutOurSdk("verify-damaged");
        Assert.AreEqual(0, VerifyReadOnly(solution.PackageCache, null, [solution.PackageCache], null).Exit, "just restored, the package is whole");
        solution.Build();
        Assert.AreEqual(2, UnixFileFacts.Of(solution.PackageAssemblyInOutput).Links, "premise: MSBuild's Copy hard-linked the package's assembly into bin/");
        using (var output = new FileStream(solution.PackageAssemblyInOutput, FileMode.Open, FileAccess.Write))
        {
            output.Position = 1000;
            output.Write("patched in place"u8);
        }

        string json = Path.Combine(TestScratch.NewFolder("verify-report"), "verify.json");
        string packageFolder = Path.GetFullPath(Path.Combine(solution.PackageCache, "newtonsoft.json", LinkingSolution.FirstVersion));

        (int exit, string text) = VerifyReadOnly(solution.PackageCache, null, [solution.PackageCache], json);

        Assert.AreEqual(VerifyCommand.PackagesDiffer, exit, text);
        using (JsonDocument report = JsonDocument.Parse(File.ReadAllText(json)))
        {
            JsonElement difference = report.RootElement.GetProperty("differences").EnumerateArray().Single();
            Assert.AreEqual("newtonsoft.json", difference.GetProperty("package").GetString());
            Assert.AreEqual(LinkingSolution.FirstVersion, difference.GetProperty("version").GetString());
            Assert.AreEqual("lib/net6.0/Newtonsoft.Json.dll", difference.GetProperty("file").GetString());
            Assert.AreEqual("content", difference.GetProperty("kind").GetString());
            Assert.AreEqual(2, difference.GetProperty("links").GetInt32());
            Assert.IsFalse(difference.GetProperty("symbolicLink").GetBoolean());
            Assert.AreEqual(packageFolder, report.RootElement.GetProperty("deleteToRepair").EnumerateArray().Single().GetString());
        }

        StringAssert.Contains(text, $"DAMAGED newtonsoft.json {LinkingSolution.FirstVersion} in {packageFolder}:");
        StringAssert.Contains(text, "lib/net6.0/Newtonsoft.Json.dll: content: other bytes than the package's from byte 1,000 on");
        StringAssert.Contains(text, "2 links: the file has other names");
        string delete = $"rm -rf '{packageFolder}'";
        StringAssert.Contains(text, delete);

        ProcessResult deleted = ProcessRunner.Run("bash", "-c", delete);
        Assert.IsTrue(deleted.Succeeded, deleted.Output);
        solution.Restore();
        Assert.AreEqual(0, VerifyReadOnly(solution.PackageCache, null, [solution.PackageCache], null).Exit, "restored again, the package is whole");
    }

    /// <summary>The sample package as NuGet extracted it is what verify expects, file for file: the facts it holds of NuGet's extraction.</summary>
    [TestMethod]
    public void NuGets_own_extraction_of_a_package_with_escaped_names_packaging_parts_and_stored_entries_verifies()
    {
        string cache = Sample.Value.Cache;
        string packageFolder = Path.Combine(cache, SampleId.ToLowerInvariant(), "1.0.0");
        string[] nuGetsOwn = [".nupkg.metadata", "cow.verify.sample.1.0.0.nupkg", "cow.verify.sample.1.0.0.nupkg.sha512"];

        (int exit, string output) = VerifyReadOnly(cache, null, [cache], null);

        Assert.AreEqual(0, exit, output);
        CollectionAssert.AreEquivalent(
            SampleFiles.Select(f => f.OnDisk).Append("cow.verify.sample.nuspec").Concat(nuGetsOwn).ToList(),
            Directory.GetFiles(packageFolder, "*", SearchOption.AllDirectories).Select(f => Path.GetRelativePath(packageFolder, f).Replace('\\', '/')).ToList(),
            "what NuGet extracted");
        StringAssert.Contains(output, $"Checked 1 package, each against its own .nupkg: {SampleFiles.Length + 1} files");
    }

    [TestMethod]
    public void A_truncated_file_is_a_size_difference()
    {
        (string cache, string package) = SampleCopy();
        using (var file = new FileStream(Path.Combine(package, "content", "data.bin"), FileMode.Open, FileAccess.Write))
        {
            file.SetLength(1000);
        }

        (int exit, string output) = VerifyReadOnly(cache, null, [cache], null);

        Assert.AreEqual(VerifyCommand.PackagesDiffer, exit, output);
        StringAssert.Contains(output, $"DAMAGED cow.verify.sample 1.0.0 in {package}:");
        StringAssert.Contains(output, "content/data.bin: size: 1,000 bytes on disk, 262,144 bytes in the package; 1 link");
        StringAssert.Contains(output, $"rm -rf '{package}'");
    }

    [TestMethod]
    public void A_missing_file_is_named()
    {
        (string cache, string package) = SampleCopy();
        File.Delete(Path.Combine(package, "docs", "a+b c", "readme.txt"));

        (int exit, string output) = VerifyReadOnly(cache, null, [cache], null);

        Assert.AreEqual(VerifyCommand.PackagesDiffer, exit, output);
        StringAssert.Contains(output, "docs/a+b c/readme.txt: missing: not on disk\n");
        StringAssert.Contains(output, "Result: 1 package damaged, of 1.");
    }

    [TestMethod]
    public void A_package_whose_nupkg_is_missing_cannot_be_verified()
    {
        (string cache, string package) = SampleCopy();
        File.Delete(Path.Combine(package, "cow.verify.sample.1.0.0.nupkg"));

        (int exit, string output) = VerifyReadOnly(cache, null, [cache], null);

        Assert.AreEqual(VerifyCommand.PackagesDiffer, exit, output);
        StringAssert.Contains(output, $"CANNOT BE VERIFIED cow.verify.sample 1.0.0 in {package}: its package file cow.verify.sample.1.0.0.nupkg is missing");
        StringAssert.Contains(output, "Result: 1 package that cannot be verified, of 1.");
        StringAssert.Contains(output, $"rm -rf '{package}'");
    }

    [TestMethod]
    public void A_package_whose_nupkg_is_cut_short_cannot_be_verified()
    {
        (string cache, string package) = SampleCopy();
        using (var nupkg = new FileStream(Path.Combine(package, "cow.verify.sample.1.0.0.nupkg"), FileMode.Open, FileAccess.Write))
        {
            nupkg.SetLength(nupkg.Length / 2);
        }

        (int exit, string output) = VerifyReadOnly(cache, null, [cache], null);

        Assert.AreEqual(VerifyCommand.PackagesDiffer, exit, output);
        StringAssert.Contains(output, $"CANNOT BE VERIFIED cow.verify.sample 1.0.0 in {package}: its package file cow.verify.sample.1.0.0.nupkg is not a readable zip");
        StringAssert.Contains(output, $"rm -rf '{package}'");
    }

    [TestMethod]
    public void A_folder_that_is_not_a_package_folder_is_bad_input_that_says_what_was_expected()
    {
        string folder = TestScratch.NewFolder("not-a-cache");
        Directory.CreateDirectory(Path.Combine(folder, "src", "App"));
        File.WriteAllText(Path.Combine(folder, "src", "App", "Program.cs"), "// not a package");
        var output = new StringWriter();
        var error = new StringWriter();

        int exit = VerifyCommand.Run(null, [folder], null, output, error);

        Assert.AreEqual(Program.BadInput, exit, error.ToString());
        Assert.AreEqual(
            $"dotnet cow-measure verify --packages {folder}: not a NuGet package folder: expected ID/VERSION/ID.VERSION.nupkg below it with the files NuGet extracted from it, as in ~/.nuget/packages, "
                + "and none of its folders holds a package. Name the folder `dotnet nuget locals global-packages --list` prints, or a fallback folder.",
            error.ToString().Trim());
        Assert.AreEqual(string.Empty, output.ToString());
    }

    [TestMethod]
    public void Cancelled_it_says_so_and_prints_no_result()
    {
        var output = new StringWriter();
        var error = new StringWriter();

        int exit = VerifyCommand.Run(null, [Sample.Value.Cache], null, output, error, cancellation: new System.Threading.CancellationToken(canceled: true));

        Assert.AreEqual(Program.MeasurementFailed, exit);
        Assert.AreEqual("dotnet cow-measure verify: cancelled; nothing was changed.", error.ToString().Trim());
        Assert.AreEqual(string.Empty, output.ToString());
    }

    [TestMethod]
    public void The_progress_line_says_packages_files_and_rate_and_is_erased_at_the_end()
    {
        var written = new StringWriter();
        TextWriter terminal = TextWriter.Synchronized(written); // read here while the progress thread writes
        string Written()
        {
            lock (terminal)
            {
                return written.ToString();
            }
        }

        using (var progress = new VerifyProgress(terminal, packages: 3, every: TimeSpan.FromMilliseconds(10)))
        {
            progress.FileDone();
            progress.BytesRead(3 << 20);
            progress.PackageDone();
            DateTime deadline = DateTime.UtcNow.AddSeconds(30);
            while (!Written().Contains("verify: ", StringComparison.Ordinal) && DateTime.UtcNow < deadline)
            {
                System.Threading.Thread.Sleep(10);
            }
        }

        string line = Written();
        StringAssert.StartsWith(line, "\rverify: 1 of 3 packages, 1 files, 3.0 MiB read (");
        StringAssert.EndsWith(line, "\r", "the line is erased, so the report starts on a clean line");
    }

    /// <summary>A solution of LinkingSolution's kind without our SDK (MSBuild's own Copy), in a scratch folder with its package cache, restored.</summary>
    private static LinkingSolution RestoredSolutionWithoutOurSdk(string purpose)
    {
        string folder = TestScratch.NewFolder(purpose);
        LinkingSolution solution = LinkingSolution.Create(Directory.CreateDirectory(Path.Combine(folder, "solution")).FullName, Path.Combine(folder, "packages"), withOurSdk: false);
        ProcessResult restore = solution.Dotnet("restore", solution.SolutionFile);
        if (!restore.Succeeded && restore.Output.Contains("NU1301", StringComparison.Ordinal))
        {
            Assert.Inconclusive($"SKIPPED: this test restores {LinkingSolution.PackageId} {LinkingSolution.FirstVersion} from the package registry, which cannot be reached here:\n{restore.Output}");
        }

        Assert.IsTrue(restore.Succeeded, "the restore failed:\n" + restore.Output);
        return solution;
    }

    /// <summary>
    /// Runs verify in this process, and fails the test if it changed anything in <paramref name="folder"/>: a file's
    /// bytes, size or time, a folder's time (a file made and removed), an entry added or removed.
    /// </summary>
    private static (int Exit, string Output) VerifyReadOnly(string folder, string? named, string[] packages, string? json)
    {
        IReadOnlyDictionary<string, string> before = Snapshot(folder);
        var output = new StringWriter();

        int exit = VerifyCommand.Run(named, packages, json, output, output);

        CollectionAssert.AreEqual(before.ToList(), Snapshot(folder).ToList(), $"verify changed {folder}");
        return (exit, output.ToString());
    }

    private static IReadOnlyDictionary<string, string> Snapshot(string folder)
        => Directory.EnumerateFileSystemEntries(folder, "*", SearchOption.AllDirectories).Append(folder)
            .Order(StringComparer.Ordinal)
            .ToDictionary(
                path => path,
                path => File.GetAttributes(path).HasFlag(FileAttributes.Directory)
                    ? $"folder {Directory.GetLastWriteTimeUtc(path).Ticks}"
                    : $"file {File.GetLastWriteTimeUtc(path).Ticks} {Convert.ToHexString(SHA256.HashData(File.ReadAllBytes(path)))}");

    /// <summary>A copy of the restored sample package folder, as a package cache of its own to damage.</summary>
    private static (string Cache, string Package) SampleCopy()
    {
        string cache = TestScratch.NewFolder("verify-sample-copy");
        ProcessResult copied = ProcessRunner.Run("cp", "-a", Sample.Value.Cache + "/.", cache);
        Assert.IsTrue(copied.Succeeded, copied.Output);
        return (cache, Path.Combine(cache, SampleId.ToLowerInvariant(), "1.0.0"));
    }

    /// <summary>
    /// A package made here (no registry needed) with what NuGet's extraction treats apart: an escaped name, a stored
    /// entry, an empty file, a folder entry, the packaging parts; restored by `dotnet restore` of a project from a local
    /// source into the package cache its RestorePackagesPath names. The tests that damage it damage a copy.
    /// </summary>
    private static (string Consumer, string Cache) RestoreSamplePackage()
    {
        string folder = TestScratch.NewFolder("verify-sample");
        string source = Directory.CreateDirectory(Path.Combine(folder, "source")).FullName;
        string cache = Path.Combine(folder, "packages");
        using (ZipArchive package = ZipFile.Open(Path.Combine(source, $"{SampleId}.1.0.0.nupkg"), ZipArchiveMode.Create))
        {
            void Add(string name, byte[] bytes, CompressionLevel compression = CompressionLevel.Optimal)
            {
                using Stream entry = package.CreateEntry(name, compression).Open();
                entry.Write(bytes);
            }

            Add($"{SampleId}.nuspec", Encoding.UTF8.GetBytes($"""
                <?xml version="1.0" encoding="utf-8"?>
                <package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">
                  <metadata><id>{SampleId}</id><version>1.0.0</version><authors>tests</authors><description>Made by the verify tests.</description></metadata>
                </package>
                """));
            foreach ((string entry, _, int bytes, CompressionLevel compression) in SampleFiles)
            {
                Add(entry, RandomNumberGenerator.GetBytes(bytes), compression);
            }

            package.CreateEntry("docs/");
            Add("[Content_Types].xml", "<Types />"u8.ToArray());
            Add("_rels/.rels", "<Relationships />"u8.ToArray());
            Add("package/services/metadata/core-properties/0123456789abcdef.psmdcp", "<coreProperties />"u8.ToArray());
        }

        string consumer = Directory.CreateDirectory(Path.Combine(folder, "consumer")).FullName;
        File.WriteAllText(Path.Combine(consumer, "Consumer.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup><TargetFramework>net10.0</TargetFramework><RestorePackagesPath>{cache}</RestorePackagesPath></PropertyGroup>
              <ItemGroup><PackageReference Include="{SampleId}" Version="1.0.0" /></ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(consumer, "NuGet.config"), $"""
            <configuration><packageSources><clear /><add key="sample" value="{source}" /></packageSources></configuration>
            """);
        SdkPackage.Dotnet(consumer, "restore", "-p:NuGetAudit=false");
        return (consumer, cache);
    }
}
