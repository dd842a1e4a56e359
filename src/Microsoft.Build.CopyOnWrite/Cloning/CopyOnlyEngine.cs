using System.IO;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>For a platform we cannot clone on: File.Copy beside the destination, then the atomic rename.</summary>
internal sealed class CopyOnlyEngine : ICloneEngine
{
    private readonly string _platform;

    public CopyOnlyEngine(string platform) => _platform = platform;

    public CloneResult CloneOrCopy(string sourcePath, string destinationPath, CancellationToken cancellationToken, EntryKind destination = EntryKind.Unknown)
    {
        cancellationToken.ThrowIfCancellationRequested();
        return AtomicFile.WriteBeside(destinationPath, temporaryPath =>
        {
            File.Copy(sourcePath, temporaryPath, overwrite: false);
            var copied = new FileInfo(temporaryPath);
            if ((copied.Attributes & FileAttributes.ReadOnly) != 0)
            {
                copied.Attributes &= ~FileAttributes.ReadOnly;
            }

            return CloneResult.Copied(copied.Length, FallbackReason.PlatformCannotClone, _platform);
        });
    }
}
