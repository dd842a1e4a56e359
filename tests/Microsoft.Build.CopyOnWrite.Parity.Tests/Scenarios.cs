using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;

namespace Microsoft.Build.CopyOnWrite.Parity.Tests;

/// <summary>The catalogue of scenarios; each name is unique and is the test's name.</summary>
public static partial class Scenarios
{
    private static readonly Lazy<List<Scenario>> Catalogue = new(() =>
    {
        var all = new List<Scenario>();
        all.AddRange(Validation());
        all.AddRange(Basics());
        all.AddRange(PathsAndNames());
        all.AddRange(Metadata());
        all.AddRange(Incremental());
        all.AddRange(SelfCopies());
        all.AddRange(Links());
        all.AddRange(ReadOnly());
        all.AddRange(Failures());
        all.AddRange(EnvironmentVariables());
        all.AddRange(Folders());
        all.AddRange(ProjectFileOnly());
        var duplicates = all.GroupBy(s => s.Name).Where(g => g.Count() > 1).Select(g => g.Key).ToList();
        if (duplicates.Count > 0)
        {
            throw new InvalidOperationException("Duplicate scenario names: " + string.Join(", ", duplicates));
        }

        return all;
    });

    public static IReadOnlyList<Scenario> All => Catalogue.Value;

    /// <summary>
    /// Scenarios that reach every code of the stock task and each of its plain messages (the language tests run them in
    /// other languages than English). One destination each: the stock task then copies on the calling thread, whose
    /// language the in-process tests set (its parallel copies run on threads it keeps for the life of the process).
    /// </summary>
    public static IReadOnlyList<Scenario> EveryStockMessage => new[]
    {
        "destination's parent is a file, Retries 0", // MSB3021
        "both destinations", // MSB3022
        "no destination", // MSB3023
        "destination is a directory", // MSB3024
        "source is a directory", // MSB3025
        "destination's parent is a file, Retries 1", // MSB3026, MSB3027
        "negative Retries", // MSB3028
        "negative RetryDelayMilliseconds", // MSB3029
        "missing source", // MSB3030
        "more DestinationFiles than SourceFiles", // MSB3094
        "ErrorIfLinkFails without a link option", // MSB3892
        "hard link across volumes with ErrorIfLinkFails", // MSB3893, hard link, link failed (with the link call's reason)
        "immutable destination with MSBUILDALWAYSRETRY", // MSB3894, MSB3895
        "SourceFolders with DestinationFiles", // MSB3896
        "one file to DestinationFolder", // creating directory, copying file
        "symbolic link", // symbolic link
        "hard link across volumes, then symbolic link", // hard link failed, trying a symbolic one
        "SkipUnchangedFiles with an identical destination", // did not copy
        "read-only destination with OverwriteReadOnlyFiles", // removing read-only
        "question mode with a file to copy", // the plain error of FailIfNotIncremental
    }.Select(Named).ToList();

    public static Scenario Named(string name) => All.Single(s => s.Name == name);

    private static Scenario S(string name, RunMode mode = RunMode.InProcess) => new(name, mode);

    private static ScenarioItem I(string spec, params (string, string)[] metadata) => new(spec, metadata);

    /// <summary>Retries that fail fast: the delay only has to be observable, not long.</summary>
    private static Scenario FastRetries(this Scenario scenario, int retries = 2)
        => scenario.Set("Retries", retries).Set("RetryDelayMilliseconds", 1);

    private static Scenario WithSource(this Scenario scenario, string relative = "src/a.txt", string? content = null)
        => scenario.Arrange(t => t.File(relative, content));

    private static IEnumerable<Scenario> Validation()
    {
        yield return S("nothing at all", RunMode.Both);
        yield return S("empty SourceFiles, no destination").Set("SourceFiles", Array.Empty<ScenarioItem>());
        yield return S("empty SourceFiles and SourceFolders, no destination").Set("SourceFiles", Array.Empty<ScenarioItem>()).Set("SourceFolders", Array.Empty<ScenarioItem>());
        yield return S("empty SourceFiles with DestinationFolder").Set("SourceFiles", Array.Empty<ScenarioItem>()).Folder("{R}/out");
        yield return S("empty SourceFiles with one DestinationFiles").Set("SourceFiles", Array.Empty<ScenarioItem>()).Destinations("{R}/out/a.txt");
        yield return S("no sources with negative retries").Set("Retries", -1).Folder("{R}/out");
        yield return S("negative Retries", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("Retries", -1);
        yield return S("negative RetryDelayMilliseconds").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("RetryDelayMilliseconds", -5);
        yield return S("negative Retries and delay: retries first").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("Retries", -1).Set("RetryDelayMilliseconds", -1);
        yield return S("no destination", RunMode.Both).WithSource().Sources("{R}/src/a.txt");
        yield return S("no destination with negative delay").WithSource().Sources("{R}/src/a.txt").Set("RetryDelayMilliseconds", -1);
        yield return S("empty DestinationFiles counts as given").WithSource().Sources("{R}/src/a.txt").Set("DestinationFiles", Array.Empty<ScenarioItem>());
        yield return S("both destinations", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt").Folder("{R}/out");
        yield return S("both destinations, DestinationFiles empty").WithSource().Sources("{R}/src/a.txt").Set("DestinationFiles", Array.Empty<ScenarioItem>()).Folder("{R}/out");
        yield return S("SourceFolders with DestinationFiles").Arrange(t => t.File("dir/a.txt")).SourceFolders("{R}/dir").Destinations("{R}/out/a.txt");
        yield return S("SourceFolders with both destinations").Arrange(t => t.File("dir/a.txt")).SourceFolders("{R}/dir").Destinations("{R}/out/a.txt").Folder("{R}/out");
        yield return S("SourceFolders and SourceFiles with DestinationFiles").Arrange(t => t.File("dir/a.txt").File("b.txt")).Sources("{R}/b.txt").SourceFolders("{R}/dir").Destinations("{R}/out/b.txt");
        yield return S("empty SourceFolders with DestinationFiles").WithSource().Sources("{R}/src/a.txt").Set("SourceFolders", Array.Empty<ScenarioItem>()).Destinations("{R}/out/a.txt");
        yield return S("more DestinationFiles than SourceFiles", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt", "{R}/out/b.txt");
        yield return S("fewer DestinationFiles than SourceFiles").Arrange(t => t.File("a.txt").File("b.txt")).Sources("{R}/a.txt", "{R}/b.txt").Destinations("{R}/out/a.txt");
        yield return S("ErrorIfLinkFails without a link option", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("ErrorIfLinkFails", true);
        yield return S("count mismatch reported before ErrorIfLinkFails").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/x", "{R}/y").Set("ErrorIfLinkFails", true);
        yield return S("ErrorIfLinkFails with only the symlink environment variable").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("ErrorIfLinkFails", true).Env("MSBuildUseSymboliclinksIfPossible", "1");
        yield return S("Retries 0 copies once").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("Retries", 0);
        yield return S("RetryDelayMilliseconds 0 copies").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("RetryDelayMilliseconds", 0);
        yield return S("only SourceFolders empty and DestinationFolder").Set("SourceFolders", Array.Empty<ScenarioItem>()).Folder("{R}/out");
    }

    private static IEnumerable<Scenario> Basics()
    {
        yield return S("one file to DestinationFiles", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt");
        yield return S("one file to DestinationFolder", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("one file to a new name").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/renamed.bin");
        yield return S("three files to DestinationFolder", RunMode.Both).Arrange(t => t.File("src/a.txt").File("src/b.txt").File("src/sub/c.txt"))
            .Sources("{R}/src/a.txt", "{R}/src/b.txt", "{R}/src/sub/c.txt").Folder("{R}/out");
        yield return S("twenty files in parallel").Arrange(t => { for (int i = 0; i < 20; i++) { t.File($"src/f{i:00}.txt"); } })
            .Sources(Enumerable.Range(0, 20).Select(i => $"{{R}}/src/f{i:00}.txt").ToArray()).Folder("{R}/out");
        yield return S("destination folder already exists").Arrange(t => t.File("src/a.txt").Dir("out")).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("deep destination folder is created").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out/x/y/z");
        yield return S("existing destination is overwritten").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old content", time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("existing destination with the same time but other content").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old")).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("empty source file").Arrange(t => t.File("src/empty.txt", string.Empty)).Sources("{R}/src/empty.txt").Folder("{R}/out");
        yield return S("one MiB source file").Arrange(t => t.Bytes("src/big.bin", 1 << 20)).Sources("{R}/src/big.bin").Folder("{R}/out");
        yield return S("executable source keeps its mode").Arrange(t => t.File("src/run.sh", "#!/bin/sh", mode: 493)).Sources("{R}/src/run.sh").Folder("{R}/out");
        yield return S("private source keeps its mode").Arrange(t => t.File("src/secret.txt", mode: 384)).Sources("{R}/src/secret.txt").Folder("{R}/out");
        yield return S("destination mode replaced by source mode").Arrange(t => t.File("src/a.txt", "new", mode: 493).File("out/a.txt", "old", mode: 384, time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("two sources with one name to a folder: last wins").Arrange(t => t.File("one/a.txt", "first").File("two/a.txt", "second"))
            .Sources("{R}/one/a.txt", "{R}/two/a.txt").Folder("{R}/out");
        yield return S("several sources to one destination file: last wins", RunMode.Both).Arrange(t => t.File("a.txt", "A").File("b.txt", "B").File("c.txt", "C"))
            .Sources("{R}/a.txt", "{R}/b.txt", "{R}/c.txt").Destinations("{R}/out/x.txt", "{R}/out/x.txt", "{R}/out/x.txt");
        yield return S("repeated pair copied once, reported twice", RunMode.Both).WithSource().Sources("{R}/src/a.txt", "{R}/src/a.txt").Destinations("{R}/out/a.txt", "{R}/out/a.txt");
        yield return S("repeated pair through DestinationFolder").WithSource().Sources("{R}/src/a.txt", "{R}/src/a.txt").Folder("{R}/out");
        yield return S("pair, other source, pair again to one destination").Arrange(t => t.File("a.txt", "A").File("b.txt", "B"))
            .Sources("{R}/a.txt", "{R}/b.txt", "{R}/a.txt").Destinations("{R}/out/x.txt", "{R}/out/x.txt", "{R}/out/x.txt");
        yield return S("repeated pair spelled differently").Env("MSBUILDCOPYTASKPARALLELISM", "1").WithSource().Sources("{R}/src/a.txt", "{R}/src/../src/a.txt").Destinations("{R}/out/a.txt", "{R}/out/./a.txt");
        yield return S("one source to several destinations").WithSource().Sources("{R}/src/a.txt", "{R}/src/a.txt", "{R}/src/a.txt").Destinations("{R}/o1/a.txt", "{R}/o2/a.txt", "{R}/o3/b.txt");
        yield return S("source missing among good ones", RunMode.Both).Arrange(t => t.File("a.txt").File("c.txt")).Sources("{R}/a.txt", "{R}/b.txt", "{R}/c.txt").Folder("{R}/out");
        yield return S("missing source", RunMode.Both).Sources("{R}/src/missing.txt").Folder("{R}/out");
        yield return S("missing source with an existing destination").Arrange(t => t.File("out/missing.txt", "keep")).Sources("{R}/src/missing.txt").Folder("{R}/out");
        // Names a look's stat refuses (ENAMETOOLONG, ENOTDIR): whatever the stat says, each is that file's error, as the stock task's.
        yield return S("source name longer than the file system allows").Sources("{R}/src/" + new string('s', 300) + ".txt").Folder("{R}/out");
        yield return S("destination name longer than the file system allows").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/" + new string('d', 300) + ".txt");
        yield return S("source path through a file").WithSource().Sources("{R}/src/a.txt/inner.txt").Folder("{R}/out");
        yield return S("destination path through a file").WithSource().Arrange(t => t.File("out")).Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt").FastRetries();
        yield return S("missing source, Retries 0").Sources("{R}/src/missing.txt").Folder("{R}/out").Set("Retries", 0);
        yield return S("source is a directory", RunMode.Both).Arrange(t => t.Dir("srcdir")).Sources("{R}/srcdir").Folder("{R}/out");
        yield return S("source is a directory, to DestinationFiles").Arrange(t => t.Dir("srcdir")).Sources("{R}/srcdir").Destinations("{R}/out/x");
        yield return S("destination is a directory", RunMode.Both).Arrange(t => t.File("src/a.txt").Dir("out/a.txt")).Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt");
        yield return S("destination in folder is a directory").Arrange(t => t.File("src/a.txt").Dir("out/a.txt/inner")).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("destination is a directory and source missing").Arrange(t => t.Dir("out/a.txt")).Sources("{R}/src/a.txt").Destinations("{R}/out/a.txt");
        yield return S("source and destination are directories").Arrange(t => t.Dir("srcdir").Dir("out/x")).Sources("{R}/srcdir").Destinations("{R}/out/x");
        yield return S("source is a symlink to a file").Arrange(t => t.File("real.txt", "real").Symlink("src/link.txt", "{R}/real.txt")).Sources("{R}/src/link.txt").Folder("{R}/out");
        yield return S("source is a dangling symlink").Arrange(t => t.Symlink("src/link.txt", "{R}/nowhere.txt")).Sources("{R}/src/link.txt").Folder("{R}/out").FastRetries();
        yield return S("source is a symlink to a directory").Arrange(t => t.Dir("realdir").Symlink("src/linkdir", "{R}/realdir")).Sources("{R}/src/linkdir").Folder("{R}/out");
        yield return S("destination is a symlink to a directory").Arrange(t => t.File("src/a.txt").Dir("realdir").Symlink("out/a.txt", "{R}/realdir")).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("destination is a dangling symlink").Arrange(t => t.File("src/a.txt").Symlink("out/a.txt", "{R}/nowhere.txt")).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("destination is a symlink to another file").Arrange(t => t.File("src/a.txt", "new").File("other.txt", "other", time: Tree.OtherTime).Symlink("out/a.txt", "{R}/other.txt")).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("destination is a hard link to another file").Arrange(t => t.File("src/a.txt", "new").File("other.txt", "other", time: Tree.OtherTime).HardLink("out/a.txt", "other.txt")).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("destination folder is a symlink to a folder").Arrange(t => t.File("src/a.txt").Dir("realout").Symlink("out", "{R}/realout")).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("copy to the other volume").OtherVolume().WithSource().Sources("{R}/src/a.txt").Folder("{SHM}/out");
        yield return S("copy from the other volume").OtherVolume().Arrange(t => t.File("{SHM}/src/a.txt")).Sources("{SHM}/src/a.txt").Folder("{R}/out");
        yield return S("copy over a destination on the other volume").OtherVolume().Arrange(t => t.File("src/a.txt", "new").File("{SHM}/out/a.txt", "old", time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{SHM}/out");
    }

    private static IEnumerable<Scenario> PathsAndNames()
    {
        yield return S("relative source and folder", RunMode.Both).Relative().WithSource().Sources("src/a.txt").Folder("out");
        yield return S("relative DestinationFiles").Relative().WithSource().Sources("src/a.txt").Destinations("out/b.txt");
        yield return S("relative paths with dot segments").Relative().WithSource().Sources("./src/../src/a.txt").Folder("./out/../out2");
        yield return S("relative destination folder dot").Relative().Arrange(t => t.File("src/a.txt")).Sources("src/a.txt").Folder(".");
        yield return S("relative source file name only").Relative().Arrange(t => t.File("a.txt")).Sources("a.txt").Folder("out");
        yield return S("relative missing source").Relative().Sources("nope/a.txt").Folder("out");
        yield return S("relative source is a directory").Relative().Arrange(t => t.Dir("d")).Sources("d").Folder("out");
        yield return S("relative destination is a directory").Relative().Arrange(t => t.File("a.txt").Dir("out/a.txt")).Sources("a.txt").Folder("out");
        yield return S("DestinationFolder with a trailing slash").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out/");
        yield return S("DestinationFolder with dot segments").WithSource().Sources("{R}/src/a.txt").Folder("{R}/x/../out/./y");
        yield return S("source with dot segments").WithSource().Sources("{R}/src/./sub/../a.txt").Folder("{R}/out");
        yield return S("double slashes").WithSource().Sources("{R}//src//a.txt").Folder("{R}//out//");
        yield return S("backslashes in specs").WithSource().Sources("{R}/src\\a.txt").Folder("{R}\\out");
        yield return S("name with spaces", RunMode.Both).Arrange(t => t.File("src dir/a b.txt")).Sources("{R}/src dir/a b.txt").Folder("{R}/out dir");
        yield return S("unicode names", RunMode.Both).Arrange(t => t.File("src/Ünïcödé 名前 🙂.txt")).Sources("{R}/src/Ünïcödé 名前 🙂.txt").Folder("{R}/out/ñ");
        yield return S("escaped percent in name", RunMode.Both).Arrange(t => t.File("src/100%.txt")).Sources("{R}/src/100%25.txt").Folder("{R}/out");
        yield return S("escaped semicolon in name", RunMode.Both).Arrange(t => t.File("src/a;b.txt")).Sources("{R}/src/a%3Bb.txt").Folder("{R}/out");
        yield return S("escaped at, dollar and quote in name", RunMode.Both).Arrange(t => t.File("src/@$'.txt")).Sources("{R}/src/%40%24%27.txt").Folder("{R}/out");
        yield return S("escaped parentheses, star and question mark in name").Arrange(t => t.File("src/(x)*?.txt")).Sources("{R}/src/%28x%29%2A%3F.txt").Folder("{R}/out");
        yield return S("escaped specials in DestinationFiles", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/%25%3B%40%24%27.txt");
        yield return S("special characters in the destination folder").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out%3B%25%40");
        yield return S("hash, ampersand, plus, comma, equals and brackets").Arrange(t => t.File("src/#&+,=[]{}~.txt")).Sources("{R}/src/#&+,=[]{}~.txt").Folder("{R}/out");
        yield return S("unescaped percent sequence that is not an escape").Arrange(t => t.File("src/a%zz.txt")).Sources("{R}/src/a%zz.txt").Folder("{R}/out");
        yield return S("leading dash and dots in names").Arrange(t => t.File("src/-x..txt").File("src/..hidden")).Sources("{R}/src/-x..txt", "{R}/src/..hidden").Folder("{R}/out");
        yield return S("hidden dot file").Arrange(t => t.File("src/.env")).Sources("{R}/src/.env").Folder("{R}/out");
        yield return S("name of 255 bytes").Arrange(t => t.File("src/" + new string('n', 251) + ".txt")).Sources("{R}/src/" + new string('n', 251) + ".txt").Folder("{R}/out");
        yield return S("unicode name of 255 bytes").Arrange(t => t.File("src/" + string.Concat(Enumerable.Repeat("é", 125)) + "x.txt")).Sources("{R}/src/" + string.Concat(Enumerable.Repeat("é", 125)) + "x.txt").Folder("{R}/out");
        yield return S("destination name of 256 bytes").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/" + new string('n', 252) + ".txt");
        yield return S("destination folder name of 256 bytes").WithSource().Sources("{R}/src/a.txt").Folder("{R}/" + new string('d', 256));
        yield return S("source name of 256 bytes").Sources("{R}/src/" + new string('n', 252) + ".txt").Folder("{R}/out");
        yield return S("destination path over 4096 bytes").WithSource().Sources("{R}/src/a.txt").Folder("{R}/" + string.Join("/", Enumerable.Repeat(new string('p', 200), 21)));
        yield return S("destination path over 4096 bytes, Retries 0").WithSource().Sources("{R}/src/a.txt").Folder("{R}/" + string.Join("/", Enumerable.Repeat(new string('p', 200), 21))).Set("Retries", 0);
        yield return S("source path over 4096 bytes").Sources("{R}/" + string.Join("/", Enumerable.Repeat(new string('q', 200), 21)) + "/a.txt").Folder("{R}/out");
        yield return S("destination path just under 4096 bytes").WithSource().Sources("{R}/src/a.txt").Folder("{R}/" + string.Join("/", Enumerable.Repeat(new string('p', 200), 18)));
        yield return S("case differs from an existing destination").Arrange(t => t.File("src/a.txt", "new").File("out/A.TXT", "other", time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("newline and tab in a name").Arrange(t => t.File("src/a\tb\nc.txt")).Sources("{R}/src/a\tb\nc.txt").Folder("{R}/out");
        yield return S("null character in a destination").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/a\0b.txt");
        yield return S("null character in the destination folder").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out\0x");
        yield return S("null character in a source").Sources("{R}/src/a\0.txt").Folder("{R}/out");
        yield return S("source spec is a folder path with a trailing slash").Arrange(t => t.Dir("d")).Sources("{R}/d/").Folder("{R}/out");
        yield return S("destination spec ends with a slash").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/out/").FastRetries();
        yield return S("destination spec ends with a slash, folder exists").Arrange(t => t.File("src/a.txt").Dir("out")).Sources("{R}/src/a.txt").Destinations("{R}/out/").FastRetries();
    }

    private static IEnumerable<Scenario> Metadata()
    {
        yield return S("source metadata flows to DestinationFolder items", RunMode.Both).WithSource()
            .Sources(I("{R}/src/a.txt", ("Kind", "doc"), ("Link", "x/a.txt"))).Folder("{R}/out");
        yield return S("source metadata flows to DestinationFiles items", RunMode.Both).WithSource()
            .Sources(I("{R}/src/a.txt", ("Kind", "doc"), ("Both", "from-source"))).Destinations(I("{R}/out/a.txt", ("Both", "from-destination"), ("Own", "d")));
        yield return S("destination already has OriginalItemSpec").WithSource()
            .Sources(I("{R}/src/a.txt", ("Kind", "doc"))).Destinations(I("{R}/out/a.txt", ("OriginalItemSpec", "mine")));
        yield return S("source has OriginalItemSpec").WithSource().Sources(I("{R}/src/a.txt", ("OriginalItemSpec", "earlier"))).Folder("{R}/out");
        yield return S("metadata with escaped characters").WithSource().Sources(I("{R}/src/a.txt", ("Odd", "a%3Bb%25c"), ("Empty", ""))).Folder("{R}/out");
        yield return S("metadata on a failed pair").Sources(I("{R}/src/missing.txt", ("Kind", "doc"))).Destinations(I("{R}/out/a.txt", ("Own", "d")));
        yield return S("metadata on a self copy").WithSource().Sources(I("{R}/src/a.txt", ("Kind", "doc"))).Destinations(I("{R}/src/a.txt", ("Own", "d")));
        yield return S("metadata on a skipped unchanged file").Arrange(t => t.File("src/a.txt").File("out/a.txt")).Sources(I("{R}/src/a.txt", ("Kind", "doc"))).Destinations(I("{R}/out/a.txt", ("Own", "d"))).Set("SkipUnchangedFiles", true);
        yield return S("metadata on a repeated pair").WithSource().Sources(I("{R}/src/a.txt", ("N", "1")), I("{R}/src/a.txt", ("N", "2"))).Destinations(I("{R}/out/a.txt"), I("{R}/out/a.txt"));
        yield return S("metadata on a hard link").WithSource().Sources(I("{R}/src/a.txt", ("Kind", "doc"))).Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("well-known metadata names are not custom").WithSource().Sources(I("{R}/src/a.txt", ("CopyToOutputDirectory", "Always"), ("TargetPath", "x/a.txt"))).Folder("{R}/out");
    }

    private static IEnumerable<Scenario> Incremental()
    {
        yield return S("SkipUnchangedFiles with an identical destination", RunMode.Both).Arrange(t => t.File("src/a.txt").File("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("SkipUnchangedFiles with another time").Arrange(t => t.File("src/a.txt").File("out/a.txt", time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("SkipUnchangedFiles with a one-tick time difference").Arrange(t => t.File("src/a.txt").File("out/a.txt", time: Tree.FixedTime.AddTicks(1))).Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("SkipUnchangedFiles with another size").Arrange(t => t.File("src/a.txt", "12345").File("out/a.txt", "1234")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("SkipUnchangedFiles with same size and time but other content").Arrange(t => t.File("src/a.txt", "abcd").File("out/a.txt", "wxyz")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("SkipUnchangedFiles without a destination").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("SkipUnchangedFiles with a missing source").Arrange(t => t.File("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("SkipUnchangedFiles when the destination is a directory").Arrange(t => t.File("src/a.txt").Dir("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("SkipUnchangedFiles when the source is a directory").Arrange(t => t.Dir("src/a.txt").File("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("SkipUnchangedFiles with a destination symlink to the same content").Arrange(t => t.File("src/a.txt").File("other/a.txt").Symlink("out/a.txt", "{R}/other/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("SkipUnchangedFiles with relative paths").Relative().Arrange(t => t.File("src/a.txt").File("out/a.txt")).Sources("src/a.txt").Folder("out").Set("SkipUnchangedFiles", true);
        yield return S("SkipUnchangedFiles, several files some unchanged").Arrange(t => t.File("src/a.txt").File("src/b.txt").File("out/a.txt").File("out/b.txt", "old", time: Tree.OtherTime))
            .Sources("{R}/src/a.txt", "{R}/src/b.txt", "{R}/src/c.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("question mode with an unchanged file", RunMode.Both).Arrange(t => t.File("src/a.txt").File("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true).Set("FailIfNotIncremental", true);
        yield return S("question mode with a file to copy", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("FailIfNotIncremental", true);
        yield return S("question mode without SkipUnchangedFiles and identical files").Arrange(t => t.File("src/a.txt").File("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("FailIfNotIncremental", true);
        yield return S("question mode with a missing source").Sources("{R}/src/missing.txt").Folder("{R}/out").Set("FailIfNotIncremental", true);
        yield return S("question mode with a self copy").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/src/a.txt").Set("FailIfNotIncremental", true);
        yield return S("question mode with links").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("FailIfNotIncremental", true).Set("UseHardlinksIfPossible", true);
        yield return S("question mode, several files").Arrange(t => t.File("src/a.txt").File("src/b.txt").File("out/a.txt")).Sources("{R}/src/a.txt", "{R}/src/b.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true).Set("FailIfNotIncremental", true);
        yield return S("question mode with relative paths").Relative().WithSource().Sources("src/a.txt").Folder("out").Set("FailIfNotIncremental", true);
    }

    private static IEnumerable<Scenario> SelfCopies()
    {
        yield return S("copy onto itself", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Destinations("{R}/src/a.txt");
        yield return S("copy onto itself through DestinationFolder").WithSource().Sources("{R}/src/a.txt").Folder("{R}/src");
        yield return S("copy onto itself spelled with dot-dot").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/src/../src/a.txt");
        yield return S("copy onto itself spelled with dot").WithSource().Sources("{R}/src/./a.txt").Destinations("{R}/./src/a.txt");
        yield return S("copy onto itself with double slashes").WithSource().Sources("{R}//src/a.txt").Destinations("{R}/src//a.txt");
        yield return S("copy onto itself relative and absolute").Relative().WithSource().Sources("src/a.txt").Destinations("{R}/src/a.txt");
        yield return S("copy onto itself with the source missing").Sources("{R}/src/missing.txt").Destinations("{R}/src/missing.txt");
        yield return S("copy onto itself with a directory").Arrange(t => t.Dir("d")).Sources("{R}/d").Destinations("{R}/d");
        yield return S("copy onto itself in other case").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/src/A.txt");
        yield return S("copy onto itself with SkipUnchangedFiles").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/src/a.txt").Set("SkipUnchangedFiles", true);
        yield return S("copy onto itself with hard links").WithSource().Sources("{R}/src/a.txt").Destinations("{R}/src/a.txt").Set("UseHardlinksIfPossible", true);
        yield return S("copy onto itself with a read-only source").Arrange(t => t.File("src/a.txt", mode: 292)).Sources("{R}/src/a.txt").Destinations("{R}/src/a.txt");
        yield return S("copy onto a hard link of the source").Arrange(t => t.File("src/a.txt").HardLink("out/a.txt", "src/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("copy onto a symlink to the source").Arrange(t => t.File("src/a.txt").Symlink("out/a.txt", "{R}/src/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("copy onto itself through a symlinked folder").Arrange(t => t.File("src/a.txt").Symlink("alias", "{R}/src")).Sources("{R}/src/a.txt").Destinations("{R}/alias/a.txt").FastRetries().Shows(IntendedDifferences.AliasedSelfCopyKeepsFile, "{R}/src/a.txt");
        yield return S("copy from a symlink onto its target").Arrange(t => t.File("src/a.txt").Symlink("link.txt", "{R}/src/a.txt")).Sources("{R}/link.txt").Destinations("{R}/src/a.txt").FastRetries().Shows(IntendedDifferences.AliasedSelfCopyKeepsFile, "{R}/src/a.txt");
    }

    private static IEnumerable<Scenario> Links()
    {
        yield return S("hard link", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("hard link over an existing destination").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("hard link when already linked").Arrange(t => t.File("src/a.txt").HardLink("out/a.txt", "src/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("hard link with relative paths").Relative().WithSource().Sources("src/a.txt").Folder("out").Set("UseHardlinksIfPossible", true);
        yield return S("hard link to a new folder").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out/deep/er").Set("UseHardlinksIfPossible", true);
        yield return S("hard link across volumes falls back to a copy", RunMode.Both).OtherVolume().WithSource().Sources("{R}/src/a.txt").Folder("{SHM}/out").Set("UseHardlinksIfPossible", true);
        yield return S("hard link across volumes with ErrorIfLinkFails", RunMode.Both).OtherVolume().WithSource().Sources("{R}/src/a.txt").Folder("{SHM}/out").Set("UseHardlinksIfPossible", true).Set("ErrorIfLinkFails", true);
        yield return S("hard link across volumes with ErrorIfLinkFails and an existing destination").OtherVolume().Arrange(t => t.File("src/a.txt", "new").File("{SHM}/out/a.txt", "old", time: Tree.OtherTime))
            .Sources("{R}/src/a.txt").Folder("{SHM}/out").Set("UseHardlinksIfPossible", true).Set("ErrorIfLinkFails", true).Shows(IntendedDifferences.FailedCopyKeepsDestination, "{SHM}/out/a.txt");
        yield return S("hard link across volumes, then symbolic link").OtherVolume().WithSource().Sources("{R}/src/a.txt").Folder("{SHM}/out").Set("UseHardlinksIfPossible", true).Set("UseSymboliclinksIfPossible", true);
        yield return S("hard and symbolic link asked: hard link wins").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true).Set("UseSymboliclinksIfPossible", true);
        yield return S("hard link with a missing source").Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("hard link with a directory source").Arrange(t => t.Dir("d")).Sources("{R}/d").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("hard link onto a directory").Arrange(t => t.File("src/a.txt").Dir("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("hard link with SkipUnchangedFiles and identical destination").Arrange(t => t.File("src/a.txt").File("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true).Set("SkipUnchangedFiles", true);
        yield return S("hard link of a read-only source").Arrange(t => t.File("src/a.txt", mode: 292)).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("hard link over a read-only destination").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", mode: 292, time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("hard link, several sources to one destination").Arrange(t => t.File("a.txt", "A").File("b.txt", "B")).Sources("{R}/a.txt", "{R}/b.txt").Destinations("{R}/out/x.txt", "{R}/out/x.txt").Set("UseHardlinksIfPossible", true);
        yield return S("hard link of a symlink source").Arrange(t => t.File("real.txt").Symlink("src/link.txt", "{R}/real.txt")).Sources("{R}/src/link.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("symbolic link", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseSymboliclinksIfPossible", true);
        yield return S("symbolic link with a relative source").Relative().WithSource().Sources("src/a.txt").Folder("out").Set("UseSymboliclinksIfPossible", true);
        yield return S("symbolic link with dot segments in the source").WithSource().Sources("{R}/src/../src/a.txt").Folder("{R}/out").Set("UseSymboliclinksIfPossible", true);
        yield return S("symbolic link over an existing destination").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseSymboliclinksIfPossible", true);
        yield return S("symbolic link over an existing symbolic link").Arrange(t => t.File("src/a.txt", "new").File("old.txt", "old").Symlink("out/a.txt", "{R}/old.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseSymboliclinksIfPossible", true);
        yield return S("symbolic link across volumes").OtherVolume().WithSource().Sources("{R}/src/a.txt").Folder("{SHM}/out").Set("UseSymboliclinksIfPossible", true);
        yield return S("symbolic link with a missing source").Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseSymboliclinksIfPossible", true);
        yield return S("symbolic link with ErrorIfLinkFails").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseSymboliclinksIfPossible", true).Set("ErrorIfLinkFails", true);
        yield return S("symbolic link onto a directory").Arrange(t => t.File("src/a.txt").Dir("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseSymboliclinksIfPossible", true);
        yield return S("symbolic link with SkipUnchangedFiles").Arrange(t => t.File("src/a.txt").File("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseSymboliclinksIfPossible", true).Set("SkipUnchangedFiles", true);
        yield return S("symbolic link when the destination folder is a file").Arrange(t => t.File("src/a.txt").File("out")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseSymboliclinksIfPossible", true);
        yield return S("hard link when the destination's parent is a file").Arrange(t => t.File("src/a.txt").File("block")).Sources("{R}/src/a.txt").Destinations("{R}/block/a.txt").Set("UseHardlinksIfPossible", true).FastRetries();
        yield return S("symbolic link from the environment", RunMode.Both).WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBuildUseSymboliclinksIfPossible", "1");
        yield return S("symbolic link environment overridden by the parameter").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBuildUseSymboliclinksIfPossible", "1").Set("UseSymboliclinksIfPossible", false);
        yield return S("symbolic link environment with an empty value").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBuildUseSymboliclinksIfPossible", "0");
        yield return S("symbolic link environment with hard links").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBuildUseSymboliclinksIfPossible", "1").Set("UseHardlinksIfPossible", true);
        yield return S("symbolic link environment with ErrorIfLinkFails and hard links across volumes").OtherVolume().WithSource().Sources("{R}/src/a.txt").Folder("{SHM}/out")
            .Env("MSBuildUseSymboliclinksIfPossible", "1").Set("UseHardlinksIfPossible", true).Set("ErrorIfLinkFails", true);
    }

    private static IEnumerable<Scenario> ReadOnly()
    {
        yield return S("read-only source").Arrange(t => t.File("src/a.txt", mode: 292)).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("read-only destination", RunMode.Both).Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", mode: 292, time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("read-only destination with OverwriteReadOnlyFiles", RunMode.Both).Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", mode: 292, time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Set("OverwriteReadOnlyFiles", true);
        yield return S("writable destination with OverwriteReadOnlyFiles").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Set("OverwriteReadOnlyFiles", true);
        yield return S("read-only destination from the environment", RunMode.Both).Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", mode: 292, time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDALWAYSOVERWRITEREADONLYFILES", "1");
        yield return S("read-only destination, group-writable only").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", mode: 420 - 128 + 16, time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("read-only source and destination").Arrange(t => t.File("src/a.txt", "new", mode: 292).File("out/a.txt", "old", mode: 292, time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("read-only destination with SkipUnchangedFiles and identical files").Arrange(t => t.File("src/a.txt").File("out/a.txt", mode: 292)).Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("read-only destination hard link with OverwriteReadOnlyFiles").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", mode: 292, time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Set("OverwriteReadOnlyFiles", true).Set("UseHardlinksIfPossible", true);
        yield return S("read-only destination folder").Arrange(t => t.File("src/a.txt").Dir("out").Mode("out", 365)).Sources("{R}/src/a.txt").Folder("{R}/out");
        yield return S("immutable destination retried", RunMode.Both).Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime).Immutable("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").FastRetries();
        yield return S("immutable destination, Retries 0").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime).Immutable("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("Retries", 0);
        yield return S("immutable destination with OverwriteReadOnlyFiles").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", mode: 292, time: Tree.OtherTime).Immutable("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("OverwriteReadOnlyFiles", true).FastRetries(1);
        yield return S("immutable destination with MSBUILDALWAYSRETRY", RunMode.Both).Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime).Immutable("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").FastRetries().Env("MSBUILDALWAYSRETRY", "1");
        yield return S("immutable destination folder").Arrange(t => t.File("src/a.txt").Dir("out").Immutable("out")).Sources("{R}/src/a.txt").Folder("{R}/out").FastRetries();
        yield return S("immutable destination folder with hard links").Arrange(t => t.File("src/a.txt").Dir("out").Immutable("out")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true).FastRetries(1);
        yield return S("immutable destination folder with ErrorIfLinkFails").Arrange(t => t.File("src/a.txt").Dir("out").Immutable("out")).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseSymboliclinksIfPossible", true).Set("ErrorIfLinkFails", true).FastRetries(1);
        yield return S("immutable destination among good ones").Arrange(t => t.File("src/a.txt").File("src/b.txt").File("out/a.txt", "old", time: Tree.OtherTime).Immutable("out/a.txt")).Sources("{R}/src/a.txt", "{R}/src/b.txt").Folder("{R}/out").FastRetries(1);
    }

    private static IEnumerable<Scenario> Failures()
    {
        yield return S("destination's parent is a file, retried", RunMode.Both).Arrange(t => t.File("src/a.txt").File("block")).Sources("{R}/src/a.txt").Destinations("{R}/block/a.txt").FastRetries();
        yield return S("destination's parent is a file, Retries 0").Arrange(t => t.File("src/a.txt").File("block")).Sources("{R}/src/a.txt").Destinations("{R}/block/a.txt").Set("Retries", 0);
        yield return S("destination's parent is a file, Retries 1").Arrange(t => t.File("src/a.txt").File("block")).Sources("{R}/src/a.txt").Destinations("{R}/block/a.txt").FastRetries(1);
        yield return S("destination path component deeper is a file").Arrange(t => t.File("src/a.txt").File("x/block")).Sources("{R}/src/a.txt").Destinations("{R}/x/block/y/z/a.txt").FastRetries(1);
        yield return S("DestinationFolder is a file", RunMode.Both).Arrange(t => t.File("src/a.txt").File("out")).Sources("{R}/src/a.txt").Folder("{R}/out").FastRetries();
        yield return S("DestinationFolder is a file, two sources").Arrange(t => t.File("src/a.txt").File("src/b.txt").File("out")).Sources("{R}/src/a.txt", "{R}/src/b.txt").Folder("{R}/out").FastRetries();
        yield return S("DestinationFolder's parent is a file").Arrange(t => t.File("src/a.txt").File("block")).Sources("{R}/src/a.txt").Folder("{R}/block/out").FastRetries(1);
        yield return S("DestinationFolder is a file with a missing source").Arrange(t => t.File("out")).Sources("{R}/src/a.txt").Folder("{R}/out").FastRetries(1);
        yield return S("failure and successes mixed").Arrange(t => t.File("src/a.txt").File("src/b.txt").File("block"))
            .Sources("{R}/src/a.txt", "{R}/src/b.txt", "{R}/src/a.txt").Destinations("{R}/out/a.txt", "{R}/block/b.txt", "{R}/out/c.txt").FastRetries(1);
        yield return S("two failing pairs").Arrange(t => t.File("src/a.txt").File("block")).Sources("{R}/src/a.txt", "{R}/src/a.txt").Destinations("{R}/block/1.txt", "{R}/block/2.txt").FastRetries(1);
        yield return S("failing pair repeated").Arrange(t => t.File("src/a.txt").File("block")).Sources("{R}/src/a.txt", "{R}/src/a.txt").Destinations("{R}/block/1.txt", "{R}/block/1.txt").FastRetries(1);
        yield return S("missing source repeated").Sources("{R}/src/a.txt", "{R}/src/a.txt").Destinations("{R}/out/a.txt", "{R}/out/a.txt");
        yield return S("default Retries is 10").Arrange(t => t.File("src/a.txt").File("block")).Sources("{R}/src/a.txt").Destinations("{R}/block/a.txt").Set("RetryDelayMilliseconds", 1);
        yield return S("relative: destination's parent is a file").Relative().Arrange(t => t.File("src/a.txt").File("block")).Sources("src/a.txt").Destinations("block/a.txt").FastRetries(1);
        yield return S("relative: destination ends with a slash").Relative().WithSource().Sources("src/a.txt").Destinations("out/").FastRetries(1);
        yield return S("relative: immutable destination").Relative().Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime).Immutable("out/a.txt")).Sources("src/a.txt").Folder("out").FastRetries(1);
        yield return S("relative: immutable destination folder").Relative().Arrange(t => t.File("src/a.txt").Dir("out").Immutable("out")).Sources("src/a.txt").Folder("out").FastRetries(1);
        yield return S("symbolic link of a read-only source").Arrange(t => t.File("src/a.txt", mode: 292)).Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseSymboliclinksIfPossible", true);
        yield return S("immutable writable destination in a writable folder, copy without delete").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime).Immutable("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDCOPYWITHOUTDELETE", "1").FastRetries(1);
        yield return S("retry delay is observed").Arrange(t => t.File("src/a.txt").File("block")).Sources("{R}/src/a.txt").Destinations("{R}/block/a.txt").Set("Retries", 1).Set("RetryDelayMilliseconds", 20);
    }

    private static IEnumerable<Scenario> EnvironmentVariables()
    {
        yield return S("single-threaded copy by environment").Arrange(t => { for (int i = 0; i < 8; i++) { t.File($"src/f{i}.txt"); } })
            .Sources(Enumerable.Range(0, 8).Select(i => $"{{R}}/src/f{i}.txt").ToArray()).Folder("{R}/out").Env("MSBUILDCOPYTASKPARALLELISM", "1");
        yield return S("parallelism variable with another value").Arrange(t => { for (int i = 0; i < 8; i++) { t.File($"src/f{i}.txt"); } })
            .Sources(Enumerable.Range(0, 8).Select(i => $"{{R}}/src/f{i}.txt").ToArray()).Folder("{R}/out").Env("MSBUILDCOPYTASKPARALLELISM", "3");
        yield return S("single-threaded: last of several sources wins").Arrange(t => t.File("a.txt", "A").File("b.txt", "B"))
            .Sources("{R}/a.txt", "{R}/b.txt").Destinations("{R}/out/x.txt", "{R}/out/x.txt").Env("MSBUILDCOPYTASKPARALLELISM", "1");
        yield return S("copy without delete over a plain file", RunMode.Both).Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDCOPYWITHOUTDELETE", "1");
        yield return S("copy without delete over a hard link")
            .Arrange(t => t.File("src/a.txt", "new").File("cache/a.txt", "cached", time: Tree.OtherTime).HardLink("out/a.txt", "cache/a.txt"))
            .Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDCOPYWITHOUTDELETE", "1").Shows(IntendedDifferences.NoWriteThroughHardLink, "{R}/cache/a.txt", "{R}/out/a.txt");
        yield return S("copy without delete over a symbolic link")
            .Arrange(t => t.File("src/a.txt", "new").File("cache/a.txt", "cached", time: Tree.OtherTime).Symlink("out/a.txt", "{R}/cache/a.txt"))
            .Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDCOPYWITHOUTDELETE", "1").Shows(IntendedDifferences.NoWriteThroughSymlink, "{R}/cache/a.txt", "{R}/out/a.txt");
        yield return S("copy without delete onto a hard link of the source").Arrange(t => t.File("src/a.txt").HardLink("out/a.txt", "src/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDCOPYWITHOUTDELETE", "1").FastRetries();
        yield return S("copy without delete onto a symlink to the source").Arrange(t => t.File("src/a.txt").Symlink("out/a.txt", "{R}/src/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDCOPYWITHOUTDELETE", "1").FastRetries();
        yield return S("copy without delete with another value").Arrange(t => t.File("src/a.txt", "new").File("cache/a.txt", "cached", time: Tree.OtherTime).HardLink("out/a.txt", "cache/a.txt"))
            .Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDCOPYWITHOUTDELETE", "true");
        yield return S("copy without delete, read-only destination").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", mode: 292, time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDCOPYWITHOUTDELETE", "1");
        yield return S("copy without delete, hard link asked").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDCOPYWITHOUTDELETE", "1").Set("UseHardlinksIfPossible", true);
        yield return S("hard link over a hard link to another file").Arrange(t => t.File("src/a.txt", "new").File("cache/a.txt", "cached", time: Tree.OtherTime).HardLink("out/a.txt", "cache/a.txt"))
            .Sources("{R}/src/a.txt").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("always retry without failures").WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDALWAYSRETRY", "1");
        yield return S("always retry with a persistent IO failure").Arrange(t => t.File("src/a.txt").File("block")).Sources("{R}/src/a.txt").Destinations("{R}/block/a.txt").Env("MSBUILDALWAYSRETRY", "1").FastRetries(1);
        yield return S("overwrite read-only by environment with an empty value").Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", mode: 292, time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDALWAYSOVERWRITEREADONLYFILES", "0");
        yield return S("overwrite read-only by environment with negative retries").Sources("{R}/a.txt").Folder("{R}/out").Set("Retries", -1).Env("MSBUILDALWAYSOVERWRITEREADONLYFILES", "1");
    }

    private static IEnumerable<Scenario> Folders()
    {
        yield return S("SourceFolders: one folder", RunMode.Both).Arrange(t => t.File("lib/a.txt").File("lib/b.txt")).SourceFolders("{R}/lib").Folder("{R}/out");
        yield return S("SourceFolders: nested").Arrange(t => t.File("lib/a.txt").File("lib/x/b.txt").File("lib/x/y/c.txt")).SourceFolders("{R}/lib").Folder("{R}/out");
        yield return S("SourceFolders: empty subfolders are not created").Arrange(t => t.File("lib/a.txt").Dir("lib/empty").Dir("lib/x/empty2")).SourceFolders("{R}/lib").Folder("{R}/out");
        yield return S("SourceFolders: an empty folder").Arrange(t => t.Dir("lib")).SourceFolders("{R}/lib").Folder("{R}/out");
        yield return S("SourceFolders: trailing slash").Arrange(t => t.File("lib/a.txt")).SourceFolders("{R}/lib/").Folder("{R}/out");
        yield return S("SourceFolders: metadata flows", RunMode.Both).Arrange(t => t.File("lib/a.txt").File("lib/x/b.txt")).SourceFolders(I("{R}/lib", ("Kind", "lib"), ("Pack", "true"))).Folder("{R}/out");
        yield return S("SourceFolders after SourceFiles").Arrange(t => t.File("lib/a.txt").File("one.txt")).Sources("{R}/one.txt").SourceFolders("{R}/lib").Folder("{R}/out");
        yield return S("SourceFolders: two folders").Arrange(t => t.File("lib/a.txt").File("res/b.txt")).SourceFolders("{R}/lib", "{R}/res").Folder("{R}/out");
        yield return S("SourceFolders: two folders with one name").Arrange(t => t.File("x/lib/a.txt", "x").File("y/lib/a.txt", "y")).SourceFolders("{R}/x/lib", "{R}/y/lib").Folder("{R}/out");
        yield return S("SourceFolders: missing folder").SourceFolders("{R}/nope").Folder("{R}/out");
        yield return S("SourceFolders: a file instead of a folder").Arrange(t => t.File("lib")).SourceFolders("{R}/lib").Folder("{R}/out");
        yield return S("SourceFolders: relative").Relative().Arrange(t => t.File("lib/a.txt")).SourceFolders("lib").Folder("out");
        yield return S("SourceFolders: dot-dot spelling").Arrange(t => t.File("lib/a.txt")).SourceFolders("{R}/x/../lib").Folder("{R}/out");
        yield return S("SourceFolders: special characters in file names").Arrange(t => t.File("lib/a;b.txt").File("lib/100%.txt").File("lib/@$'.txt")).SourceFolders("{R}/lib").Folder("{R}/out");
        yield return S("SourceFolders: special characters in the folder name").Arrange(t => t.File("l;b%/a.txt")).SourceFolders("{R}/l%3Bb%25").Folder("{R}/out");
        yield return S("SourceFolders: hidden files").Arrange(t => t.File("lib/.hidden").File("lib/.d/x.txt")).SourceFolders("{R}/lib").Folder("{R}/out");
        yield return S("SourceFolders: symlinked file inside").Arrange(t => t.File("real.txt").Symlink("lib/link.txt", "{R}/real.txt").File("lib/a.txt")).SourceFolders("{R}/lib").Folder("{R}/out");
        yield return S("SourceFolders: symlinked folder inside").Arrange(t => t.File("realdir/r.txt").Symlink("lib/linkdir", "{R}/realdir").File("lib/a.txt")).SourceFolders("{R}/lib").Folder("{R}/out").Env("MSBUILDCOPYTASKPARALLELISM", "1");
        yield return S("SourceFolders: with SkipUnchangedFiles").Arrange(t => t.File("lib/a.txt").File("lib/b.txt").File("out/lib/a.txt")).SourceFolders("{R}/lib").Folder("{R}/out").Set("SkipUnchangedFiles", true);
        yield return S("SourceFolders: with hard links").Arrange(t => t.File("lib/a.txt").File("lib/x/b.txt")).SourceFolders("{R}/lib").Folder("{R}/out").Set("UseHardlinksIfPossible", true);
        yield return S("SourceFolders: into itself").Arrange(t => t.File("lib/a.txt")).SourceFolders("{R}/lib").Folder("{R}");
        yield return S("SourceFolders: destination folder is a file").Arrange(t => t.File("lib/a.txt").File("out")).SourceFolders("{R}/lib").Folder("{R}/out").FastRetries(1);
        yield return S("SourceFolders: the root folder's name").Arrange(t => t.File("lib/a.txt")).SourceFolders("{R}/lib/.").Folder("{R}/out");
        yield return S("SourceFolders: many files").Arrange(t => { for (int i = 0; i < 30; i++) { t.File($"lib/d{i % 3}/f{i}.txt"); } }).SourceFolders("{R}/lib").Folder("{R}/out");
        yield return S("SourceFolders: order of files and subfolders at two levels").Arrange(t => t.File("lib/a.txt").File("lib/z.txt").File("lib/p/b.txt").File("lib/p/q/c.txt").File("lib/p/r/d.txt").File("lib/s/e.txt").File("lib/m/f.txt"))
            .SourceFolders("{R}/lib").Folder("{R}/out").Env("MSBUILDCOPYTASKPARALLELISM", "1");
        yield return S("SourceFolders: unreadable subfolder").Arrange(t => t.File("lib/a.txt").File("lib/locked/b.txt").Mode("lib/locked", 0)).SourceFolders("{R}/lib").Folder("{R}/out").Env("MSBUILDCOPYTASKPARALLELISM", "1");
    }

    private static IEnumerable<Scenario> ProjectFileOnly()
    {
        const RunMode P = RunMode.ProjectFile;
        yield return S("project: empty item list as SourceFiles", P).Set("SourceFiles", new RawParameter("@(Nothing)")).Folder("{R}/out");
        yield return S("project: empty string SourceFiles and DestinationFolder", P).Set("SourceFiles", new RawParameter("")).Set("DestinationFolder", new RawParameter(""));
        yield return S("project: empty DestinationFolder", P).WithSource().Sources("{R}/src/a.txt").Set("DestinationFolder", new RawParameter(""));
        yield return S("project: empty DestinationFiles list", P).WithSource().Sources("{R}/src/a.txt").Set("DestinationFiles", new RawParameter("@(Nothing)"));
        yield return S("project: empty DestinationFiles list and DestinationFolder", P).WithSource().Sources("{R}/src/a.txt").Set("DestinationFiles", new RawParameter("@(Nothing)")).Folder("{R}/out");
        yield return S("project: empty Retries string", P).WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("Retries", new RawParameter(""));
        yield return S("project: sources as a semicolon list", P).Arrange(t => t.File("a.txt").File("b.txt")).Set("SourceFiles", new RawParameter("{R}/a.txt;{R}/b.txt;;")).Folder("{R}/out");
        yield return S("project: sources by wildcard", P).Arrange(t => t.File("src/a.txt").File("src/b;c.txt").File("src/d%e.txt")).Set("SourceFiles", new RawItems("{R}/src/*.txt")).Folder("{R}/out");
        yield return S("project: destination by transform", P).Arrange(t => t.File("src/a.txt").File("src/b.txt"))
            .Set("SourceFiles", new RawParameter("{R}/src/a.txt;{R}/src/b.txt")).Set("DestinationFiles", new RawParameter("{R}/src/a.txt.copy;{R}/src/b.txt.copy"));
        yield return S("project: relative paths resolve from the project", P).Arrange(t => t.File("src/a.txt")).Set("SourceFiles", new RawParameter("$(ScenarioFolder)/src/a.txt")).Set("DestinationFolder", new RawParameter("$(ScenarioFolder)/out"));
        yield return S("project: boolean parameters as strings", P).WithSource().Sources("{R}/src/a.txt").Folder("{R}/out").Set("SkipUnchangedFiles", new RawParameter("TRUE")).Set("UseHardlinksIfPossible", new RawParameter("on"));
        yield return S("project: escaped specials in DestinationFolder", P).WithSource().Sources("{R}/src/a.txt").Set("DestinationFolder", new RawParameter("{R}/o%3Bu%25t"));
        yield return S("project: unescaped semicolon splits DestinationFolder", P).EngineRejects().WithSource().Sources("{R}/src/a.txt").Set("DestinationFolder", new RawParameter("{R}/o;u"));
        yield return S("project: access denied without change wave 18.7 is not retried", P)
            .Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime).Immutable("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").FastRetries().Env("MSBUILDDISABLEFEATURESFROMVERSION", "18.7");
        yield return S("project: access denied with MSBUILDALWAYSRETRY", P)
            .Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", time: Tree.OtherTime).Immutable("out/a.txt")).Sources("{R}/src/a.txt").Folder("{R}/out").FastRetries(1).Env("MSBUILDALWAYSRETRY", "1");
        yield return S("project: overwrite read-only by environment", P)
            .Arrange(t => t.File("src/a.txt", "new").File("out/a.txt", "old", mode: 292, time: Tree.OtherTime)).Sources("{R}/src/a.txt").Folder("{R}/out").Env("MSBUILDALWAYSOVERWRITEREADONLYFILES", "1");
        yield return S("project: single-threaded, several files into new folders", P)
            .Arrange(t => t.File("src/a.txt").File("src/b.txt").File("src/c.txt")).Sources("{R}/src/a.txt", "{R}/src/b.txt", "{R}/src/c.txt").Destinations("{R}/o/x/a.txt", "{R}/o/b.txt", "{R}/o/x/y/c.txt").Env("MSBUILDCOPYTASKPARALLELISM", "1");
        yield return S("project: metadata with a semicolon", P).WithSource().Sources(I("{R}/src/a.txt", ("List", "a%3Bb"))).Folder("{R}/out");
    }
}
