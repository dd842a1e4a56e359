using System;
using System.IO;
using Microsoft.Build.CopyOnWrite.Cloning;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// The file system's answers for <see cref="PairDecision"/>, each asked when a row first needs it and kept: one stat
/// settles the usual cases (a missing destination, a regular file over a regular file), and .NET is asked the stock
/// task's way, with its exceptions, for everything else. A retry makes a new look.
/// </summary>
internal sealed class PairLook : IPairLook
{
    private readonly string _source;
    private readonly string _destination;
    private readonly Func<string, string, string?> _whyNoClone;
    private EntryKind _destinationProbe = EntryKind.Unknown;
    private EntryIdentity _destinationIdentity;
    private bool _probed;
    private EntryKind _sourceProbe = EntryKind.Unknown;
    private bool? _sameEntry;
    private bool? _unchanged;
    private PairEntry? _sourceEntry;
    private PairEntry? _destinationEntry;
    private bool? _readOnly;
    private bool? _isSourceFile;
    private LinkedOutput? _linkedOutput;
    private (string? Why, bool Known) _whyNoCloneAnswer;

    /// <param name="whyNoClone">Whether the two paths' volumes clone (null) or why not, by the volume catalog's cached answer.</param>
    public PairLook(string sourcePath, string destinationPath, Func<string, string, string?> whyNoClone)
    {
        _source = sourcePath;
        _destination = destinationPath;
        _whyNoClone = whyNoClone;
        SamePath = string.Equals(sourcePath, destinationPath, MSBuildHost.PathComparison);
    }

    public bool SamePath { get; }

    public bool Unchanged
    {
        get
        {
            if (_unchanged is null)
            {
                _unchanged = IsUnchanged(_source, _destination, out long length);
                SourceLength = length;
            }

            return _unchanged.Value;
        }
    }

    /// <summary>The source's length, as the up-to-date check found it (0 before it ran).</summary>
    public long SourceLength { get; private set; }

    /// <summary>What the destination's one stat found (Missing, RegularFile or Unknown): the engine's hint.</summary>
    public EntryKind DestinationHint
    {
        get
        {
            Probe();
            return _destinationProbe;
        }
    }

    public bool SameEntry
    {
        get
        {
            if (_sameEntry is null)
            {
                Probe();
                _sameEntry = _destinationProbe != EntryKind.Missing
                    && UnixFiles.AreOneDirectoryEntry(_source, _destination, _destinationProbe, _destinationIdentity, out _sourceProbe);
            }

            return _sameEntry.Value;
        }
    }

    public PairEntry Source => _sourceEntry ??= LookAtSource();

    public PairEntry Destination => _destinationEntry ??= LookAtDestination();

    public bool DestinationReadOnly => _readOnly ??= (File.GetAttributes(_destination) & FileAttributes.ReadOnly) != 0;

    public bool DestinationIsSourceFile => _isSourceFile ??= FileLinks.AreSameFile(_source, _destination);

    public LinkedOutput LinkedOutput => _linkedOutput ??= LookForLink();

    public string? WhyNoClone
    {
        get
        {
            if (!_whyNoCloneAnswer.Known)
            {
                _whyNoCloneAnswer = (_whyNoClone(_source, _destination), true);
            }

            return _whyNoCloneAnswer.Why;
        }
    }

    /// <summary>The stock task's up-to-date check: both files there, of one length and last write time.</summary>
    private static bool IsUnchanged(string sourcePath, string destinationPath, out long length)
    {
        var source = new FileInfo(sourcePath);
        var destination = new FileInfo(destinationPath);
        length = source.Exists ? source.Length : 0;
        return source.Exists && destination.Exists
            && source.Length == destination.Length
            && source.LastWriteTimeUtc == destination.LastWriteTimeUtc;
    }

    private void Probe()
    {
        if (!_probed)
        {
            _destinationProbe = UnixFiles.Probe(_destination, followLinks: false, out _destinationIdentity);
            _probed = true;
        }
    }

    private PairEntry LookAtSource()
    {
        // A regular file the same-entry check found (links followed), or one stat; anything else is asked of .NET as
        // the stock task asks it (a FIFO or device is no folder and exists: it is copied).
        if (_sourceProbe == EntryKind.RegularFile || UnixFiles.Probe(_source, followLinks: true) == EntryKind.RegularFile)
        {
            return PairEntry.File;
        }

        return Directory.Exists(_source) ? PairEntry.Folder : File.Exists(_source) ? PairEntry.File : PairEntry.Missing;
    }

    private PairEntry LookAtDestination()
    {
        Probe();
        if (_destinationProbe == EntryKind.Missing)
        {
            return PairEntry.Missing;
        }

        if (_destinationProbe == EntryKind.RegularFile)
        {
            return PairEntry.File;
        }

        if (Directory.Exists(_destination))
        {
            return PairEntry.Folder; // a symbolic link to a folder too, as the stock task finds it
        }

        var existing = new FileInfo(_destination);
        return FileLinks.IsSymbolicLink(existing) ? PairEntry.SymbolicLink : existing.Exists ? PairEntry.File : PairEntry.Missing;
    }

    /// <summary>Asked only with CopyOnWriteInsteadOfLinks: one stat, and more only for a file with more than one name or a symbolic link.</summary>
    private LinkedOutput LookForLink()
    {
        Probe();
        if (SamePath || _destinationProbe == EntryKind.Missing)
        {
            return LinkedOutput.None;
        }

        if (_destinationProbe == EntryKind.RegularFile)
        {
            if (_destinationIdentity.Links < 2 || UnixFiles.AreOneDirectoryEntry(_source, _destination))
            {
                return LinkedOutput.None;
            }

            return DestinationIsSourceFile ? LinkedOutput.HardLinkToSource : LinkedOutput.HardLinkToOther;
        }

        return Destination == PairEntry.SymbolicLink && DestinationIsSourceFile && !UnixFiles.AreOneDirectoryEntry(_source, _destination)
            ? LinkedOutput.SymbolicLinkToSource
            : LinkedOutput.None;
    }
}
