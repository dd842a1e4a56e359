using System;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// The one rule that keeps "no build that passes with MSBuild's own Copy fails with ours" true for errors nobody
/// foresaw: when the engine fails for a file with anything at all (an error code it does not know, an exception type
/// it does not expect, a native entry point that is missing), the file goes down a ladder of plainer ways, each
/// keeping the strongest guarantee still possible, and fails only where the stock task's own way fails too.
/// </summary>
/// <remarks>
/// The rungs: the engine; .NET's File.Copy (the stock task's call, with its own fallbacks) into a new file beside the
/// destination, renamed over it; where none can be made or renamed, the stock task's way (delete, then copy; in place
/// only into a regular file with one name, never through a link). What fails at the last rung fails with File.Copy's
/// exception, so the stock task's codes and retries follow; a full volume never goes below the second rung (deleting
/// the old destination would lose it). After <see cref="FaultsBeforeSkipping"/> faults close together on one pair of
/// volumes (<see cref="CloneCapabilityCache.RecentFaults"/>) the engine is skipped there: a burst of transient errors
/// must not turn cloning off for a long-lived node. docs/guarantees.md says what this proves and which tests hold it.
/// </remarks>
internal sealed class FallbackLadder : ICloneEngine
{
    internal const int FaultsBeforeSkipping = 3;

    private readonly ICloneEngine _engine;
    private readonly IPlainFiles _files;
    private readonly CloneCapabilityCache _memory;
    private volatile bool _anyFault;

    /// <param name="clock">
    /// Where faults are counted, and whose lifetime and clock decide when they are forgotten: the engine's refusal
    /// cache, so that one key and one notion of "a while" hold for everything this process remembers about a pair of
    /// volumes (tests pass their own clock).
    /// </param>
    public FallbackLadder(ICloneEngine engine, IPlainFiles files, CloneCapabilityCache? clock = null)
    {
        _engine = engine;
        _files = files;
        _memory = clock ?? new CloneCapabilityCache();
    }

    public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
    {
        VolumePair? volumes = null;
        if (_anyFault)
        {
            volumes = VolumesOf(sourcePath, destinationPath);
            if (volumes is VolumePair known && _memory.RecentFaults(known) is int faults && faults >= FaultsBeforeSkipping)
            {
                return BelowTheEngine(sourcePath, destinationPath, EngineFault.Skipped(faults, _memory.RefusalLifetime), cancellationToken);
            }
        }

        EngineFault fault;
        try
        {
            return _engine.CloneOrCopy(sourcePath, destinationPath, cancellationToken, destination);
        }
        catch (Exception e) when (IsFault(e) && !IsContention(e))
        {
            fault = EngineFault.From(e);
        }

        CloneResult result = BelowTheEngine(sourcePath, destinationPath, fault, cancellationToken);

        // Counted only now: where the plain way failed too (a source that cannot be read, a full disk), the engine
        // was not at fault, and skipping it would only lose its clones and its checks.
        _anyFault = true;
        if ((volumes ?? VolumesOf(sourcePath, destinationPath)) is VolumePair pair)
        {
            _memory.RememberFault(pair);
        }

        return result;
    }

    /// <summary>
    /// Everything but cancellation (the engine left nothing behind, and the build is ending), the engine's one verdict
    /// on a source (a FIFO or device, which the stock task's way would read forever), and the runtime's own distress,
    /// after which no rung can be trusted to run.
    /// </summary>
    private static bool IsFault(Exception e) => e is not (OperationCanceledException or NotARegularFileException or OutOfMemoryException or ThreadAbortException);

    private CloneResult BelowTheEngine(string sourcePath, string destinationPath, EngineFault fault, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        _files.ThrowIfNotRegularFile(sourcePath); // the engine's verdict on FIFOs and devices holds here too, also where it was skipped
        string temporaryPath = _files.TemporaryPathBeside(destinationPath);
        try
        {
            _files.CopyFile(sourcePath, temporaryPath, overwrite: false);
        }
        catch (Exception e) when (IsFault(e))
        {
            // Which step failed decides: where a new file can be made beside the destination, it was the content, which
            // the stock task's copy writes the same way and would fail on too, so the old destination stays whole.
            bool folderTakesNewFiles = _files.Exists(temporaryPath) || _files.CanCreate(temporaryPath);
            _files.DeleteQuietly(temporaryPath);
            if (IsVolumeFull(e) || folderTakesNewFiles)
            {
                throw;
            }

            _files.ThrowIfUnreadable(sourcePath); // the source, not the folder: the stock task's File.Copy opens it first too
            return InPlace(sourcePath, destinationPath, fault, e, cancellationToken);
        }

        try
        {
            _files.MakeOwnerWritable(temporaryPath);
            long bytes = _files.Length(temporaryPath);
            _files.Replace(temporaryPath, destinationPath);
            return CloneResult.Copied(bytes, FallbackReason.EngineFailed, fault.Describe());
        }
        catch (Exception e) when (IsFault(e))
        {
            _files.DeleteQuietly(temporaryPath);
            if (IsVolumeFull(e))
            {
                throw;
            }

            return InPlace(sourcePath, destinationPath, fault, e, cancellationToken);
        }
    }

    /// <summary>The stock task's way: delete (errors ignored), then File.Copy; into a file that could not be deleted only when it has one name.</summary>
    private CloneResult InPlace(string sourcePath, string destinationPath, EngineFault fault, Exception atomicFailure, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        bool existed = _files.Exists(destinationPath);
        bool kept = false;
        if (existed)
        {
            _files.DeleteQuietly(destinationPath);
            kept = _files.Exists(destinationPath);
            if (kept && !_files.IsRegularFileWithOneName(destinationPath))
            {
                throw atomicFailure; // writing would change a link's target or another name's content
            }
        }

        _files.CopyFile(sourcePath, destinationPath, overwrite: true);
        _files.MakeOwnerWritable(destinationPath);
        string how = !existed ? "copied to its name"
            : kept ? "written in place, as the stock task writes a file it cannot delete"
            : "deleted and copied again, as the stock task does";
        string detail = $"{fault.Describe()}; no new file could be put in place ({Describe(atomicFailure)}), so it was {how}";
        return CloneResult.Copied(_files.Length(destinationPath), FallbackReason.EngineFailed, detail, writtenInPlace: existed);
    }

    private VolumePair? VolumesOf(string sourcePath, string destinationPath)
    {
        try
        {
            return _files.VolumesOf(sourcePath, destinationPath);
        }
        catch (Exception e) when (IsFault(e))
        {
            return null; // not counted: the engine is tried again there
        }
    }

    /// <summary>
    /// Another process holds the destination (Windows' sharing and lock violations): not a fault but contention, which
    /// the task retries as the stock task retries it, each attempt atomic. Below the engine, a holder that lets go
    /// between two rungs would see the last rung write in place while another reader opens the file, which a retry
    /// never does (found by the self-test's four writers and a reader, and the parity suite's ConcurrentWriters).
    /// </summary>
    internal static bool IsContention(Exception e)
    {
        const int ErrorSharingViolation = unchecked((int)0x80070020), ErrorLockViolation = unchecked((int)0x80070021);
        return e is IOException && e.HResult is ErrorSharingViolation or ErrorLockViolation;
    }

    /// <summary>No space or quota left (Linux and macOS errno, Windows HRESULT).</summary>
    internal static bool IsVolumeFull(Exception e)
    {
        const int ENOSPC = 28, LinuxEDQUOT = 122, MacEDQUOT = 69;
        const int ErrorHandleDiskFull = unchecked((int)0x80070027), ErrorDiskFull = unchecked((int)0x80070070);
        return e is IOException && e.HResult is ENOSPC or LinuxEDQUOT or MacEDQUOT or ErrorHandleDiskFull or ErrorDiskFull;
    }

    internal static string Describe(Exception e) => $"{e.GetType().Name} 0x{e.HResult:X8}: {e.Message}";
}

/// <summary>What failed in the engine for one file: the step (the method that threw) and the error.</summary>
internal readonly struct EngineFault
{
    private EngineFault(string step, string error)
    {
        Step = step;
        Error = error;
    }

    public string Step { get; }

    public string Error { get; }

    public static EngineFault From(Exception e)
    {
        // The stack names the step without a word on the success path: the engine's own method that was running, and
        // where it differs, the method that threw (a native call, a helper).
        string? thrower = e.TargetSite is { } method ? Name(method) : null;
        string? engineStep = null;
        foreach (StackFrame frame in new StackTrace(e).GetFrames() ?? Array.Empty<StackFrame>())
        {
            if (frame.GetMethod() is { DeclaringType: { } type } candidate && typeof(ICloneEngine).IsAssignableFrom(type) && type != typeof(FallbackLadder))
            {
                engineStep = Name(candidate);
                break;
            }
        }

        string step = engineStep is null ? thrower ?? "an unknown step"
            : thrower is null || thrower == engineStep ? engineStep
            : $"{engineStep} (in {thrower})";
        return new EngineFault(step, FallbackLadder.Describe(e));

        static string Name(MethodBase method) => $"{method.DeclaringType?.Name}.{method.Name}";
    }

    public static EngineFault Skipped(int faults, TimeSpan within)
        => new(string.Empty, $"our engine was not asked: it failed {faults} times between these volumes in this process, the latest less than {within.TotalSeconds:0} s ago");

    /// <summary>E.g. "our engine failed at LinuxCloneEngine.CloneOrCopyContent: IOException 0x00000005: Input/output error : '...'".</summary>
    public string Describe() => Step.Length == 0 ? Error : $"our engine failed at {Step}: {Error}";
}
