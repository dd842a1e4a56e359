using System.IO;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;

/// <summary>
/// As <see cref="FaultingWindowsFileSystem"/> for the macOS seam: every libSystem call passed on but the one at
/// <see cref="FailAt"/>, which meets an <see cref="UnforeseenFault"/>. Calls that throw rather than return an errno
/// (open, write) throw the error code as .NET would, an IOException with it.
/// </summary>
internal sealed class FaultingMacFileSystem : IMacFileSystem
{
    private readonly IMacFileSystem _inner;
    private readonly int? _failAt;
    private readonly UnforeseenFault? _fault;

    public FaultingMacFileSystem(IMacFileSystem inner, int? failAt = null, UnforeseenFault? fault = null)
    {
        _inner = inner;
        _failAt = failAt;
        _fault = fault;
    }

    public int Calls { get; private set; }

    public string? Failed { get; private set; }

    public MacFile OpenForReading(string path)
    {
        ThrowIfDue(nameof(OpenForReading));
        return _inner.OpenForReading(path);
    }

    public MacFile CreateNew(string path)
    {
        ThrowIfDue(nameof(CreateNew));
        return _inner.CreateNew(path);
    }

    public int Stat(MacFile file, out MacFileStatus status)
    {
        status = default;
        return Due(nameof(Stat)) ? _fault!.Raise() : _inner.Stat(file, out status);
    }

    public int DeviceOf(string folder, out ulong device)
    {
        device = 0;
        return Due(nameof(DeviceOf)) ? _fault!.Raise() : _inner.DeviceOf(folder, out device);
    }

    public string? FileSystemTypeName(string folder)
    {
        ThrowIfDue(nameof(FileSystemTypeName));
        return _inner.FileSystemTypeName(folder);
    }

    public int CloneFrom(MacFile source, string destinationPath, uint flags)
        => Due(nameof(CloneFrom)) ? _fault!.Raise() : _inner.CloneFrom(source, destinationPath, flags);

    public int Read(MacFile file, byte[] buffer)
    {
        ThrowIfDue(nameof(Read));
        return _inner.Read(file, buffer);
    }

    public void Write(MacFile file, byte[] buffer, int count)
    {
        ThrowIfDue(nameof(Write));
        _inner.Write(file, buffer, count);
    }

    public int CopyMetadata(MacFile source, MacFile destination)
        => Due(nameof(CopyMetadata)) ? _fault!.Raise() : _inner.CopyMetadata(source, destination);

    public int SetPermissions(string path, uint mode)
        => Due(nameof(SetPermissions)) ? _fault!.Raise() : _inner.SetPermissions(path, mode);

    public int SetPermissions(MacFile file, uint mode)
        => Due(nameof(SetPermissions)) ? _fault!.Raise() : _inner.SetPermissions(file, mode);

    public int Rename(string fromPath, string toPath)
        => Due(nameof(Rename)) ? _fault!.Raise() : _inner.Rename(fromPath, toPath);

    public int Unlink(string path)
        => Due(nameof(Unlink)) ? _fault!.Raise() : _inner.Unlink(path);

    private void ThrowIfDue(string call)
    {
        if (Due(call))
        {
            int errno = _fault!.Raise();
            throw new IOException($"Unknown error: {errno}", errno);
        }
    }

    private bool Due(string call)
    {
        bool due = Calls++ == _failAt;
        if (due)
        {
            Failed = call;
        }

        return due;
    }
}
