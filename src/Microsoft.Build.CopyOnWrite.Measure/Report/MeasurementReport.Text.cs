using System;
using System.Globalization;
using System.IO;

namespace Microsoft.Build.CopyOnWrite.Measure;

// How single values are written, the same in every output. Ms and MiB are public: the progress lines and the
// shared-volume note write sizes and times as the report does.
internal sealed partial class MeasurementReport
{
    private static string DevDriveText(MeasuredVolume v) => v.Identity.DevDrive switch
    {
        true => $" (Dev Drive, {(v.Identity.TrustedDevDrive == true ? "trusted" : "not trusted")})",
        _ => string.Empty,
    };

    private static string CloneText(MeasuredVolume v) => v.Identity.CanClone switch
    {
        true => "can clone",
        false => "cannot clone",
        null => "cloning unknown",
    };

    private static string YesNo(bool? value) => value switch { true => "yes", false => "no", null => "unknown" };

    private static string Quote(string text) => text.Contains(' ', StringComparison.Ordinal) ? $"\"{text}\"" : text;

    /// <summary>Paths under the current folder are shown relative to it, so a committed report names no machine's folders.</summary>
    private static string Display(string path)
    {
        string relative = Path.GetRelativePath(Environment.CurrentDirectory, path);
        return relative.StartsWith("..", StringComparison.Ordinal) || Path.IsPathRooted(relative) ? path : relative;
    }

    private static string Seconds(double seconds) => string.Create(CultureInfo.InvariantCulture, $"{seconds:0.0} s");

    public static string Ms(double milliseconds) => double.IsNaN(milliseconds) ? "n/a" : milliseconds >= 10_000 ? string.Create(CultureInfo.InvariantCulture, $"{milliseconds / 1000:0.0} s") : string.Create(CultureInfo.InvariantCulture, $"{milliseconds:0} ms");

    public static string MiB(double bytes) => double.IsNaN(bytes) ? "n/a" : string.Create(CultureInfo.InvariantCulture, $"{bytes / 1048576.0:0.0} MiB");
}
