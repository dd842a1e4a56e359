using System;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Whatever the engine throws for a file, the file goes down plainer rungs (File.Copy beside it and renamed, then the
/// stock task's delete-and-copy), so it fails only where the stock task fails too: docs/guarantees.md.
/// </summary>
internal sealed class FallbackLadder : ICloneEngine
{
    internal const int FaultsBeforeSkipping = 3;

    private readonly ICloneEngine _engine;
    private readonly IPlainFiles _files;
    private readonly CloneCapabilityCache _memory;
    private volatile bool _anyFault;

    /// <param name="clock">The engine's refusal cache: it counts the faults, and its clock forgets them.</param>
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

    /// <summary>All but cancellation, the verdict on a FIFO or device source, and the runtime's own distress.</summary>
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
            // Where a new file can be made here, the content failed, as the stock task's copy would; then, and on a
            // full volume, the old destination stays whole: deleting it for the last rung would only lose it.
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
    /// Another process holds the destination (Windows' sharing and lock violations): contention the task retries, each
    /// attempt atomic, where the ladder's last rung could write in place under a reader once the holder lets go.
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
