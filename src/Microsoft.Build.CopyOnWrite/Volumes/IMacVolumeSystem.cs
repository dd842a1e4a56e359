namespace Microsoft.Build.CopyOnWrite.Volumes;

/// <summary>What macOS answers about volumes, as it answers it: a value, or the errno of the call.</summary>
internal interface IMacVolumeSystem
{
    /// <summary>statfs of <paramref name="path"/> or, when it does not exist yet, of its nearest existing folder.</summary>
    SystemAnswer<MacFileSystemStatus> StatFs(string path);

    /// <summary>Makes a small file of our own in <paramref name="folder"/>, clones it with clonefile, removes both; 0, clonefile's errno, or -1 when no file could be made there.</summary>
    int ProbeClone(string folder);
}

internal readonly record struct MacFileSystemStatus(string TypeName, string MountedOn, ulong Blocks, ulong FreeBlocks, ulong BlockSize);
