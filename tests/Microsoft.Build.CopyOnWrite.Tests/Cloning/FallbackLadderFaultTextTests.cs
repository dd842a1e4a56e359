using System;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>
/// How the fallback ladder (src/Microsoft.Build.CopyOnWrite/Cloning/FallbackLadder.cs) reads a failure: which errors
/// mean a full volume or another process's lock, and how a fault of our engine is named in the one line a user sees
/// (the step from the stack, and the error). FallbackLadderTests runs the ladder itself on real volumes.
/// </summary>
[TestClass]
public sealed class FallbackLadderFaultTextTests
{
    [TestMethod]
    [DataRow(28, true)]                 // ENOSPC
    [DataRow(122, true)]                // EDQUOT on Linux
    [DataRow(69, true)]                 // EDQUOT on macOS
    [DataRow(unchecked((int)0x80070027), true)] // ERROR_HANDLE_DISK_FULL
    [DataRow(unchecked((int)0x80070070), true)] // ERROR_DISK_FULL
    [DataRow(5, false)]
    [DataRow(unchecked((int)0x80070020), false)]
    public void A_full_volume_is_an_IOException_with_no_space_or_quota_left(int hresult, bool full)
    {
        Assert.AreEqual(full, FallbackLadder.IsVolumeFull(new IOException("x", hresult)), $"0x{hresult:X8}");
        Assert.IsFalse(FallbackLadder.IsVolumeFull(new UnauthorizedAccessException("x") { HResult = hresult }), "only an IOException");
    }

    [TestMethod]
    [DataRow(unchecked((int)0x80070020), true)] // ERROR_SHARING_VIOLATION
    [DataRow(unchecked((int)0x80070021), true)] // ERROR_LOCK_VIOLATION
    [DataRow(unchecked((int)0x80070005), false)]
    [DataRow(11, false)]
    public void Contention_is_another_process_holding_the_file(int hresult, bool contention)
        => Assert.AreEqual(contention, FallbackLadder.IsContention(new IOException("x", hresult)), $"0x{hresult:X8}");

    [TestMethod]
    public void An_engine_skipped_after_repeated_faults_says_how_many_and_how_recent()
        => Assert.AreEqual("our engine was not asked: it failed 3 times between these volumes in this process, the latest less than 30 s ago",
            EngineFault.Skipped(3, TimeSpan.FromSeconds(30)).Describe());

    [TestMethod]
    public void A_fault_names_the_engine_method_that_was_running_and_the_helper_that_threw()
    {
        Exception inHelper = Thrown(() => new ThrowingEngine(Thrower.Helper).CloneOrCopy("s", "d", CancellationToken.None));
        Exception inEngine = Thrown(() => new ThrowingEngine(Thrower.Engine).CloneOrCopy("s", "d", CancellationToken.None));
        Exception inEngineStep = Thrown(() => new ThrowingEngine(Thrower.EngineStep).CloneOrCopy("s", "d", CancellationToken.None));

        Assert.AreEqual("our engine failed at ThrowingEngine.CloneOrCopy (in NotAnEngine.Throw): IOException 0x00000005: disk said no", EngineFault.From(inHelper).Describe());
        Assert.AreEqual("our engine failed at ThrowingEngine.CloneOrCopy: IOException 0x00000005: disk said no", EngineFault.From(inEngine).Describe());
        Assert.AreEqual("our engine failed at ThrowingEngine.CopyContent: IOException 0x00000005: disk said no", EngineFault.From(inEngineStep).Describe(), "the innermost engine method, as LinuxCloneEngine's steps");
    }

    [TestMethod]
    public void A_fault_outside_any_engine_names_the_method_that_threw_or_says_it_is_unknown()
    {
        Exception outside = Thrown(NotAnEngine.Throw);

        Assert.AreEqual("our engine failed at NotAnEngine.Throw: IOException 0x00000005: disk said no", EngineFault.From(outside).Describe());
        Assert.AreEqual("our engine failed at an unknown step: IOException 0x00000005: never thrown", EngineFault.From(new IOException("never thrown", 5)).Describe());
    }

    private static Exception Thrown(Action action)
    {
        try
        {
            action();
        }
        catch (Exception e)
        {
            return e;
        }

        throw new AssertFailedException("nothing was thrown");
    }

    private enum Thrower { Engine, EngineStep, Helper }

    private sealed class ThrowingEngine(Thrower thrower) : ICloneEngine
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
        {
            switch (thrower)
            {
                case Thrower.Helper:
                    NotAnEngine.Throw();
                    break;
                case Thrower.EngineStep:
                    CopyContent();
                    break;
            }

            throw new IOException("disk said no", 5);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void CopyContent() => throw new IOException("disk said no", 5);
    }

    private static class NotAnEngine
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Throw() => throw new IOException("disk said no", 5);
    }
}
