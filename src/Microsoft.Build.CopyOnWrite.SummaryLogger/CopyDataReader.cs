using System;
using Microsoft.Build.CopyOnWrite.Volumes;
using System.Globalization;

namespace Microsoft.Build.CopyOnWrite.Savings;

/// <summary>The reading half of <see cref="CopyData"/>'s line, which only the summary logger reads (the task writes it).</summary>
internal static class CopyDataReader
{
    /// <summary>Reads a line written by <see cref="CopyData.Format"/>; null when it is not one (or not a version it knows).</summary>
    public static CopyData? TryParse(string? message)
    {
        if (message is null || !message.StartsWith(CopyData.Prefix, StringComparison.Ordinal))
        {
            return null;
        }

        var data = new CopyData();
        bool versionSeen = false;
        try
        {
            foreach (string field in message.Substring(CopyData.Prefix.Length).Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries))
            {
                int equals = field.IndexOf('=');
                if (equals <= 0)
                {
                    continue;
                }

                string name = field.Substring(0, equals);
                string[] values = field.Substring(equals + 1).Split(',');
                switch (name)
                {
                    case "v":
                        versionSeen = values[0] == "1";
                        break;
                    case "cloned":
                        (data.ClonedFiles, data.ClonedBytes) = (Int(values[0]), Long(values[1]));
                        break;
                    case "copied":
                        (data.CopiedFiles, data.CopiedBytes) = (Int(values[0]), Long(values[1]));
                        break;
                    case "linked":
                        data.LinkedFiles = Int(values[0]);
                        break;
                    case "uptodate":
                        (data.UpToDateFiles, data.UpToDateBytes) = (Int(values[0]), Long(values[1]));
                        break;
                    case "insteadoflinks" when values.Length >= 2:
                        (data.ClonedInsteadOfLinksFiles, data.ClonedInsteadOfLinksBytes) = (Int(values[0]), Long(values[1]));
                        break;
                    case "replacedlinks" when values.Length >= 2:
                        (data.ReplacedLinksFiles, data.ReplacedLinksBytes) = (Int(values[0]), Long(values[1]));
                        break;
                    case "reason" when values.Length >= 4:
                        data.Reasons.Add(new CopyData.ReasonEntry(Unescape(values[0]), Unescape(values[1]), Int(values[2]), Long(values[3])));
                        break;
                    case "crossvolume" when values.Length >= 6:
                        data.CrossVolume.Add(new CopyData.CrossVolumeEntry(
                            Unescape(values[0]),
                            Unescape(values[1]),
                            Unescape(values[2]),
                            Unescape(values[3]),
                            Int(values[4]),
                            Long(values[5]),
                            values.Length > 6 ? Unescape(values[6]) : string.Empty,
                            values.Length > 7 ? Unescape(values[7]) : string.Empty,
                            values.Length > 8 && Enum.TryParse(values[8], out SourceOrigin origin) ? origin : SourceOrigin.Movable));
                        break;
                    case "clonedon" when values.Length >= 2:
                        (data.ClonedOnVolume, data.ClonedOnFileSystem) = (Unescape(values[0]), Unescape(values[1]));
                        break;
                    case "copiedon" when values.Length >= 4:
                        data.CopiedOn.Add(new CopyData.CopiedOnEntry(Unescape(values[0]), Unescape(values[1]), Int(values[2]), Long(values[3])));
                        break;
                }
            }
        }
        catch (Exception e) when (e is FormatException or OverflowException or IndexOutOfRangeException or UriFormatException)
        {
            return null;
        }

        return versionSeen ? data : null;
    }

    private static string Unescape(string value) => Uri.UnescapeDataString(value);

    private static int Int(string value) => int.Parse(value, NumberStyles.None, CultureInfo.InvariantCulture);

    private static long Long(string value) => long.Parse(value, NumberStyles.None, CultureInfo.InvariantCulture);
}
