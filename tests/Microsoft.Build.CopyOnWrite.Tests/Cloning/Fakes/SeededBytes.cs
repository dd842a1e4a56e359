using System;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning.Fakes;

/// <summary>File content for the engine tests: random, but the same for the same seed, so a failure repeats.</summary>
internal static class SeededBytes
{
    public static byte[] Of(int count, int seed = 0)
    {
        var bytes = new byte[count];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }
}
