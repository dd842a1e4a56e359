using System;
using System.Collections.Generic;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;

/// <summary>
/// A failure no engine was written for, made to happen at one call of an OS seam: an error code no table knows, or
/// an exception a P/Invoke or the runtime can throw (an entry point or library missing on that machine, a state the
/// code did not expect). The seams' fault decorators (<see cref="FaultingWindowsFileSystem"/>,
/// <see cref="FaultingMacFileSystem"/>) raise it at the call they are told.
/// </summary>
public sealed class UnforeseenFault
{
    private readonly Func<Exception>? _exception;

    private UnforeseenFault(string name, int errorCode, Func<Exception>? exception)
    {
        Name = name;
        ErrorCode = errorCode;
        _exception = exception;
    }

    public string Name { get; }

    /// <summary>The code returned instead of the call's own (0 where the fault is an exception).</summary>
    public int ErrorCode { get; }

    public static IReadOnlyList<UnforeseenFault> All { get; } =
    [
        new("an unknown error code", 0xDEAD, null),
        new(nameof(EntryPointNotFoundException), 0, () => new EntryPointNotFoundException("Unable to find an entry point in the native library.")),
        new(nameof(DllNotFoundException), 0, () => new DllNotFoundException("Unable to load the native library or one of its dependencies.")),
        new(nameof(InvalidOperationException), 0, () => new InvalidOperationException("A state the code did not expect.")),
    ];

    /// <summary>Throws this fault's exception; for an error code, the code to return.</summary>
    public int Raise() => _exception is null ? ErrorCode : throw _exception();

    public override string ToString() => Name;
}
