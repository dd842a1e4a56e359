using System;
using System.Globalization;
using System.IO;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>Where a measurement runs: a fresh loop-mounted file system (root only), or a folder on an existing one.</summary>
internal sealed class Volume : IDisposable
{
    private readonly string? _image;

    private Volume(string label, string root, string fileSystem, string description, bool dedicated, string? image)
    {
        Label = label;
        Root = root;
        FileSystem = fileSystem;
        Description = description;
        Dedicated = dedicated;
        _image = image;
    }

    /// <summary>"xfs", "btrfs", "ext4" or "here".</summary>
    public string Label { get; }

    /// <summary>The folder the measurement may use.</summary>
    public string Root { get; }

    /// <summary>The file system type as the kernel names it (stat -f).</summary>
    public string FileSystem { get; }

    public string Description { get; }

    /// <summary>True for a volume only this tool writes to: its used-space delta is the build's.</summary>
    public bool Dedicated { get; }

    public static Volume Create(string label, string scratch, int sizeMiB)
    {
        if (label == "here")
        {
            string folder = Path.Combine(scratch, "here");
            Directory.CreateDirectory(folder);
            string type = FileSystemType(folder);
            return new Volume("here", folder, type, $"{type} ({folder}, shared with the rest of the machine)", dedicated: false, image: null);
        }

        if (!OperatingSystem.IsLinux())
        {
            throw new MeasureException($"--volume {label} makes a loop-mounted file system, which needs Linux. Use --volume here.");
        }

        if (!Environment.IsPrivilegedProcess)
        {
            throw new MeasureException($"--volume {label} makes a loop-mounted file system, which needs root (sudo). Use --volume here to measure where you are.");
        }

        (string mkfs, string[] options, string describe) = label switch
        {
            "xfs" => ("mkfs.xfs", new[] { "-q", "-f", "-m", "reflink=1" }, "XFS, mkfs.xfs -m reflink=1"),
            "btrfs" => ("mkfs.btrfs", new[] { "-q", "-f" }, "btrfs, mkfs.btrfs defaults"),
            "ext4" => ("mkfs.ext4", new[] { "-q", "-F" }, "ext4, mkfs.ext4 defaults (cannot clone)"),
            _ => throw new MeasureException($"Unknown volume kind '{label}': use xfs, btrfs, ext4 or here."),
        };

        string image = Path.Combine(scratch, label + ".img");
        string mountPoint = Path.Combine(scratch, label);
        Directory.CreateDirectory(mountPoint);
        using (FileStream stream = File.Create(image))
        {
            stream.SetLength((long)sizeMiB << 20); // sparse
        }

        Shell.MustRun(mkfs, [.. options, image]);
        Shell.MustRun("mount", ["-o", "loop", image, mountPoint]);
        return new Volume(label, mountPoint, FileSystemType(mountPoint), $"{describe}; {sizeMiB} MiB loop image on {FileSystemType(scratch)}", dedicated: true, image);
    }

    /// <summary>Bytes in use on the file system, after its pending writes and frees have been made durable.</summary>
    public long UsedBytes() => UsedBytes(out _);

    /// <summary>As <see cref="UsedBytes()"/>, and how long the first flush (syncfs) took: the write-back still owed for what was written.</summary>
    public long UsedBytes(out TimeSpan firstFlush)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        Shell.Run("sync", "-f", Root);
        firstFlush = clock.Elapsed;
        Settle();
        return ReadUsedBytes();
    }

    /// <summary>
    /// Flushes the file system (syncfs) and waits until its used space stops moving: XFS frees deleted inodes in
    /// the background and btrfs frees extents at transaction commit, so a reading right after a delete can be stale.
    /// </summary>
    public void Settle()
    {
        long previous = -1;
        for (int attempt = 0; attempt < 20; attempt++)
        {
            Shell.Run("sync", "-f", Root);
            long now = ReadUsedBytes();
            if (now == previous)
            {
                return;
            }

            previous = now;
            Thread.Sleep(250);
        }
    }

    private long ReadUsedBytes()
    {
        // stat -f: %b total blocks, %f free blocks, %S fundamental block size.
        ShellResult stat = Shell.MustRun("stat", ["-f", "-c", "%b %f %S", Root]);
        string[] fields = stat.Output.Trim().Split(' ');
        long total = long.Parse(fields[0], CultureInfo.InvariantCulture);
        long free = long.Parse(fields[1], CultureInfo.InvariantCulture);
        long blockSize = long.Parse(fields[2], CultureInfo.InvariantCulture);
        return (total - free) * blockSize;
    }

    public static string FileSystemType(string path)
        => OperatingSystem.IsWindows() ? "NTFS/ReFS" : Shell.Run("stat", "-f", "-c", "%T", path).Output.Trim();

    public void Dispose()
    {
        if (_image is null)
        {
            return;
        }

        Shell.Run("umount", Root);
        if (Shell.Run("mountpoint", "-q", Root).Succeeded)
        {
            Shell.Run("umount", "-l", Root);
        }

        try
        {
            File.Delete(_image);
            Directory.Delete(Root);
        }
        catch (IOException)
        {
        }
    }
}
