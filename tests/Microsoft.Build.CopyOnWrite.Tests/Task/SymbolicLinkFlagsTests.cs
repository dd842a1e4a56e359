using System.Collections.Generic;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Task;

/// <summary>
/// The .NET Framework task's symbolic links on Windows: it asks for an unprivileged link (Developer Mode), which
/// Windows before build 14972 refuses with ERROR_INVALID_PARAMETER; then it asks again without the flag, once.
/// </summary>
[TestClass]
public sealed class SymbolicLinkFlagsTests
{
    private const int ErrorInvalidParameter = 87;
    private const int ErrorAccessDenied = 5;
    private const int ErrorPrivilegeNotHeld = 1314;

    [TestMethod]
    public void An_old_Windows_that_rejects_the_unprivileged_flag_is_asked_again_without_it()
    {
        Assert.AreEqual(0, FileLinks.SymbolicLinkFlagsForRetry(FileLinks.AllowUnprivilegedCreate, ErrorInvalidParameter));
    }

    [TestMethod]
    public void Invalid_parameter_without_the_flag_is_reported_not_retried()
    {
        Assert.IsNull(FileLinks.SymbolicLinkFlagsForRetry(0, ErrorInvalidParameter));
    }

    [TestMethod]
    [DataRow(ErrorAccessDenied)]
    [DataRow(ErrorPrivilegeNotHeld)]
    [DataRow(3)] // ERROR_PATH_NOT_FOUND
    [DataRow(183)] // ERROR_ALREADY_EXISTS
    public void Any_other_error_is_reported_at_once(int error)
    {
        Assert.IsNull(FileLinks.SymbolicLinkFlagsForRetry(FileLinks.AllowUnprivilegedCreate, error));
    }

    [TestMethod]
    public void A_Windows_that_knows_the_flag_is_called_once()
    {
        var calls = new List<int>();

        int error = FileLinks.CreateSymbolicLinkWithRetry(flags => { calls.Add(flags); return flags == FileLinks.AllowUnprivilegedCreate ? 0 : ErrorAccessDenied; });

        Assert.AreEqual(0, error);
        CollectionAssert.AreEqual(new[] { FileLinks.AllowUnprivilegedCreate }, calls);
    }

    [TestMethod]
    public void A_refusal_other_than_the_flag_is_returned_after_one_call()
    {
        var calls = new List<int>();

        int error = FileLinks.CreateSymbolicLinkWithRetry(flags => { calls.Add(flags); return ErrorPrivilegeNotHeld; });

        Assert.AreEqual(ErrorPrivilegeNotHeld, error);
        Assert.AreEqual(1, calls.Count);
    }

    [TestMethod]
    [DataRow(true, new[] { 2, 0 }, "made")]
    [DataRow(false, new[] { 2, 0 }, "error 1314")]
    public void Calls_until_made_or_refused_for_a_reason_a_retry_cannot_change(bool elevated, int[] expectedFlags, string expectedOutcome)
    {
        // An old Windows: the unprivileged flag is an invalid parameter; without it, only an elevated process gets a
        // link, and any other is told ERROR_PRIVILEGE_NOT_HELD.
        var calls = new List<int>();
        int Create(int flags)
        {
            calls.Add(flags);
            return (flags & FileLinks.AllowUnprivilegedCreate) != 0 ? ErrorInvalidParameter : elevated ? 0 : ErrorPrivilegeNotHeld;
        }

        int error = FileLinks.CreateSymbolicLinkWithRetry(Create);
        string outcome = error == 0 ? "made" : $"error {error}";

        CollectionAssert.AreEqual(expectedFlags, calls);
        Assert.AreEqual(expectedOutcome, outcome);
    }
}
