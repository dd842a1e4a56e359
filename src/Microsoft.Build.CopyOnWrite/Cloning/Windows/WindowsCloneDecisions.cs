using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>The Windows engine's decisions, apart from the system calls, so they run and are tested on any OS.</summary>
internal static class WindowsCloneDecisions
{
    public const uint FileSupportsBlockRefcounting = 0x08000000;
    public const uint FileAttributeReadOnly = 0x1;
    public const uint FileAttributeDirectory = 0x10;
    public const uint FileAttributeSparseFile = 0x200;
    public const uint FileAttributeReparsePoint = 0x400;
    public const uint FileAttributeIntegrityStream = 0x8000;

    /// <summary>Each block clone call must cover less than 4 GiB.</summary>
    public const long CloneCallLimitBytes = 4L << 30;

    /// <summary>ERROR_BLOCK_TOO_MANY_REFERENCES: ReFS lets one cluster be shared by at most 8,175 files.</summary>
    public const int TooManyReferences = 347;

    public const string AlternateDataStream = "an alternate data stream";
    public const string NetworkShare = "a network share";
    public const string CloneNotShared = "written moments ago, and its clone did not share all of its clusters even after a flush";

    /// <summary>
    /// From this size a clone is made sparse before its size is set, so it cannot fail for space; smaller ones only
    /// once the disk is full (docs/windows-engine.md, rule 5). A judgement, not a measurement.
    /// </summary>
    public const long SparseFirstFromBytes = 64L << 20;

    private const uint FileAttributeHidden = 0x2;
    private const uint FileAttributeSystem = 0x4;
    private const uint FileAttributeArchive = 0x20;
    public const uint FileAttributeNormal = 0x80;
    private const uint FileAttributeTemporary = 0x100;
    private const uint FileAttributeNotContentIndexed = 0x2000;

    /// <summary>
    /// What the source's volume says; None: clone. Never over a share: an SMB server that is not Windows may advertise
    /// block refcounting and mean something else by the control code (CopyFileExW still offloads).
    /// </summary>
    public static FallbackReason WhyVolumeCannotClone(WindowsVolume volume, out string? detail)
    {
        string name = volume.FileSystemName.Length > 0 ? volume.FileSystemName : "the source's volume";
        detail = name;
        if (volume.QueryFailure is string failure)
        {
            detail = $"{name} (could not query it: {failure})";
            return FallbackReason.FileSystemCannotClone;
        }

        if (!SupportsBlockCloning(volume.Flags))
        {
            return FallbackReason.FileSystemCannotClone;
        }

        if (volume.IsNetworkShare)
        {
            detail = NetworkShare;
            return FallbackReason.FileSystemCannotClone;
        }

        detail = null;
        return FallbackReason.None;
    }

    public static bool SupportsBlockCloning(uint volumeFlags) => (volumeFlags & FileSupportsBlockRefcounting) != 0;

    public static bool SetsSparseFirst(WindowsFileFacts source) => source.IsSparse || source.Size >= SparseFirstFromBytes;

    /// <summary>The clusters a file of <paramref name="size"/> bytes occupies.</summary>
    public static long ClusterCount(long size, long clusterBytes) => (size + clusterBytes - 1) / clusterBytes;

    /// <summary>
    /// Whether a clone of a just-written file holds its data, from metadata alone: data still only in the cache has no
    /// clusters yet, so its part of a clone comes out as a hole or unshared, never shared.
    /// </summary>
    public static bool IsFullyShared(long sharedClusters, long size, long clusterBytes) => sharedClusters >= ClusterCount(size, clusterBytes);

    /// <summary>What a rename over a held destination answers: access denied or a sharing violation.</summary>
    public static bool MayBeHeldOpen(int renameError) => renameError is WindowsErrors.AccessDenied or WindowsErrors.SharingViolation;

    /// <summary>A regular file with one name: writing it in place changes no other name or link target.</summary>
    public static bool IsSafeToWriteInPlace(WindowsFileFacts destination)
        => !destination.IsDirectory && !destination.IsReparsePoint && destination.Links == 1;

    /// <summary>
    /// A POSIX rename refused for a reason not about the destination or the disk: the file system or Windows does not
    /// take it (87, 50, 1, 124 documented; any other code, e.g. under WOW64, alike), so the classic rename is tried.
    /// </summary>
    public static bool TriesClassicRenameAfter(int posixRenameError)
        => posixRenameError != 0
        && !MayBeHeldOpen(posixRenameError)
        && posixRenameError is not (WindowsErrors.FileNotFound or WindowsErrors.PathNotFound or WindowsErrors.FileExists or WindowsErrors.AlreadyExists or WindowsErrors.RequestAborted)
        && !WindowsErrors.IsDeviceOrSpaceFailure(posixRenameError);

    /// <summary>Written less than <paramref name="window"/> ago, or stamped in the future (a clock we cannot reason about).</summary>
    public static bool IsRecent(long lastWriteFileTime, long nowFileTime, TimeSpan window) => nowFileTime - lastWriteFileTime < window.Ticks;

    /// <summary>A power of two from 512 bytes to 2 MiB, the range NTFS and ReFS format with.</summary>
    public static bool IsUsableClusterSize(long clusterBytes)
        => clusterBytes >= 512 && clusterBytes <= (2 << 20) && (clusterBytes & (clusterBytes - 1)) == 0;

    /// <summary>
    /// The clone calls for a file: cluster-aligned, each under 4 GiB, the last ending at the cluster boundary past the
    /// end of file (lengths must be whole clusters, and the source's last cluster is allocated in full).
    /// </summary>
    public static IReadOnlyList<CloneChunk> PlanChunks(long fileSize, long clusterBytes)
    {
        if (fileSize < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(fileSize), fileSize, "A file size cannot be negative.");
        }

        if (!IsUsableClusterSize(clusterBytes))
        {
            throw new ArgumentOutOfRangeException(nameof(clusterBytes), clusterBytes, "Not a cluster size a volume can have.");
        }

        long largestChunk = (CloneCallLimitBytes - 1) / clusterBytes * clusterBytes;
        long end = (fileSize + clusterBytes - 1) / clusterBytes * clusterBytes;
        var chunks = new List<CloneChunk>();
        for (long offset = 0; offset < end; offset += largestChunk)
        {
            chunks.Add(new CloneChunk(offset, Math.Min(largestChunk, end - offset)));
        }

        return chunks;
    }

    /// <summary>Why one file was not cloned, in words for the log, from the error of the clone call.</summary>
    public static string DescribeCloneRefusal(int error) => error == TooManyReferences
        ? "its clusters are already shared by 8,175 files, the most ReFS allows"
        : $"the block clone call failed: {WindowsErrors.Describe(error)}";

    /// <summary>The source's settable attributes but ReadOnly; Normal for none, as 0 leaves them unchanged.</summary>
    public static uint DestinationAttributes(uint sourceAttributes)
    {
        const uint Settable = FileAttributeHidden | FileAttributeSystem | FileAttributeArchive | FileAttributeTemporary | FileAttributeNotContentIndexed;
        uint kept = sourceAttributes & Settable;
        return kept == 0 ? FileAttributeNormal : kept;
    }
}

/// <summary>What one volume said about itself, learnt from the first file copied from it.</summary>
internal sealed class WindowsVolume
{
    public WindowsVolume(uint flags, string fileSystemName, bool isNetworkShare)
    {
        Flags = flags;
        FileSystemName = fileSystemName;
        IsNetworkShare = isNetworkShare;
    }

    public uint Flags { get; }

    public string FileSystemName { get; }

    public bool IsNetworkShare { get; }

    /// <summary>Set when GetVolumeInformationByHandleW failed: a volume we do not clone on, never an exception.</summary>
    public string? QueryFailure { get; private set; }

    public bool CanClone => WindowsCloneDecisions.WhyVolumeCannotClone(this, out _) == FallbackReason.None;

    /// <summary>0 until a clone asks the first source for it (FSCTL_GET_INTEGRITY_INFORMATION).</summary>
    public long ClusterBytes { get; set; }

    /// <summary>Null until the first rename tells whether the file system takes POSIX-semantics renames.</summary>
    public bool? PosixRename { get; set; }

    public static WindowsVolume Unqueryable(string failure) => new(0, string.Empty, false) { QueryFailure = failure };
}

/// <summary>
/// Serialises clones of one just-written source (concurrent ones gave zero-filled clones: microsoft/CopyOnWrite#12) and
/// in-place writes of one destination; monitors picked by hash: no table to clean, a shared one only makes paths wait.
/// </summary>
internal sealed class PathGates
{
    private readonly object[] _gates = new object[64];

    public PathGates()
    {
        for (int i = 0; i < _gates.Length; i++)
        {
            _gates[i] = new object();
        }
    }

    public object For(string sourcePath) => _gates[(StringComparer.OrdinalIgnoreCase.GetHashCode(sourcePath) & int.MaxValue) % _gates.Length];
}

/// <summary>What each volume said, by serial, believed as long as a refusal is (nodes outlive reformats).</summary>
internal sealed class WindowsVolumeCache
{
    private readonly CloneCapabilityCache _clock;
    private readonly object _lock = new();

    // A machine has a handful of volumes: a short array, replaced whole on a change and read without a lock.
    private Known[] _known = new Known[0];

    public WindowsVolumeCache(CloneCapabilityCache clock) => _clock = clock;

    public WindowsVolume Of(ulong serial, Func<WindowsVolume> ask)
    {
        foreach (Known known in Volatile.Read(ref _known))
        {
            if (known.Serial == serial && !_clock.IsStale(known.WhenTicks))
            {
                return known.Volume;
            }
        }

        WindowsVolume volume = ask();
        if (volume.QueryFailure is null)
        {
            lock (_lock)
            {
                var kept = new List<Known>(_known.Length + 1) { new Known(serial, volume, _clock.NowTicks) };
                foreach (Known other in _known)
                {
                    if (other.Serial != serial)
                    {
                        kept.Add(other);
                    }
                }

                Volatile.Write(ref _known, kept.ToArray());
            }
        }

        return volume;
    }

    private sealed record Known(ulong Serial, WindowsVolume Volume, long WhenTicks);
}

/// <summary>Win32 errors: which ones are real failures, and the exceptions .NET's own file APIs throw for them.</summary>
internal static class WindowsErrors
{
    public const int FileNotFound = 2;
    public const int PathNotFound = 3;
    public const int AccessDenied = 5;
    public const int SharingViolation = 32;
    public const int FileExists = 80;
    public const int AlreadyExists = 183;
    public const int DiskFull = 112;
    public const int HandleDiskFull = 39;
    public const int RequestAborted = 1235;

    /// <summary>
    /// The disk or device failed, not this file's clone: copying would meet it again or hide a failing disk. Any other
    /// error of a clone step, even one no table lists (1450; 134 on older builds), makes that file a copy.
    /// </summary>
    public static bool IsDeviceOrSpaceFailure(int error) => error switch
    {
        DiskFull => true,
        HandleDiskFull => true,
        1295 => true,         // ERROR_DISK_QUOTA_EXCEEDED
        21 => true,           // ERROR_NOT_READY
        23 => true,           // ERROR_CRC
        27 => true,           // ERROR_SECTOR_NOT_FOUND
        29 => true,           // ERROR_WRITE_FAULT
        30 => true,           // ERROR_READ_FAULT
        483 => true,          // ERROR_DEVICE_HARDWARE_ERROR
        1117 => true,         // ERROR_IO_DEVICE
        1167 => true,         // ERROR_DEVICE_NOT_CONNECTED
        1392 => true,         // ERROR_FILE_CORRUPT
        1393 => true,         // ERROR_DISK_CORRUPT
        _ => false,
    };

    public static string Describe(int error)
    {
        string text = OperatingSystemIsWindows() ? new System.ComponentModel.Win32Exception(error).Message : "Win32 error";
        return $"{text} (error {error})";
    }

    /// <summary>The exception .NET's own file APIs throw for this error, so messages read like the stock task's.</summary>
    public static Exception ToException(int error, string path) => error switch
    {
        FileNotFound => new FileNotFoundException($"Could not find file '{path}'.", path),
        PathNotFound => new DirectoryNotFoundException($"Could not find a part of the path '{path}'."),
        AccessDenied => new UnauthorizedAccessException($"Access to the path '{path}' is denied."),
        SharingViolation => new IOException($"The process cannot access the file '{path}' because it is being used by another process.", HResult(error)),
        FileExists or AlreadyExists => new IOException($"The file '{path}' already exists.", HResult(error)),
        206 or 111 => new PathTooLongException($"The path '{path}' is too long, or a component of the specified path is too long."),
        RequestAborted => new OperationCanceledException(),
        _ => new IOException($"{Describe(error)} : '{path}'", HResult(error)),
    };

    /// <summary>CopyFileExW's errors as File.Copy names them: the source if not found, else the destination.</summary>
    public static Exception ToCopyException(int error, string sourcePath, string destinationPath)
        => ToException(error, error is FileNotFound ? sourcePath : destinationPath);

    private static int HResult(int error) => unchecked((int)0x80070000) | error;

    private static bool OperatingSystemIsWindows() => System.Runtime.InteropServices.RuntimeInformation.IsOSPlatform(System.Runtime.InteropServices.OSPlatform.Windows);
}

/// <summary>Windows path rules the engine needs, written out so they hold on any OS the tests run on.</summary>
internal static class WindowsPaths
{
    /// <summary>
    /// Whether the path names an alternate data stream (a ':' after its root): never cloned into or out of (a clone
    /// into one crashed a Dev Drive machine, CopyOnWrite#24).
    /// </summary>
    public static bool NamesAStream(string path) => path.IndexOf(':', RootLength(path)) >= 0;

    /// <summary>".{name}.{12 hex}.cow-tmp" in the destination's folder (see <see cref="AtomicFile.TemporaryPathBeside"/>).</summary>
    public static string TemporaryPathBeside(string destinationPath)
    {
        int separator = destinationPath.LastIndexOfAny(new[] { '\\', '/' });
        string folder = separator < 0 ? string.Empty : destinationPath.Substring(0, separator + 1);
        return folder + AtomicFile.TemporaryNameFor(destinationPath.Substring(separator + 1));
    }

    /// <summary>Length of the root: "C:\", "\\?\C:\", "\\server\share\", "\\?\UNC\server\share\", "\\.\device\".</summary>
    public static int RootLength(string path)
    {
        if (path.Length >= 2 && path[1] == ':' && char.IsLetter(path[0]))
        {
            return path.Length > 2 && IsSeparator(path[2]) ? 3 : 2;
        }

        if (path.Length < 2 || !IsSeparator(path[0]) || !IsSeparator(path[1]))
        {
            return 0;
        }

        if (path.Length >= 4 && (path[2] == '?' || path[2] == '.') && IsSeparator(path[3]))
        {
            string rest = path.Substring(4);
            if (rest.StartsWith("UNC\\", StringComparison.OrdinalIgnoreCase))
            {
                return 8 + ServerAndShareLength(rest.Substring(4));
            }

            return 4 + RootLength(rest) + (rest.Length >= 2 && rest[1] == ':' ? 0 : FirstSegmentLength(rest));
        }

        return 2 + ServerAndShareLength(path.Substring(2));
    }

    private static int ServerAndShareLength(string path)
    {
        int server = FirstSegmentLength(path);
        return server + FirstSegmentLength(path.Substring(server));
    }

    /// <summary>The first segment and the separator after it (if any).</summary>
    private static int FirstSegmentLength(string path)
    {
        int separator = path.IndexOfAny(new[] { '\\', '/' });
        return separator < 0 ? path.Length : separator + 1;
    }

    private static bool IsSeparator(char c) => c is '\\' or '/';
}
