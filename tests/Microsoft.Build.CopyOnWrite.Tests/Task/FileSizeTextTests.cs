using System;
using System.Collections.Generic;
using System.Globalization;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Task;

/// <summary>
/// Sizes in the task's lines ("cloned 3 files (3.1 MiB)") are formatted with whole numbers only, and must read
/// exactly as .NET's "0.#" format of the quotient does, which is what they were before (and what users grep).
/// </summary>
[TestClass]
public sealed class FileSizeTextTests
{
    [TestMethod]
    [DataRow(0L, "0 B")]
    [DataRow(1023L, "1023 B")]
    [DataRow(1024L, "1 KiB")]
    [DataRow(1536L, "1.5 KiB")]
    [DataRow(1280L, "1.3 KiB")] // 1.25: half away from zero
    [DataRow(300_000L, "293 KiB")]
    [DataRow(200_000L, "195.3 KiB")]
    [DataRow(1_048_524L, "1023.9 KiB")]
    [DataRow(1_048_575L, "1024 KiB")] // rounds up to 1024.0 but stays in KiB, as "0.#" of 1023.999 does
    [DataRow(16_777_216L, "16 MiB")]
    [DataRow(3_276_800L, "3.1 MiB")]
    [DataRow(1_099_511_627_776L, "1 TiB")]
    [DataRow(5_629_499_534_213_120L, "5120 TiB")] // no unit above TiB
    public void Formats_sizes_in_binary_units_with_at_most_one_decimal(long bytes, string expected)
    {
        Assert.AreEqual(expected, FileSizeText.Format(bytes));
    }

    /// <remarks>
    /// Below 1 TiB. From there on the two can differ in the tenth digit for a size within 10^-11 of a midpoint
    /// (1099566603357388 bytes is 1000.0499999999993 TiB: "1000 TiB" rounded exactly, "1000.1 TiB" from the double,
    /// which "0.#" first rounds to 15 significant digits).
    /// </remarks>
    [TestMethod]
    public void Reads_as_the_0_point_hash_format_of_the_quotient_for_every_size_near_unit_and_tenth_boundaries()
    {
        var sizes = new List<long>();
        for (long scale = 1024; scale <= 1L << 30; scale *= 1024)
        {
            for (long tenth = 0; tenth <= 10_240; tenth++)
            {
                long edge = scale * tenth / 10;
                for (long delta = -3; delta <= 3; delta++)
                {
                    sizes.Add(Math.Max(0, edge + delta));
                }

                sizes.Add(edge + (scale / 20)); // the midpoints between tenths
            }
        }

        var random = new Random(12);
        for (int i = 0; i < 100_000; i++)
        {
            sizes.Add(random.NextInt64(0, 1L << 40));
        }

        foreach (long bytes in sizes)
        {
            Assert.AreEqual(WithDoubleFormatting(bytes), FileSizeText.Format(bytes), $"{bytes} bytes");
        }
    }

    /// <summary>The formatting the task used before: divide a double, then "0.#".</summary>
    private static string WithDoubleFormatting(long bytes)
    {
        string[] units = { "B", "KiB", "MiB", "GiB", "TiB" };
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.Length - 1)
        {
            value /= 1024;
            unit++;
        }

        return unit == 0
            ? string.Format(CultureInfo.InvariantCulture, "{0} B", bytes)
            : string.Format(CultureInfo.InvariantCulture, "{0:0.#} {1}", value, units[unit]);
    }
}
