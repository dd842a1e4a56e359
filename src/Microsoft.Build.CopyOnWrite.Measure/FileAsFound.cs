using System;
using System.IO;
using System.Runtime.InteropServices;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>
/// A file on disk, the tool's one way to ask: a symbolic link is named as one but followed for size, kind and device.
/// Links (st_nlink) and Device (st_dev, major:minor) come from the task's statx on Linux; elsewhere they are null.
/// </summary>
/// <param name="Problem">Why the file could not be looked at (not "no such file"), or null.</param>
internal sealed record FileAsFound(bool Exists, bool Regular, long Size, long? Links, string? SymbolicLinkTo, string? Problem, string? Device = null)
{
    private const int NoSuchFile = 2; // ENOENT
    private const int NotAFolder = 20; // ENOTDIR: a part of the path is a file

    public static FileAsFound Of(string path)
    {
        if (path.Contains('\0', StringComparison.Ordinal))
        {
            return new FileAsFound(false, false, 0, null, null, "a NUL in the name, which no file name holds");
        }

        if (OperatingSystem.IsLinux() && LinuxNative.HasStatx)
        {
            if (!LinuxNative.TryStat(path, followLinks: false, out LinuxNative.FileStatus own))
            {
                int error = Marshal.GetLastPInvokeError();
                return error is NoSuchFile or NotAFolder
                    ? new FileAsFound(false, false, 0, null, null, null)
                    : new FileAsFound(false, false, 0, null, null, Marshal.GetPInvokeErrorMessage(error));
            }

            if (!own.IsSymbolicLink)
            {
                return new FileAsFound(true, own.IsRegularFile, own.Size, own.Links, null, null, DeviceOf(own));
            }

            string target = new FileInfo(path).LinkTarget ?? "?";
            bool resolves = LinuxNative.TryStat(path, followLinks: true, out LinuxNative.FileStatus pointedTo);
            return new FileAsFound(resolves, resolves && pointedTo.IsRegularFile, resolves ? pointedTo.Size : 0, own.Links, target, null, resolves ? DeviceOf(pointedTo) : null);
        }

        try
        {
            var info = new FileInfo(path);
            if (info.LinkTarget is string linkTarget)
            {
                FileSystemInfo? final = info.ResolveLinkTarget(returnFinalTarget: true);
                bool resolves = final is FileInfo { Exists: true };
                return new FileAsFound(final?.Exists == true, resolves, resolves ? ((FileInfo)final!).Length : 0, null, linkTarget, null);
            }

            return info.Exists ? new FileAsFound(true, true, info.Length, null, null, null)
                : new FileAsFound(Directory.Exists(path), false, 0, null, null, null);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return new FileAsFound(false, false, 0, null, null, e.Message);
        }
    }

    private static string DeviceOf(in LinuxNative.FileStatus status)
    {
        LinuxNative.SplitDevice(status.Device, out ulong major, out ulong minor);
        return $"{major}:{minor}";
    }
}
