using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Volumes;
using Microsoft.Win32.SafeHandles;

namespace Microsoft.Build.CopyOnWrite.Measure.Platforms;

/// <summary>A volume as the tool reports it: where, its file system, whether it clones and how that is known.</summary>
/// <param name="Root">As in <see cref="VolumeLocation.Root"/>.</param>
/// <param name="FileSystem">As in <see cref="VolumeLocation.FileSystem"/>.</param>
/// <param name="CanClone">Whether files can be cloned within the volume; null when it could not be found out.</param>
/// <param name="CloneEvidence">How: the volume's flag (Windows), a probe clone, or the file system's kind.</param>
/// <param name="StockCopyClones">Whether the stock Copy (File.Copy / CopyFile) clones there too; null: unknown.</param>
/// <param name="DevDrive">Windows: whether it is a Dev Drive; null elsewhere or when Windows would not say.</param>
/// <param name="TrustedDevDrive">Whether that Dev Drive is trusted (antivirus in performance mode), else null.</param>
/// <param name="UsedSpaceCaveat">Why used space can move without a build, where the OS makes it so (APFS).</param>
/// <param name="FileSystemId">As in <see cref="VolumeLocation.FileSystemId"/>.</param>
internal sealed record VolumeFacts(
    string Root,
    string FileSystem,
    bool? CanClone,
    string CloneEvidence,
    bool? StockCopyClones,
    bool? DevDrive,
    bool? TrustedDevDrive,
    string? UsedSpaceCaveat,
    string? FileSystemId = null)
{
    public VolumeLocation Location => new(Root, FileSystem, FileSystemId);
}

/// <summary>
/// A volume's facts as the tool reports them, over the build's own answers (<see cref="IVolumeInspector"/>); one per
/// OS, read afresh every time, since a volume mounted a moment ago must be seen.
/// </summary>
internal abstract class VolumeFactsInspector
{
    public static VolumeFactsInspector ForThisProcess()
    {
        if (OperatingSystem.IsLinux())
        {
            return new LinuxVolumeFacts();
        }

        if (OperatingSystem.IsWindows())
        {
            return new WindowsVolumeFacts(new WindowsVolumeFactsSystem());
        }

        return OperatingSystem.IsMacOS() ? new MacVolumeFacts(new MacVolumeSystem()) : new OtherVolumeFacts();
    }

    /// <summary>The volume of <paramref name="path"/>, which need not exist (its nearest existing folder is asked).</summary>
    public abstract VolumeLocation Locate(string path);

    /// <summary>
    /// Everything about the volume of <paramref name="folder"/>. Without an OS flag for cloning (Linux, macOS) a file
    /// of ours is cloned there; where it cannot or may not be (<paramref name="mayWrite"/>), flags or the kind decide.
    /// </summary>
    public abstract VolumeFacts Inspect(string folder, bool mayWrite);
}

/// <summary>
/// Linux: the build's mount table and probe clone (<see cref="LinuxVolumes"/>); without a probe, XFS's own reflink flag
/// or the file system's kind (btrfs always clones; ext4, tmpfs and FAT never do; XFS only when made with reflink).
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxVolumeFacts : VolumeFactsInspector
{
    /// <summary>What <see cref="Inspect"/> takes for the probe's answer when it may not write.</summary>
    private const int NotProbed = -2;

    private const int XfsGeometryBytes = 112;
    private const int XfsGeometryFlagsOffset = 92;
    private const uint XfsGeometryFlagReflink = 0x100000;

    private readonly LinuxVolumes _volumes = new(TimeSpan.Zero);

    public override VolumeLocation Locate(string path) => _volumes.Locate(path);

    public override VolumeFacts Inspect(string folder, bool mayWrite)
    {
        VolumeLocation location = Locate(folder);
        string existing = VolumeCatalog.NearestExisting(folder);
        int probe = mayWrite ? LinuxVolumes.ProbeClone(existing) : NotProbed;
        (bool? canClone, string evidence) = (probe, LinuxVolumes.CanCloneByProbe(probe)) switch
        {
            (_, true) => (true, "a probe clone (FICLONE) of a file of our own worked"),
            (_, false) => ((bool?)false, $"a probe clone (FICLONE) of a file of our own was refused: {Marshal.GetPInvokeErrorMessage(probe)} ({ErrnoName(probe)})"),
            ( > 0, _) => WithoutProbe(existing, location.FileSystem, $"a probe clone (FICLONE) failed: {Marshal.GetPInvokeErrorMessage(probe)} ({ErrnoName(probe)})"),
            (NotProbed, _) => WithoutProbe(existing, location.FileSystem, "no probe clone: the doctor writes only where a build writes (outputs, package cache, temp, a folder you named), not here"),
            _ => WithoutProbe(existing, location.FileSystem, "no probe clone: the folder cannot be written to"),
        };

        // .NET's File.Copy (so MSBuild's own Copy task) tries FICLONE first on Linux: where we clone, it clones too.
        return new VolumeFacts(location.Root, location.FileSystem, canClone, evidence, canClone, null, null, null, location.FileSystemId);
    }

    /// <summary>What the file system's kind alone says, when no probe could be made.</summary>
    internal static (bool? CanClone, string Evidence) FromKind(string fileSystem, string why) => fileSystem switch
    {
        "btrfs" => (true, $"btrfs always clones ({why})"),
        "ext2" or "ext3" or "ext4" or "tmpfs" or "ramfs" or "vfat" or "exfat" or "squashfs" or "iso9660"
            => (false, $"{fileSystem} cannot clone ({why})"),
        _ => (null, $"unknown: {why}; {fileSystem} may or may not clone"),
    };

    /// <summary>Whether the XFS volume holding <paramref name="folder"/> was made with reflink, from its geometry (XFS_IOC_FSGEOMETRY, read through a read-only descriptor of the folder); null when it cannot be read.</summary>
    internal static unsafe bool? XfsReflink(string folder)
    {
        if (XfsGeometryRequestFor(RuntimeInformation.ProcessArchitecture) is not nuint request)
        {
            return null;
        }

        int fd = LinuxNative.Open(folder, LinuxNative.OpenReadOnly | LinuxNative.OpenCloseOnExec);
        if (fd < 0)
        {
            return null;
        }

        using var handle = new SafeFileHandle(fd, ownsHandle: true);
        byte* geometry = stackalloc byte[XfsGeometryBytes];
        new Span<byte>(geometry, XfsGeometryBytes).Clear();
        return LinuxNative.ioctl(fd, request, (nint)geometry) == 0
            ? (*(uint*)(geometry + XfsGeometryFlagsOffset) & XfsGeometryFlagReflink) != 0
            : null;
    }

    private static (bool? CanClone, string Evidence) WithoutProbe(string folder, string fileSystem, string why)
        => fileSystem == "xfs" && XfsReflink(folder) is bool reflink
            ? (reflink, $"the XFS volume's own flags (XFS_IOC_FSGEOMETRY) say reflink is {(reflink ? "on" : "off")} ({why})")
            : FromKind(fileSystem, why);

    /// <summary>_IOR('X', 100, struct xfs_fsop_geom_v1): 112 bytes, the flags at offset 92; the generic ioctl encoding, and powerpc's.</summary>
    private static nuint? XfsGeometryRequestFor(Architecture architecture) => architecture.ToString() switch
    {
        "X64" or "Arm64" or "S390x" or "RiscV64" or "LoongArch64" => 0x80705864,
        "Ppc64le" => 0x40705864,
        _ => null,
    };

    private static string ErrnoName(int errno) => errno switch
    {
        1 => "EPERM",
        9 => "EBADF",
        13 => "EACCES",
        18 => "EXDEV",
        LinuxNative.EINVAL => "EINVAL",
        25 => "ENOTTY",
        LinuxNative.ENOSYS => "ENOSYS",
        95 => "EOPNOTSUPP",
        _ => $"errno {errno}",
    };
}

/// <summary>What Windows answers about a volume beyond what a build asks: a value, or the Win32 error code of the call.</summary>
internal interface IWindowsVolumeFactsSystem : IWindowsVolumeSystem
{
    /// <summary>FSCTL_QUERY_PERSISTENT_VOLUME_STATE on the volume root: the persistent state flags (Dev Drive, trusted).</summary>
    SystemAnswer<uint> PersistentVolumeState(string root);

    /// <summary>The Windows build number (22631 is 11 23H2, 26100 is 11 24H2).</summary>
    int OSBuild { get; }
}

/// <summary>
/// Windows: the volume's flags by the engine's rule (<see cref="WindowsVolumes.VolumeAt"/>), Dev Drive and its trust
/// from its persistent state, and the stock CopyFile's cloning by Windows build. Nothing is written.
/// </summary>
internal sealed class WindowsVolumeFacts(IWindowsVolumeFactsSystem system) : VolumeFactsInspector
{
    public const uint PersistentVolumeStateDevVolume = 0x00002000;
    public const uint PersistentVolumeStateTrustedVolume = 0x00004000;

    /// <summary>Windows 11 24H2 and Windows Server 2025: from this build on, CopyFile block-clones by itself on ReFS.</summary>
    public const int FirstBuildWhoseCopyFileClones = 26100;

    private const int ErrorInvalidFunction = 1;
    private const int ErrorNotSupported = 50;
    private const int ErrorInvalidParameter = 87;

    private readonly WindowsVolumes _volumes = new(system);

    public override VolumeLocation Locate(string path) => _volumes.Locate(path);

    public override VolumeFacts Inspect(string folder, bool mayWrite)
    {
        string root = _volumes.RootOf(folder);
        SystemAnswer<WindowsVolumeInformation> information = system.VolumeInformation(root);
        if (!information.Succeeded)
        {
            return new VolumeFacts(root, "unknown", null, $"GetVolumeInformation failed on {root}: Windows error {information.Error}", null, null, null, null);
        }

        WindowsVolume volume = _volumes.VolumeAt(root, information.Value);
        bool canClone = volume.CanClone;
        string evidence = canClone ? "the volume reports block cloning (FILE_SUPPORTS_BLOCK_REFCOUNTING)"
            : volume.IsNetworkShare ? "a network share: its server reports block cloning, but a share is not cloned over (its server copies, by SMB offload)"
            : "the volume does not report block cloning (no FILE_SUPPORTS_BLOCK_REFCOUNTING)";
        (bool? devDrive, bool? trusted, string? devDriveProblem) = DevDriveState(root, volume.FileSystemName);
        if (devDriveProblem is not null)
        {
            evidence += $"; Dev Drive unknown: {devDriveProblem}";
        }

        bool stockClones = canClone && system.OSBuild >= FirstBuildWhoseCopyFileClones;
        return new VolumeFacts(root, volume.FileSystemName, canClone, evidence, stockClones, devDrive, trusted, null);
    }

    /// <summary>
    /// A Dev Drive is always ReFS, so any other file system is not one. On ReFS the persistent volume state says;
    /// a Windows that predates Dev Drive (before 11 22H2) rejects the query as unknown, which also means "not one".
    /// </summary>
    private (bool? DevDrive, bool? Trusted, string? Problem) DevDriveState(string root, string fileSystem)
    {
        if (!fileSystem.Equals("ReFS", StringComparison.OrdinalIgnoreCase))
        {
            return (false, null, null);
        }

        SystemAnswer<uint> state = system.PersistentVolumeState(root);
        if (state.Succeeded)
        {
            bool devDrive = (state.Value & PersistentVolumeStateDevVolume) != 0;
            return (devDrive, devDrive ? (state.Value & PersistentVolumeStateTrustedVolume) != 0 : null, null);
        }

        return state.Error is ErrorInvalidFunction or ErrorInvalidParameter or ErrorNotSupported
            ? (false, null, null)
            : (null, null, $"FSCTL_QUERY_PERSISTENT_VOLUME_STATE failed: Windows error {state.Error}");
    }
}

/// <summary>The real answers: thin calls into kernel32, no decisions.</summary>
[SupportedOSPlatform("windows")]
internal unsafe partial class WindowsVolumeFactsSystem : WindowsVolumeSystem, IWindowsVolumeFactsSystem
{
    private const uint FsctlQueryPersistentVolumeState = 0x0009023C;
    private const uint FileReadAttributes = 0x80;
    protected const uint FileShareReadWriteDelete = 0x7;
    protected const uint OpenExisting = 3;
    private const uint FileFlagBackupSemantics = 0x02000000;

    public int OSBuild => Environment.OSVersion.Version.Build;

    public SystemAnswer<uint> PersistentVolumeState(string root)
    {
        using SafeFileHandle handle = CreateFileW(root, FileReadAttributes, FileShareReadWriteDelete, IntPtr.Zero, OpenExisting, FileFlagBackupSemantics, IntPtr.Zero);
        if (handle.IsInvalid)
        {
            return SystemAnswer<uint>.Failed(Marshal.GetLastWin32Error());
        }

        // FILE_FS_PERSISTENT_VOLUME_INFORMATION { VolumeFlags, FlagMask, Version, Reserved }: version 1, asking for the Dev Drive bits.
        uint* input = stackalloc uint[4];
        input[0] = 0;
        input[1] = WindowsVolumeFacts.PersistentVolumeStateDevVolume | WindowsVolumeFacts.PersistentVolumeStateTrustedVolume;
        input[2] = 1;
        input[3] = 0;
        uint* output = stackalloc uint[4];
        return DeviceIoControl(handle, FsctlQueryPersistentVolumeState, input, 16, output, 16, out _, IntPtr.Zero)
            ? SystemAnswer<uint>.Ok(output[0])
            : SystemAnswer<uint>.Failed(Marshal.GetLastWin32Error());
    }

    [LibraryImport("kernel32.dll", EntryPoint = "CreateFileW", StringMarshalling = StringMarshalling.Utf16, SetLastError = true)]
    protected static partial SafeFileHandle CreateFileW(string fileName, uint desiredAccess, uint shareMode, IntPtr securityAttributes, uint creationDisposition, uint flagsAndAttributes, IntPtr templateFile);

    [LibraryImport("kernel32.dll", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool DeviceIoControl(SafeFileHandle device, uint ioControlCode, void* inBuffer, uint inBufferSize, void* outBuffer, uint outBufferSize, out uint bytesReturned, IntPtr overlapped);
}

/// <summary>
/// macOS: the build's statfs and probe clone (<see cref="MacVolumes"/>); without a probe, the file system's kind (APFS
/// clones; HFS+, FAT and exFAT do not); APFS's shared free space as the used-space caveat.
/// </summary>
internal sealed class MacVolumeFacts(IMacVolumeSystem system) : VolumeFactsInspector
{
    private readonly MacVolumes _volumes = new(system);

    public override VolumeLocation Locate(string path) => _volumes.Locate(path);

    public override VolumeFacts Inspect(string folder, bool mayWrite)
    {
        VolumeLocation location = Locate(folder);
        string type = location.FileSystem;
        int probe = mayWrite ? system.ProbeClone(folder) : -1;
        string why = mayWrite ? "the folder cannot be written to" : "not written to: the doctor writes only where a build writes";
        (bool? canClone, string evidence) = (probe, MacVolumes.CanCloneByProbe(probe)) switch
        {
            (_, true) => ((bool?)true, "a probe clone (clonefile) of a file of our own worked"),
            (_, false) => (false, "a probe clone (clonefile) of a file of our own was refused: the file system cannot clone (ENOTSUP)"),
            (-1, _) when type.Equals("apfs", StringComparison.OrdinalIgnoreCase) => (true, $"APFS always clones (no probe clone: {why})"),
            (-1, _) when type is "hfs" or "msdos" or "exfat" => (false, $"{type} cannot clone (no probe clone: {why})"),
            (-1, _) => (null, $"unknown: no probe clone, {why}"),
            _ => (null, $"a probe clone (clonefile) failed with errno {probe}"),
        };

        string? caveat = type.Equals("apfs", StringComparison.OrdinalIgnoreCase)
            ? "APFS volumes share their container's free space, so writes to other volumes of the same container move this number too"
            : null;

        // Since .NET 7, File.Copy (and so MSBuild's own Copy task) tries clonefile first.
        return new VolumeFacts(location.Root, type, canClone, evidence, canClone, null, null, caveat);
    }
}

/// <summary>An OS we do not clone on: the drive and .NET's name for its format.</summary>
internal sealed class OtherVolumeFacts : VolumeFactsInspector
{
    private readonly OtherVolumes _volumes = new();

    public override VolumeLocation Locate(string path) => _volumes.Locate(path);

    public override VolumeFacts Inspect(string folder, bool mayWrite)
    {
        VolumeLocation location = Locate(folder);
        return new VolumeFacts(location.Root, location.FileSystem, null, $"not checked: Microsoft.Build.CopyOnWrite does not clone on {RuntimeInformation.OSDescription}", null, null, null, null);
    }
}
