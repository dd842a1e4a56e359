using System.Globalization;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>A file's metadata as coreutils `stat` reports it: an independent reading, to the nanosecond.</summary>
public sealed record UnixFileFacts(string Mode, string ModifiedNanoseconds, string AccessedNanoseconds, long Size, long Inode, int Links, string Type)
{
    public static UnixFileFacts Of(string path)
    {
        ProcessResult stat = ProcessRunner.Run("stat", "--format=%a|%.9Y|%.9X|%s|%i|%h|%F", path);
        Assert.IsTrue(stat.Succeeded, stat.Output);
        string[] f = stat.Output.Trim().Split('|');
        return new UnixFileFacts(f[0], f[1], f[2], long.Parse(f[3], CultureInfo.InvariantCulture), long.Parse(f[4], CultureInfo.InvariantCulture), int.Parse(f[5], CultureInfo.InvariantCulture), f[6]);
    }

    /// <summary>Sets both times with `touch` to an exact nanosecond value (e.g. "2001-02-03 04:05:06.123456789").</summary>
    public static void SetTimes(string path, string modified, string accessed)
    {
        Assert.IsTrue(ProcessRunner.Run("touch", "-m", "-d", modified, path).Succeeded);
        Assert.IsTrue(ProcessRunner.Run("touch", "-a", "-d", accessed, path).Succeeded);
    }

    public static void SetMode(string path, string octal) => Assert.IsTrue(ProcessRunner.Run("chmod", octal, path).Succeeded);
}
