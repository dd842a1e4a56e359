using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>
/// `--facts`: what this Windows (or Wine) answers to each call the Windows engine relies on, as plain lines.
/// Not tests: they record how the platform behaves, for docs/windows-under-wine.md and for the engine's design.
/// </summary>
internal static unsafe class WindowsFacts
{
    private const uint GenericRead = 0x80000000;
    private const uint GenericWrite = 0x40000000;
    private const uint CreateNew = 1;
    private const uint OpenExisting = 3;
    private const uint ShareAll = 7;

    public static void Print(string scratch)
    {
        Directory.CreateDirectory(scratch);
        try
        {
            Console.WriteLine($"platform: {RuntimeInformation.OSDescription}{(Win32.WineVersion is string wine ? " under Wine " + wine : string.Empty)}");
            foreach (string folder in new[] { scratch, Path.GetPathRoot(Environment.ProcessPath!)! })
            {
                Volume(folder);
            }

            Ioctls(scratch);
            Flush(scratch);
            CopyFile2(scratch);
            foreach (FileShare share in Scenarios.HolderShareModes)
            {
                RenameOverOpenFile(scratch, share);
            }

            foreach (FileShare share in new[] { FileShare.Read | FileShare.Delete, FileShare.ReadWrite | FileShare.Delete })
            {
                DeleteThenCreate(scratch, share);
            }

            Streams(scratch);
        }
        finally
        {
            WindowsTree.Delete(scratch);
        }
    }

    private static void Volume(string folder)
    {
        string probe = Path.Combine(folder, $"volume-probe-{Environment.ProcessId}.txt");
        bool madeHere = false;
        try
        {
            File.WriteAllText(probe, "x");
            madeHere = true;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            probe = Environment.ProcessPath!;
        }

        using (var stream = new FileStream(probe, FileMode.Open, FileAccess.Read, FileShare.ReadWrite))
        {
            bool ok = Win32.GetVolumeInformation(stream.SafeFileHandle, out uint flags, out string name, out uint serial, out int error);
            Console.WriteLine(ok
                ? $"GetVolumeInformationByHandleW({probe}): file system \"{name}\", serial {serial:x8}, flags 0x{flags:x8}: block refcounting {((flags & Win32.FileSupportsBlockRefcounting) != 0 ? "yes" : "no")}, sparse files {((flags & Win32.FileSupportsSparseFiles) != 0 ? "yes" : "no")}"
                : $"GetVolumeInformationByHandleW({probe}): error {Win32.Describe(error)}");
        }

        if (madeHere)
        {
            File.Delete(probe);
        }
    }

    private static void Ioctls(string scratch)
    {
        string source = Path.Combine(scratch, "ioctl-source.bin");
        string target = Path.Combine(scratch, "ioctl-target.bin");
        File.WriteAllBytes(source, new byte[65536]);
        using var sourceStream = new FileStream(source, FileMode.Open, FileAccess.ReadWrite, FileShare.Read);
        using var targetStream = new FileStream(target, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None);

        byte* integrity = stackalloc byte[16];
        int error = Win32.Ioctl(sourceStream.SafeFileHandle, Win32.FsctlGetIntegrityInformation, null, 0, integrity, 16);
        Console.WriteLine(error == 0
            ? $"FSCTL_GET_INTEGRITY_INFORMATION: ok, checksum algorithm {*(ushort*)integrity}, flags 0x{*(uint*)(integrity + 4):x}, chunk {*(uint*)(integrity + 8)}, cluster size {*(uint*)(integrity + 12)}"
            : $"FSCTL_GET_INTEGRITY_INFORMATION: error {Win32.Describe(error)}");

        error = Win32.SetSparse(targetStream.SafeFileHandle);
        Console.WriteLine($"FSCTL_SET_SPARSE: {(error == 0 ? "ok" : "error " + Win32.Describe(error))}; attributes afterwards: {WindowsTree.Describe(File.GetAttributes(target))}");
        byte clear = 0; // FILE_SET_SPARSE_BUFFER { SetSparse = FALSE }
        error = Win32.Ioctl(targetStream.SafeFileHandle, Win32.FsctlSetSparse, &clear, 1, null, 0);
        Console.WriteLine($"FSCTL_SET_SPARSE with SetSparse = FALSE: {(error == 0 ? "ok" : "error " + Win32.Describe(error))}; attributes afterwards: {WindowsTree.Describe(File.GetAttributes(target))}");

        targetStream.SetLength(65536);
        long* request = stackalloc long[4];
        request[0] = sourceStream.SafeFileHandle.DangerousGetHandle().ToInt64();
        request[1] = 0;
        request[2] = 0;
        request[3] = 65536;
        error = Win32.Ioctl(targetStream.SafeFileHandle, Win32.FsctlDuplicateExtentsToFile, request, 32, null, 0);
        Console.WriteLine($"FSCTL_DUPLICATE_EXTENTS_TO_FILE: {(error == 0 ? "ok" : "error " + Win32.Describe(error))}");
    }

    private static void Flush(string scratch)
    {
        string path = Path.Combine(scratch, "flush.bin");
        File.WriteAllText(path, "x");
        using (var reader = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite))
        {
            int error = Win32.Flush(reader.SafeFileHandle);
            Console.WriteLine($"FlushFileBuffers on a read-only handle: {(error == 0 ? "ok" : "error " + Win32.Describe(error))}");
        }

        using (var writer = new FileStream(path, FileMode.Open, FileAccess.ReadWrite, FileShare.Read))
        {
            writer.WriteByte(1);
            writer.Flush();
            int error = Win32.Flush(writer.SafeFileHandle);
            Console.WriteLine($"FlushFileBuffers on a write handle: {(error == 0 ? "ok" : "error " + Win32.Describe(error))}");
        }
    }

    private static void CopyFile2(string scratch)
    {
        string source = Path.Combine(scratch, "copyfile2-source.bin");
        File.WriteAllBytes(source, Encoding.ASCII.GetBytes("copyfile2 content"));
        File.SetLastWriteTimeUtc(source, WindowsTree.FixedTime);
        int cancel = 0;
        string destination = Path.Combine(scratch, "copyfile2-destination.bin");
        int hr;
        try
        {
            hr = Win32.CopyFile2(source, destination, 0, &cancel);
        }
        catch (EntryPointNotFoundException e)
        {
            Console.WriteLine($"CopyFile2: not exported ({e.Message}); kernelbase.dll exports it: {NativeLibrary.TryGetExport(NativeLibrary.Load("kernelbase.dll"), "CopyFile2", out _)}");
            return;
        }

        Console.WriteLine($"CopyFile2 with COPYFILE2_EXTENDED_PARAMETERS: HRESULT 0x{hr:x8}; destination {(File.Exists(destination) ? $"\"{File.ReadAllText(destination)}\", last-write time kept: {File.GetLastWriteTimeUtc(destination) == WindowsTree.FixedTime}" : "missing")}");
        hr = Win32.CopyFile2(source, destination, 0x1 /* COPY_FILE_FAIL_IF_EXISTS */, &cancel);
        Console.WriteLine($"CopyFile2 with COPY_FILE_FAIL_IF_EXISTS onto an existing file: HRESULT 0x{hr:x8}");
        cancel = 1;
        string cancelled = Path.Combine(scratch, "copyfile2-cancelled.bin");
        hr = Win32.CopyFile2(source, cancelled, 0, &cancel);
        Console.WriteLine($"CopyFile2 with *pfCancel = TRUE before the call: HRESULT 0x{hr:x8}; destination {(File.Exists(cancelled) ? "exists" : "missing")}");
    }

    /// <summary>The temporary file renamed over a destination that a reader holds open with <paramref name="share"/>.</summary>
    private static void RenameOverOpenFile(string scratch, FileShare share)
    {
        string destination = Path.Combine(scratch, "rename-destination.txt");
        foreach ((string label, Func<string, string, int> rename) in new (string, Func<string, string, int>)[]
        {
            ("MoveFileEx(MOVEFILE_REPLACE_EXISTING)", (from, to) => MoveFileExW(from, to, 0x1) ? 0 : Marshal.GetLastWin32Error()),
            ("FileRenameInfoEx REPLACE_IF_EXISTS|POSIX_SEMANTICS, DOS path", (from, to) => RenameEx(from, to)),
            ("FileRenameInfoEx REPLACE_IF_EXISTS|POSIX_SEMANTICS, NT path", (from, to) => RenameEx(from, @"\??\" + to)),
            ("FileRenameInfo ReplaceIfExists (the same buffer, class 3)", (from, to) => RenameEx(from, to, Win32.FileRenameInfo, 1)),
        })
        {
            File.WriteAllText(destination, "old");
            string temporary = Path.Combine(scratch, ".rename-temporary.txt");
            File.WriteAllText(temporary, "new");
            string outcome;
            using (var reader = new FileStream(destination, FileMode.Open, FileAccess.Read, share))
            {
                int error = rename(temporary, destination);
                outcome = error == 0 ? "ok" : "error " + Win32.Describe(error);
                outcome += $"; the reader then reads \"{ReadFrom(reader)}\"";
            }

            outcome += $"; after the reader closed: destination {(File.Exists(destination) ? $"\"{File.ReadAllText(destination)}\"" : "missing")}, temporary {(File.Exists(temporary) ? "still there" : "gone")}";
            Console.WriteLine($"{label} over a file open for reading, sharing {Scenarios.Describe(share)}: {outcome}");
            File.Delete(temporary);
            File.Delete(destination);
        }

        // Without a reader at all, for comparison.
        File.WriteAllText(destination, "old");
        File.WriteAllText(Path.Combine(scratch, ".t"), "new");
        if (share == Scenarios.HolderShareModes[0])
        {
            int error = RenameEx(Path.Combine(scratch, ".t"), destination);
            Console.WriteLine($"FileRenameInfoEx REPLACE_IF_EXISTS|POSIX_SEMANTICS over a file nobody holds: {(error == 0 ? "ok" : "error " + Win32.Describe(error))}; destination \"{File.ReadAllText(destination)}\"");
            error = RenameEx(Path.Combine(scratch, ".t"), destination, Win32.FileRenameInfo, 1);
            Console.WriteLine($"FileRenameInfo ReplaceIfExists over a file nobody holds: {(error == 0 ? "ok" : "error " + Win32.Describe(error))}; destination \"{File.ReadAllText(destination)}\"");
        }

        File.Delete(Path.Combine(scratch, ".t"));
        File.Delete(destination);
    }

    private static int RenameEx(string from, string to, int informationClass = Win32.FileRenameInfoEx, uint flags = Win32.FileRenameFlagReplaceIfExists | Win32.FileRenameFlagPosixSemantics)
    {
        using SafeFileHandle handle = Win32.CreateFileW(from, GenericRead | Win32.Delete, (uint)(FileShare.Read | FileShare.Delete), IntPtr.Zero, OpenExisting, 0, IntPtr.Zero);
        if (handle.IsInvalid)
        {
            return Marshal.GetLastWin32Error();
        }

        return Win32.RenameByHandle(handle, to, flags, informationClass);
    }

    private static string ReadFrom(FileStream stream)
    {
        stream.Position = 0;
        var buffer = new byte[16];
        int read = stream.Read(buffer);
        return Encoding.ASCII.GetString(buffer, 0, read);
    }

    /// <summary>What the stock task does to an open destination: DeleteFile, then create a file of the same name.</summary>
    private static void DeleteThenCreate(string scratch, FileShare share)
    {
        string destination = Path.Combine(scratch, "delete-destination.txt");
        File.WriteAllText(destination, "old");
        string outcome;
        using (var reader = new FileStream(destination, FileMode.Open, FileAccess.Read, share))
        {
            bool deleted = DeleteFileW(destination);
            outcome = deleted ? "DeleteFile ok" : "DeleteFile error " + Win32.Describe(Marshal.GetLastWin32Error());
            outcome += $", name still listed: {File.Exists(destination)}";
            try
            {
                File.WriteAllText(destination, "new");
                outcome += "; creating a file of that name: ok";
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                outcome += $"; creating a file of that name: {e.GetType().Name} (0x{e.HResult:x8})";
            }
        }

        outcome += $"; after the reader closed: {(File.Exists(destination) ? $"\"{File.ReadAllText(destination)}\"" : "missing")}";
        Console.WriteLine($"DeleteFile on a file open for reading, sharing {Scenarios.Describe(share)}: {outcome}");
        if (File.Exists(destination))
        {
            File.Delete(destination);
        }
    }

    private static void Streams(string scratch)
    {
        string file = Path.Combine(scratch, "streams.txt");
        File.WriteAllText(file, "main");
        try
        {
            File.WriteAllText(file + ":Zone.Identifier", "[ZoneTransfer]\r\nZoneId=3\r\n");
            Console.WriteLine($"alternate data stream {file}:Zone.Identifier: written, reads back \"{File.ReadAllText(file + ":Zone.Identifier").Trim()}\"");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException)
        {
            Console.WriteLine($"alternate data stream {file}:Zone.Identifier: {e.GetType().Name}: {e.Message}");
        }

        string link = Path.Combine(scratch, "symlink.txt");
        bool made = CreateSymbolicLinkW(link, file, 0x2 /* ALLOW_UNPRIVILEGED_CREATE */);
        Console.WriteLine($"CreateSymbolicLinkW: returned {made}, link exists afterwards: {File.Exists(link)}");
    }

    [DllImport("kernel32.dll", SetLastError = true, CharSet = CharSet.Unicode)]
    private static extern bool MoveFileExW(string existing, string newName, uint flags);

    [DllImport("kernel32.dll", SetLastError = true, CharSet = CharSet.Unicode)]
    private static extern bool DeleteFileW(string path);

    [DllImport("kernel32.dll", SetLastError = true, CharSet = CharSet.Unicode)]
    private static extern bool CreateSymbolicLinkW(string link, string target, uint flags);
}
