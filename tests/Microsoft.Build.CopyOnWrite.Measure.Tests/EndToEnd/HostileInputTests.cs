using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;
using Microsoft.Build.CopyOnWrite.Measure.Forecast;
using Microsoft.Build.CopyOnWrite.Measure.PackageCache;
using Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.EndToEnd;

/// <summary>
/// Every command fed what a user's disk can hold, made here as a fuzzer would (seeded, so a failure repeats) beside the
/// cases named in issue 59: names with NUL and escapes, symbolic links at and above a package's file, FIFOs and
/// devices, zips cut short and files that are no zip, entries that climb out of the folder, binary logs of random bytes,
/// empty or cut short, and project paths that are missing, text or garbage. Each run ends within a minute, with a
/// documented exit code, each odd file named, and the one good package never blamed.
/// </summary>
[TestClass]
public sealed class HostileInputTests
{
    private const int Seed = 59;
    private const int FuzzedPackages = 24;
    private static readonly TimeSpan Minute = TimeSpan.FromMinutes(1);

    [TestMethod]
    public void Verify_names_each_hostile_package_and_file_goes_on_and_does_not_blame_the_good_package()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Inconclusive("SKIPPED: FIFOs and symbolic links as made here are Linux's");
        }

        string root = TestScratch.NewFolder("hostile-cache");
        string outside = TestScratch.NewFolder("hostile-outside");
        byte[] dll = Bytes(new Random(Seed), 5000);

        // The good package, extracted as NuGet does.
        Extracted(root, "good.pkg", ("lib/net8.0/Good.dll", dll), ("readme.txt", "hello"u8.ToArray()));

        // lib/a%00b.dll: a NUL once unescaped; a file lib/a of the same size beside it (what a NUL-truncated path finds).
        string nul = Package(root, "nul.name", ("lib/a%00b.dll", dll), ("lib/ok.dll", dll));
        Write(nul, "lib/a", dll);
        Write(nul, "lib/ok.dll", dll);

        // An entry that climbs out of the package's folder, and one rooted, with a file where each would land.
        string climb = Package(root, "climb.out", ("../../escaped.txt", dll), ("/etc/rooted.txt", dll), ("lib/ok.dll", dll));
        Write(climb, "lib/ok.dll", dll);
        File.WriteAllBytes(Path.Combine(root, "escaped.txt"), dll);

        // The right bytes, through a symbolic link to a file outside, and through a linked folder.
        File.WriteAllBytes(Path.Combine(outside, "x.dll"), dll);
        string fileLink = Package(root, "link.file", ("lib/x.dll", dll));
        Directory.CreateDirectory(Path.Combine(fileLink, "lib"));
        File.CreateSymbolicLink(Path.Combine(fileLink, "lib", "x.dll"), Path.Combine(outside, "x.dll"));
        string folderLink = Package(root, "link.folder", ("lib/deep/x.dll", dll));
        Directory.CreateDirectory(Path.Combine(outside, "deep"));
        File.WriteAllBytes(Path.Combine(outside, "deep", "x.dll"), dll);
        Directory.CreateSymbolicLink(Path.Combine(folderLink, "lib"), outside);

        // A FIFO where a file is, a FIFO as the .nupkg, /dev/zero (endless) linked as the .nupkg.
        string fifoFile = Package(root, "fifo.file", ("lib/x.dll", dll));
        MakeFifo(Path.Combine(Directory.CreateDirectory(Path.Combine(fifoFile, "lib")).FullName, "x.dll"));
        string fifoPackage = Folder(root, "fifo.nupkg");
        MakeFifo(Path.Combine(fifoPackage, "fifo.nupkg.1.0.0.nupkg"));
        string device = Folder(root, "device.nupkg");
        File.CreateSymbolicLink(Path.Combine(device, "device.nupkg.1.0.0.nupkg"), "/dev/zero");

        // Zips cut short, and a .nupkg of random bytes.
        string cut = Extracted(root, "cut.zip", ("lib/x.dll", dll));
        byte[] whole = File.ReadAllBytes(Nupkg(cut));
        File.WriteAllBytes(Nupkg(cut), whole[..(whole.Length / 2)]);
        string notZip = Extracted(root, "not.zip", ("lib/x.dll", dll));
        File.WriteAllBytes(Nupkg(notZip), Bytes(new Random(Seed + 1), whole.Length));

        // The fuzzed: random entry names (NUL, %-escapes, .., control characters, odd letters) beside one plain name
        // whose file is missing, so each such package must be named with that file; and zips with random bytes changed.
        var random = new Random(Seed);
        var fuzzedNames = new List<string>();
        for (int i = 0; i < FuzzedPackages; i++)
        {
            string id = $"fuzz.names{i}";
            var entries = Enumerable.Range(0, 4).Select(_ => (RandomName(random), Bytes(random, random.Next(0, 300)))).Append(($"lib/plain{i}.dll", dll)).ToArray();
            Package(root, id, entries);
            fuzzedNames.Add(id);
        }

        var fuzzedBytes = new List<string>();
        for (int i = 0; i < FuzzedPackages; i++)
        {
            string id = $"fuzz.bytes{i}";
            string folder = Extracted(root, id, ("lib/x.dll", dll), ("content/data.txt", Bytes(random, 700)));
            byte[] zip = File.ReadAllBytes(Nupkg(folder));
            for (int change = random.Next(1, 12); change > 0; change--)
            {
                zip[random.Next(zip.Length)] = (byte)random.Next(256);
            }

            File.WriteAllBytes(Nupkg(folder), random.Next(4) == 0 ? zip[..random.Next(zip.Length)] : zip);
            fuzzedBytes.Add(id);
        }

        string json = Path.Combine(TestScratch.NewFolder("hostile-report"), "verify.json");
        var output = new StringWriter();

        int exit = WithinAMinute(() => VerifyCommand.Run(null, [root], json, output, output));

        string text = output.ToString();
        Assert.AreEqual(VerifyCommand.PackagesDiffer, exit, text);
        using JsonDocument report = JsonDocument.Parse(File.ReadAllText(json));
        var differences = report.RootElement.GetProperty("differences").EnumerateArray()
            .Select(d => (Package: d.GetProperty("package").GetString()!, File: d.GetProperty("file").GetString()!, Kind: d.GetProperty("kind").GetString()!, Link: d.GetProperty("symbolicLink").GetBoolean())).ToList();
        var unverified = report.RootElement.GetProperty("cannotBeVerified").EnumerateArray()
            .ToDictionary(u => u.GetProperty("package").GetString()!, u => u.GetProperty("reason").GetString()!);
        string Listed() => text;

        Assert.IsFalse(differences.Any(d => d.Package == "good.pkg") || unverified.ContainsKey("good.pkg"), "the good package is blamed:\n" + Listed());
        Assert.AreEqual(
            report.RootElement.GetProperty("folders").EnumerateArray().Single().GetProperty("packages").GetInt32(),
            report.RootElement.GetProperty("packagesChecked").GetInt32());

        Assert.IsTrue(differences.Contains(("nul.name", "lib/a%00b.dll", "notExtractable", false)), Listed());
        Assert.IsFalse(differences.Any(d => d.Package == "nul.name" && d.File == "lib/ok.dll"), "the package's good file is blamed:\n" + Listed());
        Assert.IsTrue(differences.Contains(("climb.out", "../../escaped.txt", "notExtractable", false)), Listed());
        Assert.IsTrue(differences.Contains(("climb.out", "/etc/rooted.txt", "notExtractable", false)), Listed());
        Assert.IsTrue(differences.Contains(("link.file", "lib/x.dll", "notAFile", true)), Listed());
        Assert.IsTrue(differences.Contains(("link.folder", "lib/deep/x.dll", "notAFile", true)), Listed());
        Assert.IsTrue(differences.Contains(("fifo.file", "lib/x.dll", "notAFile", false)), Listed());
        StringAssert.Contains(unverified["fifo.nupkg"], "not a regular file");
        StringAssert.Contains(unverified["device.nupkg"], "a symbolic link to /dev/zero");
        StringAssert.Contains(unverified["cut.zip"], "not a readable zip");
        StringAssert.Contains(unverified["not.zip"], "not a readable zip");
        foreach (string id in fuzzedNames)
        {
            Assert.IsTrue(differences.Contains((id, $"lib/plain{id["fuzz.names".Length..]}.dll", "missing", false)) || unverified.ContainsKey(id), $"{id}: its missing plain file is not named:\n{Listed()}");
        }

        // A zip with a few bytes changed may still read (a byte in compressed data the CRC of the file on disk does not
        // see); one that does not is named with why, never as damaged files.
        foreach (string id in fuzzedBytes.Where(unverified.ContainsKey))
        {
            Assert.IsFalse(differences.Any(d => d.Package == id), $"{id} is both unverified and damaged:\n{Listed()}");
            StringAssert.Contains(unverified[id], $"{id}.1.0.0.nupkg");
        }

        foreach (string named in new[] { "nul.name", "climb.out", "link.file", "link.folder", "fifo.file", "fifo.nupkg", "device.nupkg", "cut.zip", "not.zip" })
        {
            StringAssert.Contains(text, Path.Combine(root, named, "1.0.0"), $"{named} is not named in the text report");
        }

        Assert.IsFalse(text.Contains("Unhandled exception", StringComparison.Ordinal), text);
    }

    [TestMethod]
    public void Predict_turns_every_damaged_binary_log_into_one_line_naming_it_and_exit_code_2()
    {
        string folder = TestScratch.NewFolder("hostile-binlogs");
        // 400 files copied: a log whose events (a message per file) make up most of it, so a cut falls before the build's end.
        Directory.CreateDirectory(Path.Combine(folder, "in"));
        for (int i = 0; i < 400; i++)
        {
            File.WriteAllText(Path.Combine(folder, "in", $"file{i}.txt"), i.ToString(System.Globalization.CultureInfo.InvariantCulture));
        }

        File.WriteAllText(Path.Combine(folder, "tiny.proj"), "<Project><ItemGroup><F Include=\"in/*.txt\" /></ItemGroup><Target Name=\"Build\"><Copy SourceFiles=\"@(F)\" DestinationFolder=\"out\" /></Target></Project>");
        string good = Path.Combine(folder, "good.binlog");
        BinaryLogs.Of(Path.Combine(folder, "tiny.proj"), good);
        Assert.AreEqual(0, Predict(good).Exit, "premise: the whole log reads");

        var random = new Random(Seed);
        byte[] whole = File.ReadAllBytes(good);
        var cases = new List<string>();
        string Case(string name, byte[] bytes)
        {
            string path = Path.Combine(folder, name);
            File.WriteAllBytes(path, bytes);
            cases.Add(path);
            return path;
        }

        Case("empty.binlog", []);
        Case("text.binlog", "not a binary log\n"u8.ToArray());
        for (int i = 0; i < 8; i++)
        {
            Case($"random{i}.binlog", Bytes(random, random.Next(1, 5000)));
            // Within the first half: before the build's end.
            Case($"cut{i}.binlog", whole[..random.Next(1, whole.Length / 2)]);
            byte[] gzipHeaderKept = whole.ToArray();
            for (int b = 10; b < gzipHeaderKept.Length; b += random.Next(1, 200))
            {
                gzipHeaderKept[b] = (byte)random.Next(256);
            }

            Case($"scrambled{i}.binlog", gzipHeaderKept);
        }

        string fifo = Path.Combine(folder, "fifo.binlog");
        MakeFifo(fifo);
        cases.Add(fifo);
        cases.Add(Directory.CreateDirectory(Path.Combine(folder, "folder.binlog")).FullName);
        cases.Add(Path.Combine(folder, "missing.binlog"));

        foreach (string path in cases)
        {
            (int exit, string output, string error) = Predict(path);
            Assert.AreEqual(Program.BadInput, exit, $"{path}:\n{output}{error}");
            string[] lines = error.Split('\n', StringSplitOptions.RemoveEmptyEntries);
            Assert.AreEqual(1, lines.Length, $"{path}: expected one line:\n{error}");
            StringAssert.StartsWith(lines[0], $"dotnet cow-measure: predict {path}: ");
        }
    }

    [TestMethod]
    public void Doctor_turns_a_missing_text_garbage_or_endless_project_path_into_one_line_naming_it_and_exit_code_2()
    {
        string folder = TestScratch.NewFolder("hostile-projects");
        var random = new Random(Seed);
        string Write(string name, byte[] bytes)
        {
            string path = Path.Combine(folder, name);
            File.WriteAllBytes(path, bytes);
            return path;
        }

        string fifoSolution = Path.Combine(folder, "fifo.sln");
        MakeFifo(fifoSolution);
        string fifoProject = Path.Combine(folder, "fifo.csproj");
        MakeFifo(fifoProject);
        string[] cases =
        [
            Path.Combine(folder, "missing.sln"),
            Path.Combine(folder, "missing", "App.csproj"),
            Write("notes.txt", "just text"u8.ToArray()),
            Write("garbage.sln", Bytes(random, 4000)),
            Write("text.sln", "Project(\"{x}\") = \"App\", \"nowhere/App.csproj\", \"{y}\"\nnot a solution"u8.ToArray()),
            Write("garbage.csproj", Bytes(random, 2000)),
            fifoSolution,
            fifoProject,
        ];

        foreach (string path in cases)
        {
            var output = new StringWriter();
            var error = new StringWriter();

            int exit = WithinAMinute(() => DoctorCommand.Run([path], null, false, output, error));

            Assert.AreEqual(Program.BadInput, exit, $"{path}:\n{output}{error}");
            string[] lines = error.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
            Assert.AreEqual(1, lines.Length, $"{path}: expected one line:\n{error}");
            StringAssert.StartsWith(lines[0], $"dotnet cow-measure doctor {path}: ");
            Assert.AreEqual(string.Empty, output.ToString(), path);
        }
    }

    private static (int Exit, string Output, string Error) Predict(string path)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        int exit = WithinAMinute(() => PredictCommand.Run(path, null, output, error));
        return (exit, output.ToString(), error.ToString());
    }

    private static int WithinAMinute(Func<int> run)
    {
        Task<int> running = Task.Factory.StartNew(run, TaskCreationOptions.LongRunning);
        Assert.IsTrue(running.Wait(Minute), "the command ran over a minute (a hang)");
        return running.Result;
    }

    /// <summary>A name as a fuzzer makes one: path pieces, escapes, NUL and other control characters, and other letters.</summary>
    private static string RandomName(Random random)
    {
        string[] pieces = ["lib", "/", "\\", "..", ".", "%00", "%2F", "%2B", "%zz", "%", "\0", "\n", "\u0001", "a", "b.dll", "é", "\u202E", " ", ":", "*", "[Content_Types].xml", "_rels/", "x.nupkg.sha512"];
        return string.Concat(Enumerable.Range(0, random.Next(1, 8)).Select(_ => pieces[random.Next(pieces.Length)]));
    }

    private static byte[] Bytes(Random random, int count)
    {
        byte[] bytes = new byte[count];
        random.NextBytes(bytes);
        return bytes;
    }

    private static string Folder(string root, string id) => Directory.CreateDirectory(Path.Combine(root, id, "1.0.0")).FullName;

    private static string Nupkg(string folder) => Path.Combine(folder, $"{Path.GetFileName(Path.GetDirectoryName(folder))}.1.0.0.nupkg");

    /// <summary>A package folder with its .nupkg (and the metadata NuGet writes), nothing extracted.</summary>
    private static string Package(string root, string id, params (string Name, byte[] Bytes)[] entries)
    {
        string folder = Folder(root, id);
        using (ZipArchive zip = ZipFile.Open(Nupkg(folder), ZipArchiveMode.Create))
        {
            foreach ((string name, byte[] bytes) in entries)
            {
                using Stream entry = zip.CreateEntry(name).Open();
                entry.Write(bytes);
            }
        }

        File.WriteAllText(Path.Combine(folder, ".nupkg.metadata"), "{}");
        return folder;
    }

    /// <summary>A package folder with its .nupkg and each entry extracted at its name.</summary>
    private static string Extracted(string root, string id, params (string Name, byte[] Bytes)[] entries)
    {
        string folder = Package(root, id, entries);
        foreach ((string name, byte[] bytes) in entries)
        {
            Write(folder, name, bytes);
        }

        return folder;
    }

    private static void Write(string folder, string relative, byte[] bytes)
    {
        string path = Path.Combine(folder, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, bytes);
    }

    private static void MakeFifo(string path)
    {
        ProcessResult made = ProcessRunner.Run("mkfifo", path);
        Assert.IsTrue(made.Succeeded, made.Output);
    }
}
