using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Threading;
using Microsoft.Win32.SafeHandles;

namespace Microsoft.Build.CopyOnWrite.Measure.PackageCache;

/// <summary>How an extracted file differs from its entry in the package's .nupkg.</summary>
internal enum DifferenceKind
{
    /// <summary>Not on disk (or a symbolic link to nothing).</summary>
    Missing,

    /// <summary>Another size than the entry's.</summary>
    Size,

    /// <summary>The same size, other bytes.</summary>
    Content,

    /// <summary>A folder or another kind of file where the entry is a file.</summary>
    NotAFile,

    /// <summary>There, but it cannot be read (permissions, an I/O error): not verified.</summary>
    Unreadable,

    /// <summary>An entry NuGet could not have extracted (a name with a NUL, one that leads out of the folder): not looked for.</summary>
    NotExtractable,
}

/// <param name="File">Relative to the package's folder, with '/'.</param>
/// <param name="Links">The file's number of names (st_nlink) when the OS says it (Linux): above 1, a hard link shares it.</param>
internal sealed record FileDifference(ExtractedPackage Package, string File, DifferenceKind Kind, string Detail, long? Links, bool SymbolicLink);

/// <param name="DeletingRepairs">Whether deleting the package's folder (so that the next restore extracts it again) is the repair.</param>
internal sealed record UnverifiedPackage(ExtractedPackage Package, string Reason, bool DeletingRepairs);

/// <param name="FilesWithOtherLinks">Files that match their package but have more than one name: another name (a build output) writes here.</param>
internal sealed record CacheVerification(
    int Packages,
    long Files,
    long Bytes,
    long FilesWithOtherLinks,
    string? FileWithOtherLinks,
    IReadOnlyList<FileDifference> Differences,
    IReadOnlyList<UnverifiedPackage> Unverified,
    TimeSpan Elapsed)
{
    public bool Intact => Differences.Count == 0 && Unverified.Count == 0;

    /// <summary>The packages to delete (and restore again), each once, in order.</summary>
    public IReadOnlyList<ExtractedPackage> ToDelete
        => Differences.Select(d => d.Package).Concat(Unverified.Where(u => u.DeletingRepairs).Select(u => u.Package)).Distinct().OrderBy(p => p.Folder, StringComparer.Ordinal).ToList();
}

/// <summary>
/// Compares each file NuGet extracted with its .nupkg, reading only (PackageCache/README.md); several packages at once,
/// the largest first, so that the last one does not run alone.
/// </summary>
internal static class PackageVerifier
{
    private const int BufferBytes = 1 << 20;

    /// <summary>
    /// Packages verified at once: a core each for the CRC of cached files, and at least 4, since files read cold wait
    /// on the disk and more readers keep its queue full.
    /// </summary>
    private static int Workers => Math.Max(4, Environment.ProcessorCount);

    /// <param name="progress">Told of each file and package as it is done; null for nothing.</param>
    public static CacheVerification Verify(IReadOnlyList<ExtractedPackage> packages, VerifyProgress? progress, CancellationToken cancellation)
    {
        Stopwatch clock = Stopwatch.StartNew();
        var largestFirst = new ConcurrentQueue<ExtractedPackage>(packages.OrderByDescending(p => FileAsFound.Of(p.PackageFile).Size));
        var outcomes = new ConcurrentBag<PackageOutcome>();
        Exception? failure = null;

        // Threads of their own, not the thread pool's: the pool adds threads slowly, so the first seconds would run on
        // as many workers as cores, and a timer for the progress line would wait behind them.
        Thread[] threads = Enumerable.Range(0, Math.Clamp(packages.Count, 1, Workers)).Select(_ => new Thread(() =>
        {
            byte[] buffer = new byte[BufferBytes];
            try
            {
                while (!cancellation.IsCancellationRequested && largestFirst.TryDequeue(out ExtractedPackage? package))
                {
                    outcomes.Add(VerifyPackage(package, buffer, progress, cancellation));
                    progress?.PackageDone();
                }
            }
            catch (OperationCanceledException)
            {
                // Ctrl-C: the caller says so once.
            }
            catch (Exception e)
            {
                Interlocked.CompareExchange(ref failure, e, null);
            }
        }) { IsBackground = true, Name = "verify" }).ToArray();
        foreach (Thread thread in threads)
        {
            thread.Start();
        }

        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        cancellation.ThrowIfCancellationRequested();
        if (failure is not null)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(failure).Throw();
        }

        PackageOutcome[] all = outcomes.ToArray();
        return new CacheVerification(
            packages.Count,
            all.Sum(o => o.Files),
            all.Sum(o => o.Bytes),
            all.Sum(o => o.FilesWithOtherLinks),
            all.Select(o => o.FileWithOtherLinks).Where(f => f is not null).Order(StringComparer.Ordinal).FirstOrDefault(),
            all.SelectMany(o => o.Differences).OrderBy(d => d.Package.Folder, StringComparer.Ordinal).ThenBy(d => d.File, StringComparer.Ordinal).ToList(),
            all.Where(o => o.Unverified is not null).Select(o => o.Unverified!).OrderBy(u => u.Package.Folder, StringComparer.Ordinal).ToList(),
            clock.Elapsed);
    }

    private static PackageOutcome VerifyPackage(ExtractedPackage package, byte[] buffer, VerifyProgress? progress, CancellationToken cancellation)
    {
        var outcome = new PackageOutcome();
        string packageFile = package.PackageFile;
        string name = Path.GetFileName(packageFile);
        FileAsFound nupkg = FileAsFound.Of(packageFile);
        string? folderLink = FileAsFound.Of(package.Folder).SymbolicLinkTo ?? FileAsFound.Of(Path.GetDirectoryName(package.Folder)!).SymbolicLinkTo;
        string? notNuGets = folderLink is not null ? $"its folder (or its id's folder) is a symbolic link to {folderLink}"
            : nupkg.SymbolicLinkTo is string target ? $"its package file {name} is a symbolic link to {target}"
            : nupkg.Exists && !nupkg.Regular ? $"its package file {name} is not a regular file (a folder, a FIFO, a device...)"
            : null;
        if (notNuGets is not null || nupkg.Problem is not null || !nupkg.Exists)
        {
            string reason = notNuGets is not null ? $"{notNuGets}, which NuGet never makes: not followed nor opened"
                : nupkg.Problem is not null ? $"its package file {name} cannot be looked at ({nupkg.Problem})"
                : $"its package file {name} is missing: NuGet keeps the .nupkg beside the files it extracted, and without it they cannot be compared";
            outcome.Unverified = new UnverifiedPackage(package, reason, DeletingRepairs: true);
            return outcome;
        }

        try
        {
            using var stream = new FileStream(packageFile, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, bufferSize: 4096, FileOptions.RandomAccess);
            using var archive = new ZipArchive(stream, ZipArchiveMode.Read);
            foreach (ZipArchiveEntry entry in archive.Entries)
            {
                cancellation.ThrowIfCancellationRequested();
                if (NuGetPackageFolder.Unextractable(entry.FullName) is string why)
                {
                    outcome.Differences.Add(new FileDifference(package, NuGetPackageFolder.Printable(entry.FullName), DifferenceKind.NotExtractable, $"an entry of the .nupkg that is not on disk: {why}", null, false));
                }
                else if (NuGetPackageFolder.ExtractedPath(entry.FullName, package.Id) is string relative)
                {
                    FileDifference? difference = VerifyFile(package, relative, entry, buffer, outcome, progress);
                    if (difference is not null)
                    {
                        outcome.Differences.Add(difference);
                    }
                }
            }
        }
        catch (InvalidDataException e)
        {
            outcome.Differences.Clear();
            outcome.Unverified = new UnverifiedPackage(package, $"its package file {name} is not a readable zip ({e.Message}): the .nupkg itself is damaged", DeletingRepairs: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            outcome.Differences.Clear();
            bool denied = e is UnauthorizedAccessException;
            outcome.Unverified = new UnverifiedPackage(package, $"its package file {name} cannot be read ({e.Message})" + (denied ? "; run verify as a user who may read the package folder" : string.Empty), DeletingRepairs: !denied);
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            // A zip the reader chokes on in a way of its own (a bad header field, a compression it does not have): this
            // package is not verified, the others are.
            outcome.Differences.Clear();
            outcome.Unverified = new UnverifiedPackage(package, $"its package file {name} cannot be read as a zip ({e.GetType().Name}: {e.Message})", DeletingRepairs: true);
        }

        return outcome;
    }

    private static FileDifference? VerifyFile(ExtractedPackage package, string relative, ZipArchiveEntry entry, byte[] buffer, PackageOutcome outcome, VerifyProgress? progress)
    {
        string path = Path.Combine(package.Folder, relative.Replace('/', Path.DirectorySeparatorChar));
        outcome.Files++;
        progress?.FileDone();

        // NuGet makes folders and regular files only: a symbolic link on the way (a folder of the package, or the file
        // itself) is someone else's, and a write through it reaches another file, so it is named and never followed.
        int slash = relative.LastIndexOf('/');
        if (slash > 0 && LinkIn(package.Folder, relative[..slash], outcome) is string folderLink)
        {
            return new FileDifference(package, relative, DifferenceKind.NotAFile, $"its folder is {folderLink}, which NuGet never makes: not followed", null, true);
        }

        FileAsFound file = FileAsFound.Of(path);
        FileDifference Differs(DifferenceKind kind, string detail) => new(package, relative, kind, detail, file.Links, file.SymbolicLinkTo is not null);
        if (file.Problem is not null)
        {
            return Differs(DifferenceKind.Unreadable, $"cannot be looked at ({file.Problem})");
        }

        if (file.SymbolicLinkTo is not null)
        {
            return Differs(DifferenceKind.NotAFile, $"a symbolic link to {file.SymbolicLinkTo} where the package has a file of {Bytes(entry.Length)}: NuGet extracts regular files only; not followed");
        }

        if (!file.Exists)
        {
            return Differs(DifferenceKind.Missing, "not on disk");
        }

        if (!file.Regular)
        {
            return Differs(DifferenceKind.NotAFile, $"not a regular file (a folder, a FIFO, a device...) where the package has a file of {Bytes(entry.Length)}");
        }

        if (file.Size != entry.Length)
        {
            return Differs(DifferenceKind.Size, $"{Bytes(file.Size)} on disk, {Bytes(entry.Length)} in the package");
        }

        uint crc;
        try
        {
            crc = CrcOfFile(path, buffer, progress);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return Differs(DifferenceKind.Unreadable, $"cannot be read ({e.Message})");
        }

        outcome.Bytes += file.Size;
        // A zip written with the CRC left at zero (some writers do for a file they stream) tells nothing: compare the bytes.
        bool crcUsable = entry.Crc32 != 0 || entry.Length == 0;
        if (crcUsable && crc == entry.Crc32)
        {
            if (file.Links > 1)
            {
                outcome.FilesWithOtherLinks++;
                outcome.FileWithOtherLinks ??= path;
            }

            return null;
        }

        long? firstDifference;
        try
        {
            firstDifference = FirstDifference(path, entry, buffer);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return Differs(DifferenceKind.Unreadable, $"cannot be read ({e.Message})");
        }

        return firstDifference is long offset
            ? Differs(DifferenceKind.Content, $"other bytes than the package's from byte {offset:N0} on (same size, {Bytes(file.Size)})")
            : null;
    }

    /// <summary>The CRC-32 of the whole file, read from the start with the buffer given.</summary>
    private static uint CrcOfFile(string path, byte[] buffer, VerifyProgress? progress)
    {
        using SafeFileHandle handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, FileOptions.SequentialScan);
        var crc = new System.IO.Hashing.Crc32();
        long offset = 0;
        int read;
        while ((read = RandomAccess.Read(handle, buffer, offset)) > 0)
        {
            crc.Append(buffer.AsSpan(0, read));
            offset += read;
            progress?.BytesRead(read);
        }

        return crc.GetCurrentHashAsUInt32();
    }

    /// <summary>
    /// The offset of the first byte where the file and the decompressed entry differ, or null when they are the same;
    /// an entry that does not decompress throws InvalidDataException (the .nupkg is damaged).
    /// </summary>
    private static long? FirstDifference(string path, ZipArchiveEntry entry, byte[] buffer)
    {
        int half = buffer.Length / 2;
        Span<byte> fromFile = buffer.AsSpan(0, half);
        Span<byte> fromPackage = buffer.AsSpan(half, half);
        using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, bufferSize: 1, FileOptions.SequentialScan);
        using Stream package = entry.Open();
        long offset = 0;
        while (true)
        {
            int fileBytes = file.ReadAtLeast(fromFile, half, throwOnEndOfStream: false);
            int packageBytes = package.ReadAtLeast(fromPackage, half, throwOnEndOfStream: false);
            int common = Math.Min(fileBytes, packageBytes);
            int mismatch = fromFile[..common].CommonPrefixLength(fromPackage[..common]);
            if (mismatch < common || fileBytes != packageBytes)
            {
                return offset + mismatch;
            }

            if (fileBytes == 0)
            {
                return null;
            }

            offset += fileBytes;
        }
    }

    /// <summary>
    /// "FOLDER/, a symbolic link to TARGET" for the first folder of <paramref name="relative"/> below
    /// <paramref name="root"/> that is a symbolic link, else null; each folder is looked at once per package.
    /// </summary>
    private static string? LinkIn(string root, string relative, PackageOutcome outcome)
    {
        string[] parts = relative.Split('/');
        for (int i = 1; i <= parts.Length; i++)
        {
            string folder = string.Join('/', parts[..i]);
            if (!outcome.FolderLinks.TryGetValue(folder, out string? link))
            {
                string? target = FileAsFound.Of(Path.Combine(root, folder)).SymbolicLinkTo;
                outcome.FolderLinks[folder] = link = target is null ? null : $"{folder}/, a symbolic link to {target}";
            }

            if (link is not null)
            {
                return link;
            }
        }

        return null;
    }

    private static string Bytes(long bytes) => $"{bytes:N0} bytes";

    private sealed class PackageOutcome
    {
        public long Files;
        public long Bytes;
        public long FilesWithOtherLinks;
        public string? FileWithOtherLinks;
        public List<FileDifference> Differences { get; } = [];
        public UnverifiedPackage? Unverified;
        public Dictionary<string, string?> FolderLinks { get; } = new(StringComparer.Ordinal);
    }
}
