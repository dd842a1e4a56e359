using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Measure.PackageCache;

/// <summary>
/// The CRC-32 a zip file records for each entry (the reflected polynomial 0xEDB88320, started and finished with all
/// bits set), eight bytes a step from eight tables ("slicing-by-8"). Here because the tool takes no package for it:
/// a file's CRC, compared with the one the .nupkg's central directory holds, checks it without decompressing anything.
/// </summary>
internal static class Crc32
{
    private const uint Polynomial = 0xEDB88320;

    // Table k gives the CRC of a byte followed by k zero bytes: eight of them fold eight bytes into the CRC at once.
    private static readonly uint[] Tables = MakeTables();

    /// <summary>The CRC-32 of <paramref name="data"/>.</summary>
    public static uint Of(ReadOnlySpan<byte> data) => Append(0, data);

    /// <summary>The CRC-32 of the bytes whose CRC is <paramref name="crc"/> followed by <paramref name="data"/> (0 for none yet).</summary>
    public static uint Append(uint crc, ReadOnlySpan<byte> data)
    {
        uint state = ~crc;
        ref uint table = ref MemoryMarshal.GetArrayDataReference(Tables);
        while (data.Length >= 8)
        {
            uint low = BinaryPrimitives.ReadUInt32LittleEndian(data) ^ state;
            uint high = BinaryPrimitives.ReadUInt32LittleEndian(data[4..]);
            state = At(ref table, 7, low & 0xFF) ^ At(ref table, 6, (low >> 8) & 0xFF) ^ At(ref table, 5, (low >> 16) & 0xFF) ^ At(ref table, 4, low >> 24)
                ^ At(ref table, 3, high & 0xFF) ^ At(ref table, 2, (high >> 8) & 0xFF) ^ At(ref table, 1, (high >> 16) & 0xFF) ^ At(ref table, 0, high >> 24);
            data = data[8..];
        }

        foreach (byte b in data)
        {
            state = At(ref table, 0, (state ^ b) & 0xFF) ^ (state >> 8);
        }

        return ~state;
    }

    // Every index is below 256 by construction (a byte of a uint), so the bounds check is left out.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint At(ref uint table, int which, uint index) => Unsafe.Add(ref table, (which << 8) + (int)index);

    private static uint[] MakeTables()
    {
        var tables = new uint[8 * 256];
        for (uint value = 0; value < 256; value++)
        {
            uint crc = value;
            for (int bit = 0; bit < 8; bit++)
            {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ Polynomial : crc >> 1;
            }

            tables[value] = crc;
        }

        for (int k = 1; k < 8; k++)
        {
            for (int value = 0; value < 256; value++)
            {
                uint previous = tables[((k - 1) << 8) + value];
                tables[(k << 8) + value] = (previous >> 8) ^ tables[previous & 0xFF];
            }
        }

        return tables;
    }
}
