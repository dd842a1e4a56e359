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
    [TestMethod]
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

    [TestMethod]
    [DataRow(5, "EIO")]
    [DataRow(12, "ENOMEM")]
    [DataRow(28, "ENOSPC")]
    [DataRow(122, "EDQUOT")]
    [DataRow(27, "EFBIG")]
    public void A_real_Linux_failure_is_not_a_fallback(int errno, string name)
    {
        Assert.IsNull(CloneErrors.ClassifyLinux(errno), name);
    }

    [TestMethod]
    [DataRow(18, FallbackReason.DifferentVolumes, "EXDEV")]
    [DataRow(45, FallbackReason.FileSystemCannotClone, "ENOTSUP")]
    [DataRow(102, FallbackReason.FileSystemCannotClone, "EOPNOTSUPP")]
    [DataRow(78, FallbackReason.FileSystemCannotClone, "ENOSYS")]
    [DataRow(22, FallbackReason.FileSystemRefused, "EINVAL (after the retry without CLONE_ACL)")]
    [DataRow(1, FallbackReason.FileSystemRefused, "EPERM")]
    [DataRow(13, FallbackReason.FileSystemRefused, "EACCES")]
    [DataRow(11, FallbackReason.FileSystemRefused, "EDEADLK: a file not downloaded yet")]
    [DataRow(12, FallbackReason.FileSystemRefused, "ENOMEM")]
    [DataRow(4242, FallbackReason.FileSystemRefused, "a code no man page lists")]
    public void A_macOS_error_that_means_cannot_clone_here_falls_back_to_a_copy(int errno, object expected, string name)
    {
        Assert.AreEqual(expected, (object?)CloneErrors.ClassifyMac(errno), name);
    }

    [TestMethod]
    [DataRow(5, "EIO")]
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
        // 95 is EOPNOTSUPP on Linux but unassigned on macOS (there only a per-file reason to copy, as any unknown
        // code); 45 is ENOTSUP on macOS but EL2NSYNC on Linux.
        Assert.AreEqual(FallbackReason.FileSystemCannotClone, CloneErrors.ClassifyLinux(95));
        Assert.AreEqual(FallbackReason.FileSystemRefused, CloneErrors.ClassifyMac(95));
        Assert.AreEqual(FallbackReason.FileSystemCannotClone, CloneErrors.ClassifyMac(45));
        Assert.IsNull(CloneErrors.ClassifyLinux(45));
    }

    [TestMethod]
    [DataRow(112, "ERROR_DISK_FULL")]
    [DataRow(39, "ERROR_HANDLE_DISK_FULL")]
    [DataRow(1117, "ERROR_IO_DEVICE")]
    [DataRow(23, "ERROR_CRC")]
    [DataRow(1295, "ERROR_DISK_QUOTA_EXCEEDED")]
    [DataRow(21, "ERROR_NOT_READY")]
    [DataRow(27, "ERROR_SECTOR_NOT_FOUND")]
    [DataRow(29, "ERROR_WRITE_FAULT")]
    [DataRow(30, "ERROR_READ_FAULT")]
    [DataRow(483, "ERROR_DEVICE_HARDWARE_ERROR")]
    [DataRow(1167, "ERROR_DEVICE_NOT_CONNECTED")]
    [DataRow(1392, "ERROR_FILE_CORRUPT")]
    [DataRow(1393, "ERROR_DISK_CORRUPT")]
    public void A_Windows_device_or_space_error_of_a_clone_step_is_a_real_failure(int error, string name)
    {
        Assert.IsTrue(WindowsErrors.IsDeviceOrSpaceFailure(error), name);
    }

    [TestMethod]
    [DataRow(1, "ERROR_INVALID_FUNCTION")]
    [DataRow(5, "ERROR_ACCESS_DENIED")]
    [DataRow(50, "ERROR_NOT_SUPPORTED")]
    [DataRow(87, "ERROR_INVALID_PARAMETER")]
    [DataRow(134, "seen from an older build (CopyOnWrite#1)")]
    [DataRow(347, "ERROR_BLOCK_TOO_MANY_REFERENCES")]
    [DataRow(1450, "ERROR_NO_SYSTEM_RESOURCES")]
    [DataRow(8, "ERROR_NOT_ENOUGH_MEMORY")]
    [DataRow(12345, "a code no table lists")]
    public void Any_other_Windows_error_of_a_clone_step_makes_that_file_a_copy(int error, string name)
    {
        Assert.IsFalse(WindowsErrors.IsDeviceOrSpaceFailure(error), name);
    }
}
