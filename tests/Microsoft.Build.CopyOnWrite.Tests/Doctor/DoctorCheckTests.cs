using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Measure.Doctor;
using Microsoft.Build.CopyOnWrite.Measure.Platforms;
using Microsoft.Build.CopyOnWrite.Measure.SelfTest;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Doctor;

/// <summary>
/// The doctor's check: on real Linux volumes here (XFS, btrfs, ext4 loop images), and on Windows and macOS through the
/// volume component's seams, fed the answers those systems document.
/// </summary>
[TestClass]
public sealed class DoctorCheckTests
{
    private const uint ReFSFlags = WindowsCloneDecisions.FileSupportsBlockRefcounting | 0x3;

    [TestMethod]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    public void A_repository_whose_outputs_and_package_cache_share_a_cloning_volume_clones_what_it_builds(string kind)
    {
        LoopFileSystem volume = LoopFileSystems.Require(kind);
        string repository = volume.NewFolder("repo");

        DoctorCheck check = LinuxCheck(
            new CheckedFolder(FolderRole.Repository, repository),
            new CheckedFolder(FolderRole.BuildOutput, Path.Combine(repository, "bin")),
            new CheckedFolder(FolderRole.PackageCache, volume.NewFolder("packages")));

        Assert.IsTrue(check.RepositoryClones, Text(check));
        Assert.IsTrue(check.Folders.All(f => f.Volume.CanClone == true && f.Volume.Root == volume.MountPoint), Text(check));
        Assert.IsFalse(check.Findings.Any(f => f.Severity != Severity.Info), Text(check));
    }

    [TestMethod]
    public void A_repository_on_ext4_on_a_machine_with_no_volume_that_clones_is_an_error_that_names_the_volume_and_the_mkfs_to_type()
    {
        LoopFileSystem ext4 = LoopFileSystems.Require("ext4");
        string repository = ext4.NewFolder("repo");
        VolumeFactsInspector volumes = VolumeFactsInspector.ForThisProcess();

        // No list of the machine's other volumes: as on one with none that clones.
        DoctorCheck check = DoctorCheck.Run([new CheckedFolder(FolderRole.Repository, repository), new CheckedFolder(FolderRole.BuildOutput, Path.Combine(repository, "bin"))], volumes, AdviceOS.Linux);

        Assert.IsFalse(check.RepositoryClones);
        Finding first = check.Findings[0];
        Assert.AreEqual(Severity.Error, first.Severity);
        StringAssert.Contains(first.Message, $"{ext4.MountPoint} (ext4), which cannot clone");
        StringAssert.Contains(first.Message, "EOPNOTSUPP", "the evidence is the probe clone's refusal, not a guess from the name");
        Assert.IsTrue(first.Fix.Any(c => c.StartsWith("sudo mkfs.xfs -m reflink=1", StringComparison.Ordinal)), string.Join("\n", first.Fix));
    }

    [TestMethod]
    public void A_repository_on_ext4_on_a_machine_with_an_XFS_volume_is_told_to_move_there_not_to_make_one()
    {
        LoopFileSystem ext4 = LoopFileSystems.Require("ext4");
        using LoopFileSystem xfs = LoopFileSystems.RequireNew("xfs", 1024, LoopFileSystems.KeptFolder); // as a user keeps one: none in a temp folder is proposed
        string repository = ext4.NewFolder("repo");

        DoctorCheck check = LinuxCheck(new CheckedFolder(FolderRole.Repository, repository));

        Assert.IsTrue(check.ClonesElsewhere.Any(v => v.Root == xfs.MountPoint && v.CanClone == true), string.Join(", ", check.ClonesElsewhere.Select(v => v.Root)));
        Finding first = check.Findings[0];
        Assert.AreEqual(Severity.Error, first.Severity);
        StringAssert.Contains(first.Message, "This machine already has");
        StringAssert.Contains(first.Message, $"{xfs.MountPoint} (xfs)");
        StringAssert.StartsWith(first.Fix[0], "git clone <repository> ");
        Assert.IsFalse(first.Fix.Any(c => c.Contains("mkfs")), "no new volume needed: " + string.Join("\n", first.Fix));
        Assert.AreEqual(0, Directory.GetFileSystemEntries(xfs.MountPoint).Count(e => AtomicFile.IsTemporaryName(Path.GetFileName(e))), "the probe at the mount point is gone");
    }

    [TestMethod]
    public void A_package_cache_on_another_volume_that_restore_says_nothing_is_copied_from_is_a_warning_with_the_NUGET_PACKAGES_line()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = xfs.NewFolder("repo");
        string cache = LoopFileSystems.Ext4.NewFolder("packages");
        WriteAssets(repository, cache, withRuntimeAssembly: false);

        DoctorCheck check = LinuxCheck(new CheckedFolder(FolderRole.Repository, repository), new CheckedFolder(FolderRole.PackageCache, cache));

        Assert.IsTrue(check.RepositoryClones, "restore lists no package file a build copies: nothing comes from the cache\n" + Text(check));
        Finding warning = check.Findings.Single(f => f.Severity == Severity.Warning);
        StringAssert.Contains(warning.Message, cache);
        CollectionAssert.AreEqual(new[] { $"export NUGET_PACKAGES={xfs.MountPoint}/.nuget/packages   # and in your shell profile", "dotnet restore" }, warning.Fix.ToArray());
        Assert.AreEqual(false, DoctorCheck.Clones(check.Folders[1], check.Folders[0]), "package files reach the repository as copies");
    }

    /// <summary>Issue 32's bug at the check's level: restore says a package's assembly is copied, from a cache on ext4; Required fails on it, so the check must too.</summary>
    [TestMethod]
    public void A_package_cache_on_another_volume_that_restore_says_a_build_copies_from_fails_the_verdict()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = xfs.NewFolder("repo");
        string cache = LoopFileSystems.Ext4.NewFolder("packages");
        WriteAssets(repository, cache, withRuntimeAssembly: true);

        DoctorCheck check = LinuxCheck(new CheckedFolder(FolderRole.Repository, repository), new CheckedFolder(FolderRole.BuildOutput, Path.Combine(repository, "bin")), new CheckedFolder(FolderRole.PackageCache, cache));

        Assert.IsFalse(check.RepositoryClones, Text(check));
        Assert.AreEqual(false, check.Verdict.Clones);
        Finding error = check.Findings[0];
        Assert.AreEqual(Severity.Error, error.Severity, Text(check));
        StringAssert.Contains(error.Message, "CopyOnWriteMode=Required fails on them (COW001)");
        Assert.IsTrue(check.Verdict.Facts.Any(f => f.Contains("Dep/1.0.0", StringComparison.Ordinal)), string.Join("\n", check.Verdict.Facts));
        Assert.AreEqual(0, check.Verdict.Assumptions.Count(a => a.Contains("no restore result", StringComparison.Ordinal)));
    }

    [TestMethod]
    public void Without_a_restore_result_the_check_assumes_package_files_come_from_the_cache_and_says_so()
    {
        string repository = LoopFileSystems.Xfs.NewFolder("repo");
        string cache = LoopFileSystems.Ext4.NewFolder("packages");

        DoctorCheck check = LinuxCheck(new CheckedFolder(FolderRole.Repository, repository), new CheckedFolder(FolderRole.PackageCache, cache));

        Assert.IsFalse(check.RepositoryClones, Text(check));
        string assumption = check.Verdict.Assumptions.Single(a => a.Contains("no restore result", StringComparison.Ordinal));
        StringAssert.Contains(assumption, "run `dotnet restore` first to make it sure");
        StringAssert.Contains(string.Join("\n", DoctorReport.Lines(check)), "assumed: no restore result was found");
        using var json = System.Text.Json.JsonDocument.Parse(DoctorReport.Json(check));
        Assert.AreEqual(System.Text.Json.JsonValueKind.False, json.RootElement.GetProperty("verdict").GetProperty("clones").ValueKind);
        Assert.IsTrue(json.RootElement.GetProperty("verdict").GetProperty("assumptions").EnumerateArray().Any(a => a.GetString()!.Contains("no restore result", StringComparison.Ordinal)));
    }

    /// <summary>
    /// The probe's files never have a name (O_TMPFILE): inotify, watching the folders the check writes its probe in,
    /// sees no file made there, so a Ctrl-C or a kill at any moment of the probe can leave nothing behind.
    /// </summary>
    [TestMethod]
    [DataRow("xfs")]
    [DataRow("btrfs")]
    [DataRow("ext4")]
    public void The_probe_clone_never_gives_its_files_a_name_so_an_interrupted_probe_leaves_nothing(string kind)
    {
        string repository = LoopFileSystems.Require(kind).NewFolder("repo");
        var created = new System.Collections.Concurrent.ConcurrentBag<string>();
        using var watcher = new FileSystemWatcher(repository) { IncludeSubdirectories = true, NotifyFilter = NotifyFilters.FileName | NotifyFilters.DirectoryName };
        watcher.Created += (_, e) => created.Add(e.FullPath);
        watcher.EnableRaisingEvents = true;

        DoctorCheck check = LinuxCheck(new CheckedFolder(FolderRole.Repository, repository));
        string marker = Path.Combine(repository, "marker");
        File.WriteAllText(marker, "the watcher sees files made here");
        SpinWait.SpinUntil(() => created.Contains(marker), TimeSpan.FromSeconds(30));

        Assert.IsTrue(created.Contains(marker), "the watcher saw nothing at all, so it proves nothing");
        CollectionAssert.AreEqual(new[] { marker }, created.ToArray(), "the probe gave a file a name in " + repository);
        Assert.AreEqual(kind != "ext4", check.Folders[0].Volume.CanClone, check.Folders[0].Volume.CloneEvidence);
        StringAssert.Contains(check.Folders[0].Volume.CloneEvidence, "probe clone (FICLONE)");
    }

    /// <summary>
    /// Even as root, the check writes nothing in the .NET installation, a NuGet fallback folder or a volume it proposes:
    /// it answers from the volume's own flags (XFS's reflink bit) or its kind, and says so; a system folder is never a
    /// place for a probe either.
    /// </summary>
    [TestMethod]
    public void The_NET_installation_a_fallback_folder_and_a_proposed_volume_get_no_probe_file_and_are_answered_from_the_volumes_flags()
    {
        using LoopFileSystem xfs = LoopFileSystems.RequireNew("xfs", 1024, LoopFileSystems.KeptFolder); // proposable: not in a temp folder
        LoopFileSystem btrfs = LoopFileSystems.Btrfs;
        string repository = LoopFileSystems.Ext4.NewFolder("repo");
        string dotnet = xfs.NewFolder("dotnet");
        string fallback = btrfs.NewFolder("fallback");
        var created = new System.Collections.Concurrent.ConcurrentBag<string>();
        var watchers = new[] { dotnet, fallback, xfs.MountPoint, btrfs.MountPoint }.Select(folder => new FileSystemWatcher(folder) { NotifyFilter = NotifyFilters.FileName }).ToList();
        try
        {
            foreach (FileSystemWatcher watcher in watchers)
            {
                watcher.Created += (_, e) => created.Add(e.FullPath);
                watcher.EnableRaisingEvents = true;
            }

            DoctorCheck check = LinuxCheck(
                new CheckedFolder(FolderRole.Repository, repository),
                new CheckedFolder(FolderRole.DotnetInstallation, dotnet),
                new CheckedFolder(FolderRole.PackageFallbackFolder, fallback));
            string marker = Path.Combine(dotnet, "marker");
            File.WriteAllText(marker, "the watcher sees files made here");
            SpinWait.SpinUntil(() => created.Contains(marker), TimeSpan.FromSeconds(30));

            CollectionAssert.AreEqual(new[] { marker }, created.ToArray(), "a probe file was made where the check may not write");
            FolderOnVolume installation = check.Folders.Single(f => f.Folder.Role == FolderRole.DotnetInstallation);
            Assert.AreEqual(true, installation.Volume.CanClone, installation.Volume.CloneEvidence);
            StringAssert.Contains(installation.Volume.CloneEvidence, "the XFS volume's own flags (XFS_IOC_FSGEOMETRY) say reflink is on");
            StringAssert.Contains(installation.Volume.CloneEvidence, "the doctor writes only where a build writes");
            StringAssert.Contains(check.Folders.Single(f => f.Folder.Role == FolderRole.PackageFallbackFolder).Volume.CloneEvidence, "btrfs always clones");
            Assert.IsTrue(check.ClonesElsewhere.Any(v => v.Root == xfs.MountPoint), "the XFS volume is proposed from its flags: " + Text(check));
        }
        finally
        {
            watchers.ForEach(w => w.Dispose());
        }

        Assert.IsFalse(DoctorCheck.MayProbe(new CheckedFolder(FolderRole.PackageCache, "/usr/share/dotnet/packages"), []), "a system folder, even for a role a build writes to");
        Assert.IsFalse(DoctorCheck.MayProbe(new CheckedFolder(FolderRole.Repository, "/opt/dotnet/sdk"), ["/opt/dotnet"]), "inside the .NET installation");
        Assert.IsTrue(DoctorCheck.MayProbe(new CheckedFolder(FolderRole.Repository, "/usr/src/app"), ["/usr/share/dotnet"]), "a container's /usr/src/app is a repository like any");
    }

    /// <summary>XFS made without reflink, asked without a probe: its own flags say it does not clone (not "unknown").</summary>
    [TestMethod]
    public void An_XFS_volume_without_reflink_is_told_apart_by_its_flags_without_a_probe()
    {
        using LoopFileSystem noReflink = LoopFileSystems.RequireNew("xfs-noreflink", 300);
        VolumeFactsInspector volumes = VolumeFactsInspector.ForThisProcess();

        VolumeFacts without = volumes.Inspect(noReflink.NewFolder("a"), mayWrite: false);
        VolumeFacts with = volumes.Inspect(LoopFileSystems.Xfs.NewFolder("b"), mayWrite: false);

        Assert.AreEqual(false, without.CanClone, without.CloneEvidence);
        StringAssert.Contains(without.CloneEvidence, "reflink is off");
        Assert.AreEqual(true, with.CanClone, with.CloneEvidence);
    }

    /// <summary>
    /// The doctor reads the project's settings with the build's parser and sorts sources with the build's CopySources: a
    /// relative CopyOnWriteAcceptCopiesFrom entry is the COW003 a build stops on (not silently dropped), and a package
    /// folder on ext4 named by NUGET_FALLBACK_PACKAGES is accepted, as Required accepts it.
    /// </summary>
    [TestMethod]
    public void The_doctor_reads_settings_and_sorts_sources_by_the_builds_own_rules()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = xfs.NewFolder("repo");
        string fallback = LoopFileSystems.Ext4.NewFolder("fallback");
        WriteAssets(repository, fallback, withRuntimeAssembly: true);
        var properties = new Dictionary<string, string>
        {
            ["MSBuildProjectFullPath"] = Path.Combine(repository, "App.csproj"),
            ["OutDir"] = "bin/",
            ["NUGET_FALLBACK_PACKAGES"] = fallback + ";relative/ignored",
            ["_OutputFallbackFolders"] = fallback,
            ["CopyOnWriteAcceptCopiesFrom"] = "tools",
            ["CopyOnWriteInsteadOfLinks"] = " True ",
        };
        ProjectFolders project = ProjectFolders.From(name => properties.GetValueOrDefault(name));

        Assert.IsTrue(project.Facts.InsteadOfLinks, "the build trims and reads True as on");
        Assert.AreEqual(SourceOrigin.NuGetFallbackFolder, project.Facts.Sources.OriginOf(Path.Combine(fallback, "dep", "1.0.0", "Dep.dll")));
        DoctorCheck check = DoctorCheck.Run(project.Folders, VolumeFactsInspector.ForThisProcess(), AdviceOS.Linux, project.Facts, LinuxMounts.VolumesUsersKeepThatMayClone);

        Finding bad = check.Findings.Single(f => f.Message.Contains("not a full path", StringComparison.Ordinal));
        Assert.AreEqual(Severity.Error, bad.Severity);
        StringAssert.Contains(bad.Message, "\"tools\", which is not a full path");
        StringAssert.Contains(bad.Message, "COW003");
        BuildCopy fromFallback = check.Verdict.Copies.Single(c => c.What.StartsWith("package files", StringComparison.Ordinal));
        Assert.AreEqual(SourceOrigin.NuGetFallbackFolder, fromFallback.Source, Text(check));
        Assert.AreEqual(true, fromFallback.Passes, "Required accepts copies from a fallback folder");
    }

    /// <summary>A project.assets.json as restore writes it, in the repository's obj/: one package, Dep, in <paramref name="packageFolder"/>, with an assembly a build copies or only a placeholder.</summary>
    private static void WriteAssets(string repository, string packageFolder, bool withRuntimeAssembly)
    {
        Directory.CreateDirectory(Path.Combine(packageFolder, "dep", "1.0.0"));
        Directory.CreateDirectory(Path.Combine(repository, "obj"));
        string runtime = withRuntimeAssembly ? "lib/net10.0/Dep.dll" : "lib/net10.0/_._";
        File.WriteAllText(Path.Combine(repository, "obj", "project.assets.json"), $$"""
            {
              "version": 3,
              "targets": { "net10.0": { "Dep/1.0.0": { "type": "package", "compile": { "{{runtime}}": {} }, "runtime": { "{{runtime}}": {} } } } },
              "libraries": { "Dep/1.0.0": { "type": "package", "path": "dep/1.0.0", "files": [] } },
              "packageFolders": { "{{packageFolder.TrimEnd('/')}}/": {} }
            }
            """);
    }

    [TestMethod]
    public void An_output_folder_on_another_volume_means_the_repository_does_not_clone_what_it_builds()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = xfs.NewFolder("repo");

        DoctorCheck check = LinuxCheck(new CheckedFolder(FolderRole.Repository, repository), new CheckedFolder(FolderRole.BuildOutput, Path.Combine(LoopFileSystems.Btrfs.NewFolder("out"), "bin")));

        Assert.IsFalse(check.RepositoryClones);
        StringAssert.Contains(check.Findings[0].Message, "not on the repository's volume");
        StringAssert.Contains(string.Join("\n", check.Findings[0].Fix), "ArtifactsPath");
    }

    [TestMethod]
    public void The_json_names_every_folder_its_volume_and_whether_each_pair_clones()
    {
        LoopFileSystem xfs = LoopFileSystems.Require("xfs");
        string repository = xfs.NewFolder("repo \"quoted\"");

        DoctorCheck check = LinuxCheck(new CheckedFolder(FolderRole.Repository, repository), new CheckedFolder(FolderRole.TempFolder, LoopFileSystems.Ext4.NewFolder("tmp")));
        string json = DoctorReport.Json(check);

        using var document = System.Text.Json.JsonDocument.Parse(json);
        Assert.IsTrue(document.RootElement.GetProperty("repositoryClones").GetBoolean());
        var folders = document.RootElement.GetProperty("folders").EnumerateArray().ToList();
        Assert.AreEqual(repository, folders[0].GetProperty("path").GetString());
        Assert.AreEqual("xfs", folders[0].GetProperty("fileSystem").GetString());
        Assert.AreEqual("ext4", folders[1].GetProperty("fileSystem").GetString());
        Assert.IsFalse(document.RootElement.GetProperty("pairs").EnumerateArray().First().GetProperty("clones").GetBoolean());
    }

    [TestMethod]
    public void An_untrusted_Dev_Drive_clones_and_the_finding_is_the_fsutil_command_that_trusts_it()
    {
        var windows = new AnsweringWindows
        {
            Volumes =
            {
                [@"D:\"] = ("ReFS", ReFSFlags, SystemAnswer<uint>.Ok(WindowsVolumeFacts.PersistentVolumeStateDevVolume)),
                [@"C:\"] = ("NTFS", 0x3u, SystemAnswer<uint>.Ok(0)),
            },
        };

        DoctorCheck check = WindowsCheck(windows, new CheckedFolder(FolderRole.Repository, @"D:\src\app"), new CheckedFolder(FolderRole.PackageCache, @"C:\Users\me\.nuget\packages"));

        Assert.IsFalse(check.RepositoryClones, "not restored: package files are assumed to come from the cache on C:, which Required fails");
        Assert.AreEqual(true, check.Folders[0].Volume.DevDrive);
        Assert.AreEqual(true, new WindowsVolumes(windows).CanClone(@"D:\src\app"), "the build's answer: a clone can stand in for a link there");
        Finding trust = check.Findings.Single(f => f.Message.Contains("not trusted"));
        CollectionAssert.AreEqual(new[] { "fsutil devdrv trust D:", "fsutil devdrv query D:" }, trust.Fix.ToArray());
        Finding cache = check.Findings.Single(f => f.Message.Contains("package cache"));
        CollectionAssert.AreEqual(new[] { @"setx NUGET_PACKAGES D:\packages", "(open a new terminal, then) dotnet restore" }, cache.Fix.ToArray());
        Assert.AreEqual(0, windows.PersistentStateQueries[@"C:\"], "NTFS is never a Dev Drive: no query");
    }

    [TestMethod]
    public void A_repository_on_NTFS_is_an_error_whose_fix_formats_a_Dev_Drive()
    {
        var windows = new AnsweringWindows { Volumes = { [@"C:\"] = ("NTFS", 0x3u, SystemAnswer<uint>.Ok(0)) } };

        DoctorCheck check = WindowsCheck(windows, new CheckedFolder(FolderRole.Repository, @"C:\src\app"));

        Assert.IsFalse(check.RepositoryClones);
        Assert.AreEqual(false, new WindowsVolumes(windows).CanClone(@"C:\src\app"), "the build's answer");
        StringAssert.Contains(check.Findings[0].Message, "no FILE_SUPPORTS_BLOCK_REFCOUNTING");
        StringAssert.StartsWith(check.Findings[0].Fix[0], "Format-Volume -DriveLetter D -DevDrive");
    }

    /// <summary>A share answers with its server's flags; the engine does not clone over one, so neither may the doctor say it does.</summary>
    [TestMethod]
    public void A_network_share_that_reports_block_cloning_does_not_clone_by_the_engines_own_rule()
    {
        var windows = new AnsweringWindows { Volumes = { [@"Z:\"] = ("ReFS", ReFSFlags, SystemAnswer<uint>.Ok(0)) }, NetworkDrives = { @"Z:\" } };

        DoctorCheck check = WindowsCheck(windows, new CheckedFolder(FolderRole.Repository, @"Z:\src\app"));

        VolumeFacts share = check.Folders[0].Volume;
        Assert.AreEqual(false, share.CanClone, share.CloneEvidence);
        StringAssert.Contains(share.CloneEvidence, "a network share");
        Assert.IsFalse(check.RepositoryClones);
        Assert.AreEqual(WindowsCloneDecisions.WhyVolumeCannotClone(new WindowsVolume(ReFSFlags, "ReFS", isNetworkShare: true), out _) == FallbackReason.None, share.CanClone, "the doctor and the engine agree");
        Assert.AreEqual(false, new WindowsVolumes(windows).CanClone(@"Z:\src\app"), "and the build, which links as asked there");
    }

    [TestMethod]
    public void A_trusted_Dev_Drive_on_Windows_11_24H2_says_the_stock_task_clones_there_too()
    {
        var windows = new AnsweringWindows
        {
            OSBuild = WindowsVolumeFacts.FirstBuildWhoseCopyFileClones,
            Volumes = { [@"D:\"] = ("ReFS", ReFSFlags, SystemAnswer<uint>.Ok(WindowsVolumeFacts.PersistentVolumeStateDevVolume | WindowsVolumeFacts.PersistentVolumeStateTrustedVolume)) },
        };

        DoctorCheck check = WindowsCheck(windows, new CheckedFolder(FolderRole.Repository, @"D:\src\app"));

        Assert.AreEqual(true, check.Folders[0].Volume.TrustedDevDrive);
        Assert.IsTrue(check.Findings.Any(f => f.Message.Contains("trusted Dev Drive")));
        Assert.IsTrue(check.Findings.Any(f => f.Message.Contains("24H2")));
        Assert.IsFalse(check.Findings.Any(f => f.Severity != Severity.Info));
    }

    [TestMethod]
    public void On_macOS_an_HFS_volume_is_refused_by_the_probe_clone_and_the_fix_adds_an_APFS_volume()
    {
        var mac = new AnsweringMac(new Dictionary<string, (string, int)> { ["/Volumes/Old"] = ("hfs", MacVolumes.ENOTSUP) });

        DoctorCheck check = DoctorCheck.Run([new CheckedFolder(FolderRole.Repository, "/Volumes/Old/src/app")], new MacVolumeFacts(mac), AdviceOS.MacOS);

        Assert.AreEqual(false, check.Folders[0].Volume.CanClone);
        Assert.AreEqual(false, new MacVolumes(mac).CanClone("/Volumes/Old/src/app"), "the build's answer");
        StringAssert.Contains(check.Findings[0].Message, "ENOTSUP");
        StringAssert.StartsWith(check.Findings[0].Fix[0], "diskutil apfs addVolume");
    }

    [TestMethod]
    public void On_macOS_a_read_only_APFS_folder_is_known_to_clone_without_a_probe()
    {
        var mac = new AnsweringMac(new Dictionary<string, (string, int)> { ["/System/Volumes/Data"] = ("apfs", -1) });

        DoctorCheck check = DoctorCheck.Run([new CheckedFolder(FolderRole.Repository, "/System/Volumes/Data/src")], new MacVolumeFacts(mac), AdviceOS.MacOS);

        Assert.AreEqual(true, check.Folders[0].Volume.CanClone, check.Folders[0].Volume.CloneEvidence);
        StringAssert.Contains(check.Folders[0].Volume.CloneEvidence, "cannot be written to");
        Assert.IsNull(new MacVolumes(mac).CanClone("/System/Volumes/Data/src"), "the build does not guess where it cannot probe: a link asked for is made");
    }

    private static DoctorCheck LinuxCheck(params CheckedFolder[] folders)
        => DoctorCheck.Run(folders, VolumeFactsInspector.ForThisProcess(), AdviceOS.Linux, volumesThatMayClone: LinuxMounts.VolumesUsersKeepThatMayClone);

    private static DoctorCheck WindowsCheck(AnsweringWindows windows, params CheckedFolder[] folders)
        => DoctorCheck.Run(folders, new WindowsVolumeFacts(windows), AdviceOS.Windows);

    private static string Text(DoctorCheck check) => string.Join("\n", DoctorReport.Lines(check));


    /// <summary>Windows' documented answers for a few drives, keyed by volume root (the drive of a path).</summary>
    private sealed class AnsweringWindows : IWindowsVolumeFactsSystem
    {
        public Dictionary<string, (string FileSystem, uint Flags, SystemAnswer<uint> State)> Volumes { get; } = new();

        public Dictionary<string, int> PersistentStateQueries { get; } = new();

        public int OSBuild { get; init; } = 22631;

        public HashSet<string> NetworkDrives { get; } = new();

        public SystemAnswer<string> VolumeRoot(string path) => SystemAnswer<string>.Ok(path.Substring(0, 3));

        public bool IsNetworkDrive(string root) => NetworkDrives.Contains(root);

        public SystemAnswer<WindowsVolumeInformation> VolumeInformation(string root)
            => Volumes.TryGetValue(root, out var volume) ? SystemAnswer<WindowsVolumeInformation>.Ok(new(volume.FileSystem, volume.Flags)) : SystemAnswer<WindowsVolumeInformation>.Failed(21);

        public SystemAnswer<uint> PersistentVolumeState(string root)
        {
            PersistentStateQueries[root] = PersistentStateQueries.GetValueOrDefault(root) + 1;
            return Volumes[root].State;
        }

        public AnsweringWindows()
        {
            foreach (string root in new[] { @"C:\", @"D:\" })
            {
                PersistentStateQueries[root] = 0;
            }
        }
    }

    /// <summary>macOS's answers: statfs by mount point (the longest that holds the path) and the probe clone's errno there.</summary>
    private sealed class AnsweringMac(Dictionary<string, (string Type, int ProbeErrno)> mounts) : IMacVolumeSystem
    {
        public SystemAnswer<MacFileSystemStatus> StatFs(string path)
        {
            string mount = mounts.Keys.Where(m => path.StartsWith(m, StringComparison.Ordinal)).OrderByDescending(m => m.Length).First();
            return SystemAnswer<MacFileSystemStatus>.Ok(new MacFileSystemStatus(mounts[mount].Type, mount, 1000, 500, 4096));
        }

        public int ProbeClone(string folder) => mounts[StatFs(folder).Value.MountedOn].ProbeErrno;
    }
}
