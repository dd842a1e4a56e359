using System;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Security.Cryptography;
using Microsoft.Build.CopyOnWrite.Measure.PackageCache;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.PackageCache;

/// <summary>verify's CRC-32 is the one zip records: the standard check value, and .NET's zip writer's own CRC of every length around the 8-byte steps.</summary>
[TestClass]
public sealed class Crc32Tests
{
    [TestMethod]
    public void The_check_value_of_123456789_is_CBF43926()
    {
        Assert.AreEqual(0xCBF43926u, Crc32.Of("123456789"u8));
        Assert.AreEqual(0u, Crc32.Of([]));
    }

    [TestMethod]
    public void It_matches_the_CRC_a_zip_writer_records_at_every_length_and_when_appended_in_pieces()
    {
        byte[] data = RandomNumberGenerator.GetBytes((1 << 20) + 13);
        int[] lengths = [.. Enumerable.Range(1, 40), 4093, 65536 + 7, data.Length];
        using var zip = new MemoryStream();
        using (var writer = new ZipArchive(zip, ZipArchiveMode.Create, leaveOpen: true))
        {
            foreach (int length in lengths)
            {
                using Stream entry = writer.CreateEntry(length.ToString(System.Globalization.CultureInfo.InvariantCulture)).Open();
                entry.Write(data, 0, length);
            }
        }

        zip.Position = 0;
        using var reader = new ZipArchive(zip, ZipArchiveMode.Read);
        foreach (ZipArchiveEntry entry in reader.Entries)
        {
            int length = int.Parse(entry.FullName, System.Globalization.CultureInfo.InvariantCulture);
            Assert.AreEqual(entry.Crc32, Crc32.Of(data.AsSpan(0, length)), $"{length} bytes");
            Assert.AreEqual(entry.Crc32, Crc32.Append(Crc32.Of(data.AsSpan(0, length / 3)), data.AsSpan(length / 3, length - length / 3)), $"{length} bytes in two pieces");
        }
    }
}
