using System;
using System.Collections.Generic;
using System.IO;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>
/// Real system calls made to fail for a whole `dotnet msbuild` process and everything it starts, by a seccomp filter
/// (Infrastructure/fail-system-calls.py, over libseccomp's Python binding from Debian's python3-seccomp). No
/// fake sits between the task and the kernel: the call is made and the kernel's filter answers it with the error.
/// </summary>
public static class SystemCallFaults
{
    /// <summary>ioctl(FICLONE): _IOW(0x94, 9, int) on every Linux processor .NET runs on.</summary>
    public const string Clone = "ioctl[1&0xffffffff==0x40049409]";

    /// <summary>openat with O_TMPFILE (__O_TMPFILE | O_DIRECTORY on x64 and arm64): the unnamed new file.</summary>
    public const string UnnamedFile = "openat[2&0x410000==0x410000]";

    private const string Python = "/usr/bin/python3";

    private static readonly Lazy<string?> Missing = new(() =>
    {
        if (!OperatingSystem.IsLinux())
        {
            return "seccomp filters are a Linux feature";
        }

        if (!File.Exists(Python))
        {
            return $"{Python} is missing (apt-get install python3 python3-seccomp)";
        }

        (int exitCode, string output, _) = Shared.ChildProcess.Run(Python, ["-c", "import seccomp"], null, null, TimeSpan.FromSeconds(30));
        return exitCode == 0 ? null : $"libseccomp's Python binding is missing (apt-get install python3-seccomp): {output.Trim()}";
    });

    /// <summary>The launcher that starts a program with <paramref name="rules"/> in force, or the test ends as skipped with the reason.</summary>
    /// <param name="rules">CALL=ERRNO or CALL[N&amp;MASK==VALUE]=ERRNO, as fail-system-calls.py takes them.</param>
    public static IReadOnlyList<string> Launcher(IEnumerable<string> rules)
    {
        if (Missing.Value is string problem)
        {
            Assert.Inconclusive($"SKIPPED: this test makes real system calls fail with a seccomp filter, which needs: {problem}");
        }

        return [Python, Path.Combine(AppContext.BaseDirectory, "Infrastructure", "fail-system-calls.py"), .. rules, "--"];
    }
}
