using System;
using System.IO;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// The Windows rules written out so they hold on any OS (src/Microsoft.Build.CopyOnWrite/Cloning/Windows/
/// WindowsCloneDecisions.cs): how long a path's root is (stream names are WindowsNativeLayoutTests'), where the temporary file goes, and
/// which exception, with which text, a Win32 error becomes (the stock task's messages come from .NET's own).
/// </summary>
[TestClass]
public sealed class WindowsPathsAndErrorsTests
{
    [TestMethod]
    [DataRow(@"C:\out\a.dll", 3)]
    [DataRow(@"C:/out/a.dll", 3)]
    [DataRow(@"C:a.dll", 2)]
    [DataRow(@"C:", 2)]
    [DataRow(@"1:\a", 0)]
    [DataRow(@"\out\a.dll", 0)]
    [DataRow(@"a", 0)]
    [DataRow(@"", 0)]
    [DataRow(@"\\server\share\a.dll", 15)]
    [DataRow(@"//server/share/a.dll", 15)]
    [DataRow(@"\\server\share", 14)]
    [DataRow(@"\\?\C:\out\a.dll", 7)]
    [DataRow(@"\\.\C:\out\a.dll", 7)]
    [DataRow(@"\\?\Volume{1}\a.dll", 14)]
    [DataRow(@"\\.\pipe\name", 9)]
    [DataRow(@"\\?\UNC\server\share\a.dll", 21)]
    [DataRow(@"\\?\unc\server\share\a.dll", 21)]
    [DataRow(@"\\?x\a", 6)]
    [DataRow(@"\\", 2)]
    [DataRow(@"\\?", 3)]
    [DataRow(@"\\?\C:", 6)]
    [DataRow(@"\\x\UNC\s\h\a", 8)]
    [DataRow(@"\\\a\b", 5)]
    public void The_root_of_a_path(string path, int length)
        => Assert.AreEqual(length, WindowsPaths.RootLength(path), path);

    [TestMethod]
    [DataRow(@"App.dll", "")]
    [DataRow(@"D:\App.dll", @"D:\")]
    [DataRow(@"\App.dll", @"\")]
    [DataRow(@"D:/out/App.dll", @"D:/out/")]
    public void The_temporary_file_goes_in_the_destinations_own_folder(string destination, string folder)
    {
        string temporary = WindowsPaths.TemporaryPathBeside(destination);

        Assert.AreEqual(folder, temporary.Substring(0, temporary.Length - Path.GetFileName(temporary.Replace('\\', '/')).Length), destination);
        StringAssert.StartsWith(Path.GetFileName(temporary.Replace('\\', '/')), ".App.dll.");
    }

    [TestMethod]
    [DataRow(2, typeof(FileNotFoundException), "Could not find file 'X'.")]
    [DataRow(3, typeof(DirectoryNotFoundException), "Could not find a part of the path 'X'.")]
    [DataRow(5, typeof(UnauthorizedAccessException), "Access to the path 'X' is denied.")]
    [DataRow(32, typeof(IOException), "The process cannot access the file 'X' because it is being used by another process.")]
    [DataRow(80, typeof(IOException), "The file 'X' already exists.")]
    [DataRow(183, typeof(IOException), "The file 'X' already exists.")]
    [DataRow(206, typeof(PathTooLongException), "The path 'X' is too long, or a component of the specified path is too long.")]
    [DataRow(111, typeof(PathTooLongException), "The path 'X' is too long, or a component of the specified path is too long.")]
    [DataRow(1235, typeof(OperationCanceledException), null)]
    [DataRow(1117, typeof(IOException), "Win32 error (error 1117) : 'X'")]
    public void A_Win32_error_is_the_exception_and_text_of_dotnets_own_file_APIs(int error, Type type, string? message)
    {
        Exception exception = WindowsErrors.ToException(error, "X");

        Assert.AreEqual(type, exception.GetType(), $"error {error}");
        if (message is not null)
        {
            Assert.AreEqual(message, exception.Message, $"error {error}");
        }

        if (exception is IOException and not FileNotFoundException and not DirectoryNotFoundException and not PathTooLongException)
        {
            Assert.AreEqual(unchecked((int)0x80070000) | error, exception.HResult, "the HRESULT carries the Win32 error, as .NET's own");
        }
    }

    [TestMethod]
    public void A_volume_stays_known_while_others_are_asked_and_one_that_could_not_be_queried_is_asked_again()
    {
        var cache = new WindowsVolumeCache(new CloneCapabilityCache());
        int askedFirst = 0, askedUnqueryable = 0;
        WindowsVolume first = new(0, "ReFS", isNetworkShare: false);

        cache.Of(1, () => { askedFirst++; return first; });
        cache.Of(2, () => new WindowsVolume(0, "NTFS", isNetworkShare: false));
        WindowsVolume again = cache.Of(1, () => { askedFirst++; return first; });
        cache.Of(3, () => { askedUnqueryable++; return WindowsVolume.Unqueryable("access denied"); });
        cache.Of(3, () => { askedUnqueryable++; return WindowsVolume.Unqueryable("access denied"); });

        Assert.AreSame(first, again);
        Assert.AreEqual(1, askedFirst, "asking another volume forgot the first");
        Assert.AreEqual(2, askedUnqueryable, "a failed query is no answer to keep");
    }

    [TestMethod]
    public void A_failed_CopyFileExW_names_the_source_when_it_is_missing_and_the_destination_otherwise()
    {
        Assert.AreEqual("Could not find file 'S'.", WindowsErrors.ToCopyException(2, "S", "D").Message);
        Assert.AreEqual("Access to the path 'D' is denied.", WindowsErrors.ToCopyException(5, "S", "D").Message);
    }

    [TestMethod]
    public void Recent_is_less_than_the_window_ago_or_in_the_future()
    {
        var window = TimeSpan.FromSeconds(2);
        long now = 1_000_000_000;

        Assert.IsTrue(WindowsCloneDecisions.IsRecent(now - window.Ticks + 1, now, window));
        Assert.IsFalse(WindowsCloneDecisions.IsRecent(now - window.Ticks, now, window), "exactly the window ago is no longer recent");
        Assert.IsTrue(WindowsCloneDecisions.IsRecent(now + 1, now, window), "a stamp in the future");
    }

    [TestMethod]
    [DataRow(512L, true)]
    [DataRow(4096L, true)]
    [DataRow(2L << 20, true)]
    [DataRow((2L << 20) + 512, false)]
    [DataRow(4L << 20, false)]
    public void A_cluster_size_a_volume_can_have(long clusterBytes, bool usable)
        => Assert.AreEqual(usable, WindowsCloneDecisions.IsUsableClusterSize(clusterBytes), clusterBytes.ToString());

    [TestMethod]
    public void The_planner_refuses_a_negative_size_and_an_impossible_cluster_with_the_argument_named()
    {
        var negative = Assert.ThrowsExactly<ArgumentOutOfRangeException>(() => WindowsCloneDecisions.PlanChunks(-1, 4096));
        var cluster = Assert.ThrowsExactly<ArgumentOutOfRangeException>(() => WindowsCloneDecisions.PlanChunks(4096, 3000));

        Assert.AreEqual("fileSize", negative.ParamName);
        StringAssert.StartsWith(negative.Message, "A file size cannot be negative.");
        Assert.AreEqual("clusterBytes", cluster.ParamName);
        StringAssert.StartsWith(cluster.Message, "Not a cluster size a volume can have.");
    }
}
