using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// Which clone errors mean "copy instead" and which are real failures that must reach the user: a disk that
/// is full or failing must never be hidden behind a silent fallback.
/// </summary>
/// <remarks>Expected reasons arrive as object: FallbackReason is internal, and a public test method cannot take it.</remarks>
[TestClass]
public sealed class CloneErrorsTests
{
    [DataTestMethod]
    [DataRow(18, FallbackReason.DifferentVolumes, "EXDEV")]
    [DataRow(95, FallbackReason.FileSystemCannotClone, "EOPNOTSUPP")]
    [DataRow(22, FallbackReason.FileSystemCannotClone, "EINVAL")]
    [DataRow(9, FallbackReason.FileSystemCannotClone, "EBADF")]
    [DataRow(38, FallbackReason.FileSystemCannotClone, "ENOSYS")]
    [DataRow(25, FallbackReason.FileSystemCannotClone, "ENOTTY")]
    [DataRow(26, FallbackReason.FileSystemRefused, "ETXTBSY")]
    [DataRow(1, FallbackReason.FileSystemRefused, "EPERM")]
    [DataRow(13, FallbackReason.FileSystemRefused, "EACCES")]
    public void A_Linux_error_that_means_cannot_clone_here_falls_back_to_a_copy(int errno, object expected, string name)
    {
        Assert.AreEqual(expected, (object?)CloneErrors.ClassifyLinux(errno), name);
    }

    [DataTestMethod]
    [DataRow(5, "EIO")]
    [DataRow(12, "ENOMEM")]
    [DataRow(28, "ENOSPC")]
    [DataRow(122, "EDQUOT")]
    [DataRow(27, "EFBIG")]
    public void A_real_Linux_failure_is_not_a_fallback(int errno, string name)
    {
        Assert.IsNull(CloneErrors.ClassifyLinux(errno), name);
    }

    [DataTestMethod]
    [DataRow(18, FallbackReason.DifferentVolumes, "EXDEV")]
    [DataRow(45, FallbackReason.FileSystemCannotClone, "ENOTSUP")]
    [DataRow(102, FallbackReason.FileSystemCannotClone, "EOPNOTSUPP")]
    [DataRow(78, FallbackReason.FileSystemCannotClone, "ENOSYS")]
    [DataRow(22, FallbackReason.FileSystemCannotClone, "EINVAL")]
    [DataRow(1, FallbackReason.FileSystemRefused, "EPERM")]
    [DataRow(13, FallbackReason.FileSystemRefused, "EACCES")]
    public void A_macOS_error_that_means_cannot_clone_here_falls_back_to_a_copy(int errno, object expected, string name)
    {
        Assert.AreEqual(expected, (object?)CloneErrors.ClassifyMac(errno), name);
    }

    [DataTestMethod]
    [DataRow(5, "EIO")]
    [DataRow(12, "ENOMEM")]
    [DataRow(28, "ENOSPC")]
    [DataRow(69, "EDQUOT")]
    [DataRow(17, "EEXIST")]
    public void A_real_macOS_failure_is_not_a_fallback(int errno, string name)
    {
        Assert.IsNull(CloneErrors.ClassifyMac(errno), name);
    }

    [TestMethod]
    public void The_same_number_means_different_things_on_Linux_and_macOS()
    {
        // 95 is EOPNOTSUPP on Linux but unassigned on macOS; 45 is ENOTSUP on macOS but EL2NSYNC on Linux.
        Assert.AreEqual(FallbackReason.FileSystemCannotClone, CloneErrors.ClassifyLinux(95));
        Assert.IsNull(CloneErrors.ClassifyMac(95));
        Assert.AreEqual(FallbackReason.FileSystemCannotClone, CloneErrors.ClassifyMac(45));
        Assert.IsNull(CloneErrors.ClassifyLinux(45));
    }

    [DataTestMethod]
    [DataRow(17, FallbackReason.DifferentVolumes, "ERROR_NOT_SAME_DEVICE")]
    [DataRow(1, FallbackReason.FileSystemCannotClone, "ERROR_INVALID_FUNCTION")]
    [DataRow(50, FallbackReason.FileSystemCannotClone, "ERROR_NOT_SUPPORTED")]
    [DataRow(87, FallbackReason.FileSystemCannotClone, "ERROR_INVALID_PARAMETER")]
    [DataRow(347, FallbackReason.FileSystemRefused, "ERROR_BLOCK_TOO_MANY_REFERENCES")]
    [DataRow(5, FallbackReason.FileSystemRefused, "ERROR_ACCESS_DENIED")]
    public void A_Windows_error_that_means_cannot_clone_here_falls_back_to_a_copy(int error, object expected, string name)
    {
        Assert.AreEqual(expected, (object?)CloneErrors.ClassifyWindows(error), name);
    }

    [DataTestMethod]
    [DataRow(112, "ERROR_DISK_FULL")]
    [DataRow(39, "ERROR_HANDLE_DISK_FULL")]
    [DataRow(1117, "ERROR_IO_DEVICE")]
    [DataRow(23, "ERROR_CRC")]
    [DataRow(8, "ERROR_NOT_ENOUGH_MEMORY")]
    [DataRow(14, "ERROR_OUTOFMEMORY")]
    public void A_real_Windows_failure_is_not_a_fallback(int error, string name)
    {
        Assert.IsNull(CloneErrors.ClassifyWindows(error), name);
    }
}
