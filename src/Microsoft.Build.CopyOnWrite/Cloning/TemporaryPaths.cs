using System;
using System.IO;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// <see cref="AtomicFile.TemporaryPathBeside"/>, made to fit where file names are limited to 255 bytes of
/// UTF-8 (ext4, XFS, btrfs, APFS): it keeps 80 characters of the destination's name, and 80 characters of
/// Chinese, say, are 240 bytes, so a valid 244-byte destination name got a 262-byte temporary name and the
/// copy failed with "path too long" where the stock task succeeds. The kept part is shortened to fit,
/// at a character boundary; the name stays hidden and recognisable (<see cref="AtomicFile.IsTemporaryName"/>).
/// </summary>
internal static class TemporaryPaths
{
    private const int MaxNameBytes = 255;
    private const int RandomHexLength = 12;

    public static string Beside(string destinationPath)
    {
        string path = AtomicFile.TemporaryPathBeside(destinationPath);
        string name = Path.GetFileName(path);
        if (Encoding.UTF8.GetByteCount(name) <= MaxNameBytes)
        {
            return path;
        }

        // "." + kept + "." + random hex + suffix: everything but "kept" is ASCII.
        int fixedLength = AtomicFile.TemporaryPrefix.Length + 1 + RandomHexLength + AtomicFile.TemporarySuffix.Length;
        string kept = name.Substring(AtomicFile.TemporaryPrefix.Length, name.Length - fixedLength);
        string randomPart = name.Substring(name.Length - AtomicFile.TemporarySuffix.Length - RandomHexLength - 1, RandomHexLength + 1);
        int budget = MaxNameBytes - fixedLength;
        int length = 0;
        int bytes = 0;
        while (length < kept.Length)
        {
            int step = char.IsHighSurrogate(kept[length]) && length + 1 < kept.Length ? 2 : 1;
            int stepBytes = Encoding.UTF8.GetByteCount(kept.Substring(length, step));
            if (bytes + stepBytes > budget)
            {
                break;
            }

            bytes += stepBytes;
            length += step;
        }

        string shortName = AtomicFile.TemporaryPrefix + kept.Substring(0, length) + randomPart + AtomicFile.TemporarySuffix;
        return Path.Combine(Path.GetDirectoryName(path) ?? string.Empty, shortName);
    }
}
