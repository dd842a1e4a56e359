using System;
using System.Collections.Generic;

namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

internal static class RealWindows
{
    public const string WorkerSwitch = "--clone-worker";

    public static IEnumerable<WindowsTest> Tests() { yield break; }

    public static int Worker(string[] args) => 2;
}
