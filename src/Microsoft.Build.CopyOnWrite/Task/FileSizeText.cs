using System.Globalization;

namespace Microsoft.Build.CopyOnWrite;

internal static class FileSizeText
{
    private static readonly string[] Units = { "B", "KiB", "MiB", "GiB", "TiB" };

    /// <summary>1536 → "1.5 KiB", 16777216 → "16 MiB". Binary units, because that is what file systems allocate in.</summary>
    /// <remarks>Integer arithmetic rounded to tenths as "0.#" would: formatting a double is slow the first time in a node.</remarks>
    public static string Format(long bytes)
    {
        int unit = 0;
        long scale = 1;
        while (unit < Units.Length - 1 && bytes / scale >= 1024)
        {
            scale *= 1024;
            unit++;
        }

        if (unit == 0)
        {
            return bytes.ToString(CultureInfo.InvariantCulture) + " B";
        }

        // The remainder is below scale (at most 2^40), so ten times it cannot overflow.
        long tenths = (bytes / scale * 10) + (((bytes % scale * 10) + (scale / 2)) / scale);
        string whole = (tenths / 10).ToString(CultureInfo.InvariantCulture);
        long tenth = tenths % 10;
        return tenth == 0
            ? whole + " " + Units[unit]
            : whole + "." + tenth.ToString(CultureInfo.InvariantCulture) + " " + Units[unit];
    }
}
