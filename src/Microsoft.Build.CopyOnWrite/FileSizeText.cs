using System.Globalization;

namespace Microsoft.Build.CopyOnWrite;

internal static class FileSizeText
{
    /// <summary>1536 → "1.5 KiB". Binary units, because that is what file systems allocate in.</summary>
    public static string Format(long bytes)
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
