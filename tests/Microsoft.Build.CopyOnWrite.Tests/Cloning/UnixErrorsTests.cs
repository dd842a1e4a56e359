using System;
using System.IO;
using System.Runtime.InteropServices;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// The exception an errno becomes, as .NET's file APIs would throw it. The numbers are the OS's own: a name too
/// long is 36 on Linux but 63 on macOS, where 36 is EINPROGRESS.
/// </summary>
[TestClass]
public sealed class UnixErrorsTests
{
    private const string Path = "/some/folder/file.bin";

    [TestMethod]
    public void Each_OS_gets_its_own_errno_table()
    {
        Assert.AreSame(ErrnoTable.Linux, ErrnoTable.For(OSPlatform.Linux));
        Assert.AreSame(ErrnoTable.Bsd, ErrnoTable.For(OSPlatform.OSX));
        Assert.AreSame(ErrnoTable.Bsd, ErrnoTable.For(OSPlatform.FreeBSD));
        Assert.AreSame(ErrnoTable.Linux, ErrnoTable.ThisProcess, "this machine runs Linux");
    }

    [TestMethod]
    [DataRow(36, "PathTooLongException", "ENAMETOOLONG")]
    [DataRow(63, "IOException", "ENOSR: no special meaning")]
    [DataRow(2, "FileNotFoundException", "ENOENT")]
    [DataRow(1, "UnauthorizedAccessException", "EPERM")]
    [DataRow(13, "UnauthorizedAccessException", "EACCES")]
    [DataRow(5, "IOException", "EIO")]
    public void On_Linux_an_errno_becomes_the_exception_NET_would_throw(int errno, string expected, string name)
    {
        Assert.AreEqual(expected, UnixErrors.ToException(errno, Path, ErrnoTable.Linux).GetType().Name, name);
    }

    [TestMethod]
    [DataRow(63, "PathTooLongException", "ENAMETOOLONG")]
    [DataRow(36, "IOException", "EINPROGRESS: not a long name")]
    [DataRow(2, "FileNotFoundException", "ENOENT")]
    [DataRow(1, "UnauthorizedAccessException", "EPERM")]
    [DataRow(13, "UnauthorizedAccessException", "EACCES")]
    [DataRow(5, "IOException", "EIO")]
    public void On_macOS_an_errno_becomes_the_exception_NET_would_throw(int errno, string expected, string name)
    {
        Assert.AreEqual(expected, UnixErrors.ToException(errno, Path, ErrnoTable.Bsd).GetType().Name, name);
    }

    [TestMethod]
    public void The_exception_names_the_path_and_keeps_the_errno()
    {
        Exception e = UnixErrors.ToException(5, Path, ErrnoTable.Linux);

        StringAssert.Contains(e.Message, Path);
        Assert.AreEqual(5, e.HResult);
    }

    [TestMethod]
    public void On_this_Linux_machine_a_real_name_too_long_is_reported_as_one()
    {
        string tooLong = System.IO.Path.Combine(System.IO.Path.GetTempPath(), new string('n', 300));

        Assert.ThrowsExactly<PathTooLongException>(() => AtomicFile.Replace(tooLong, tooLong + "-destination"));
    }
}
