using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.Build.CopyOnWrite.Measure.SelfTest;
using Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

/// <summary>
/// The self-test users run (src/.../SelfTest) and the fallback ladder's fault cases, with the real kernel32 under this
/// program: on NTFS under Wine in CI, on a Dev Drive and NTFS in the Windows workflow.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("windows")]
internal static class SelfTestAndFaults
{
    public static IEnumerable<WindowsTest> Tests(string scratch)
    {
        yield return new WindowsTest("SelfTest", "the self-test passes on this volume, every output equal to its source", log =>
        {
            string folder = Path.Combine(scratch, "selftest");
            Directory.CreateDirectory(folder);

            // The holder is a handle of this process: Windows checks sharing per handle, whoever holds it. Under Wine 8,
            // a destination held with delete sharing is left out: replacing it needs the POSIX rename Wine lacks (its
            // emulation removes the new file when the old handle closes), as the parity scenarios skip it too.
            IReadOnlyList<HoldMode> modes = Win32.WineVersion is null ? HoldModes.ForThisOS() : HoldModes.ForThisOS().Where(mode => !mode.Share.Contains("Delete")).ToList();
            if (modes.Count < HoldModes.ForThisOS().Count)
            {
                log.Line("not run under Wine: a destination held with delete sharing (Wine 8 has no POSIX rename)");
            }

            SelfTestReport report = new SelfTestRunner(CloneEngines.Current, log.Line, HoldHere, modes).Run([folder], CancellationToken.None);

            log.Line(string.Join(Environment.NewLine, report.Lines()));
            Check.That(!report.AnyMismatch, "an output differed from its source");
            Check.That(report.Passed, "a self-test check failed (see above)");
        });

        // Every Win32 call of one file's way, made to fail in every unforeseen way, with the real kernel32 under it.
        int calls = CountCalls(scratch);
        foreach (UnforeseenFault fault in UnforeseenFault.All)
        {
            yield return new WindowsTest("Faults", $"each of the engine's {calls} calls failing with {fault}: the file ends copied, nothing left beside it", log =>
            {
                for (int call = 0; call < calls; call++)
                {
                    string folder = Path.Combine(scratch, $"fault-{fault.Name.Replace(' ', '-')}-{call}");
                    Directory.CreateDirectory(folder);
                    string source = Path.Combine(folder, "a.dll");
                    string destination = Path.Combine(folder, "out.dll");
                    File.WriteAllBytes(source, Enumerable.Range(0, 200_000).Select(i => (byte)(i * 7)).ToArray());
                    File.WriteAllBytes(destination, new byte[1234]);
                    var seam = new FaultingWindowsFileSystem(new WindowsNative(), call, fault);
                    var ladder = new FallbackLadder(new WindowsCloneEngine(seam, new CloneCapabilityCache()), new PlainFiles());

                    CloneResult result = ladder.CloneOrCopy(source, destination, CancellationToken.None);

                    log.Line($"call {call} ({seam.Failed}): {result.Method} {result.Reason} {result.Detail}");
                    Check.That(File.ReadAllBytes(source).SequenceEqual(File.ReadAllBytes(destination)), $"call {call} ({seam.Failed}): the destination is not the source's bytes");
                    string[] left = Directory.GetFiles(folder).Select(Path.GetFileName).Where(name => name is not ("a.dll" or "out.dll")).ToArray()!;
                    Check.That(left.Length == 0, $"call {call} ({seam.Failed}): left beside it: {string.Join(", ", left)}");
                    Directory.Delete(folder, recursive: true);
                }
            });
        }
    }

    /// <summary>How many Win32 calls a file over an existing destination takes here, with nothing failing.</summary>
    private static int CountCalls(string scratch)
    {
        string folder = Path.Combine(scratch, "fault-count");
        Directory.CreateDirectory(folder);
        File.WriteAllBytes(Path.Combine(folder, "a.dll"), new byte[200_000]);
        File.WriteAllBytes(Path.Combine(folder, "out.dll"), new byte[1234]);
        var counting = new FaultingWindowsFileSystem(new WindowsNative());
        new WindowsCloneEngine(counting, new CloneCapabilityCache()).CloneOrCopy(Path.Combine(folder, "a.dll"), Path.Combine(folder, "out.dll"), CancellationToken.None);
        Directory.Delete(folder, recursive: true);
        return counting.Calls;
    }

    private static IDisposable HoldHere(string path, HoldMode mode)
        => new FileStream(path, FileMode.Open, Enum.Parse<FileAccess>(mode.Access), Enum.Parse<FileShare>(mode.Share), 1);
}
