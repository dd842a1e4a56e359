using System;
using System.Collections.Generic;
using System.Text;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Settings;
using Microsoft.Build.CopyOnWrite.Volumes;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>What one Copy invocation did, counted from its worker threads and told in one line.</summary>
/// <remarks>The reasons are few, so lists searched in a loop: no generic dictionary for the JIT to compile in every node.</remarks>
internal sealed class CopySummary : CopyCounts
{
    private readonly object _lock = new();
    private readonly List<ReasonCount> _copiedByReason = new();
    private readonly List<NotClonedFiles> _notCloned = new();
    private readonly Func<CopySources>? _makeSources;
    private CopySources? _sources;

    /// <param name="sources">Sorts the sources of files from another volume (null: not sorted); made at the first such file.</param>
    public CopySummary(Func<CopySources>? sources = null) => _makeSources = sources;

    /// <summary>Where the first cloned file went (its volume is where this invocation cloned), or null.</summary>
    public string? FirstClonedDestination { get; private set; }

    public void AddCloneResult(CloneResult result)
    {
        lock (_lock)
        {
            if (result.Method == CloneMethod.Cloned)
            {
                ClonedFiles++;
                ClonedBytes += result.Bytes;
                return;
            }

            CopiedFiles++;
            CopiedBytes += result.Bytes;
            // The words for a reason are the same whatever the detail, except where the detail is part of them.
            // An engine fault's detail names the file (COW006 says it per file): all faults are one reason here.
            string? detail = result.Reason is FallbackReason.DifferentVolumes or FallbackReason.EmptyFile or FallbackReason.NotARegularFile or FallbackReason.EngineFailed ? null : result.Detail;
            ReasonCount? count = null;
            foreach (ReasonCount existing in _copiedByReason)
            {
                if (existing.Reason == result.Reason && existing.Detail == detail)
                {
                    count = existing;
                    break;
                }
            }

            if (count is null)
            {
                count = new ReasonCount(result.Reason, detail);
                _copiedByReason.Add(count);
            }

            count.Files++;
            count.Bytes += result.Bytes;
        }
    }

    /// <summary>As <see cref="AddCloneResult(CloneResult)"/>, and remembers which files were not cloned and where they were.</summary>
    public void AddCloneResult(CloneResult result, string sourcePath, string destinationPath)
    {
        AddCloneResult(result);
        if (result.Method == CloneMethod.Cloned)
        {
            // One path kept, not one per file: a clone never leaves its volume, and one Copy writes to one output
            // folder as a rule (where it writes to several volumes, the first one is named for all).
            if (FirstClonedDestination is null)
            {
                lock (_lock)
                {
                    FirstClonedDestination ??= destinationPath;
                }
            }

            return;
        }

        SourceOrigin origin = result.Reason == FallbackReason.DifferentVolumes && Sources is CopySources sources ? sources.OriginOf(sourcePath) : SourceOrigin.Movable;
        lock (_lock)
        {
            NotClonedFiles? files = null;
            foreach (NotClonedFiles existing in _notCloned)
            {
                if (existing.Reason == result.Reason && existing.Origin == origin)
                {
                    files = existing;
                    break;
                }
            }

            if (files is null)
            {
                files = new NotClonedFiles(result.Reason, result.Detail, origin, sourcePath, destinationPath);
                _notCloned.Add(files);
            }

            files.Add(sourcePath, destinationPath, result.Bytes);
        }
    }

    private CopySources? Sources
    {
        get
        {
            lock (_lock)
            {
                return _sources ??= _makeSources?.Invoke();
            }
        }
    }

    /// <summary>The files copied rather than cloned, per reason (only those added with their paths).</summary>
    public IReadOnlyList<NotClonedFiles> NotCloned
    {
        get
        {
            lock (_lock)
            {
                // Most files first; a stable insertion sort (as OrderByDescending was), without LINQ's first-use cost.
                var sorted = new List<NotClonedFiles>(_notCloned.Count);
                foreach (NotClonedFiles files in _notCloned)
                {
                    int at = sorted.Count;
                    while (at > 0 && sorted[at - 1].Files < files.Files)
                    {
                        at--;
                    }

                    sorted.Insert(at, files);
                }

                return sorted;
            }
        }
    }

    /// <summary>As <see cref="AddCloneResult(CloneResult, string, string)"/> for a file a link was asked for; a clone is also counted apart.</summary>
    public void AddClonedInsteadOfLink(CloneResult result, string sourcePath, string destinationPath)
    {
        AddCloneResult(result, sourcePath, destinationPath);
        if (result.Method == CloneMethod.Cloned)
        {
            lock (_lock)
            {
                ClonedInsteadOfLinksFiles++;
                ClonedInsteadOfLinksBytes += result.Bytes;
            }
        }
    }

    /// <summary>As <see cref="AddCloneResult(CloneResult, string, string)"/> for a clone that replaced a link to its source; also counted apart.</summary>
    public void AddReplacedLink(CloneResult result, string sourcePath, string destinationPath)
    {
        AddCloneResult(result, sourcePath, destinationPath);
        CountReplacedLink(result);
    }

    /// <summary>Counts apart, among the files already added, a clone that replaced an output that was a link to its source.</summary>
    public void CountReplacedLink(CloneResult result)
    {
        if (result.Method == CloneMethod.Cloned)
        {
            lock (_lock)
            {
                ReplacedLinksFiles++;
                ReplacedLinksBytes += result.Bytes;
            }
        }
    }

    public void AddLinked()
    {
        lock (_lock)
        {
            LinkedFiles++;
        }
    }

    public void AddUpToDate(long bytes)
    {
        lock (_lock)
        {
            UpToDateFiles++;
            UpToDateBytes += bytes;
        }
    }

    /// <summary>E.g. "CopyOnWrite: cloned 12 files (48.2 MiB), copied 3 files (1.1 MiB) because ext4 cannot clone, 40 files already up to date."</summary>
    public string Describe()
    {
        lock (_lock)
        {
            var text = new StringBuilder("CopyOnWrite: ");
            var reasons = new List<CopiedBecause>(_copiedByReason.Count);
            foreach (ReasonCount reason in _copiedByReason)
            {
                reasons.Add(new CopiedBecause(DescribeFallback(reason.Reason, reason.Detail, reason.Files), reason.Files));
            }

            AppendDescription(text, reasons);
            return text.Append('.').ToString();
        }
    }

    /// <summary>Why <paramref name="files"/> files were copied, not cloned, in words (the detail: the file system, for FileSystemCannotClone).</summary>
    public static string DescribeFallback(FallbackReason reason, string? detail, int files = 1) => reason switch
    {
        FallbackReason.DifferentVolumes => "source and destination are on different volumes",
        FallbackReason.FileSystemCannotClone => $"{detail ?? "the destination's file system"} cannot clone",
        FallbackReason.FileSystemRefused => $"the file system refused to clone {(files == 1 ? "it" : "them")} ({detail ?? "no reason given"})",
        FallbackReason.EmptyFile => files == 1 ? "the file is empty" : "the files are empty",
        FallbackReason.NotARegularFile => files == 1 ? "the source is not a regular file" : "the sources are not regular files",
        FallbackReason.PlatformCannotClone => $"this platform has no clone support ({detail ?? "unknown"})",
        FallbackReason.EngineFailed => detail is null
            ? $"our engine failed for {(files == 1 ? "it" : "them")} and the stock task's way copied {(files == 1 ? "it" : "them")} (warning {CopyOnWriteCodes.EngineFault})"
            : $"{detail}, and the stock task's way copied it",
        _ => "no reason recorded",
    };

    private sealed class ReasonCount(FallbackReason reason, string? detail)
    {
        public FallbackReason Reason { get; } = reason;

        public string? Detail { get; } = detail;

        public int Files { get; set; }

        public long Bytes { get; set; }
    }
}
