using System;
using System.IO;
using Snowball.Lib20;

namespace Snowball.App;

public static class Program
{
    /// <summary>Content that the libraries below copy to their output and that must reach this app's output.</summary>
    private static readonly string[] ExpectedAssets =
    [
        "lib01-textures-16MiB.bin",
        "lib01-model-4MiB.bin",
        "lib10-audio-8MiB.bin",
    ];

    public static int Main()
    {
        var top = new Layer20();
        Console.WriteLine($"{top.Describe()} (depth {top.Depth})");

        int missing = 0;
        string assets = Path.Combine(AppContext.BaseDirectory, "assets");
        foreach (string name in ExpectedAssets)
        {
            var file = new FileInfo(Path.Combine(assets, name));
            if (file.Exists)
            {
                Console.WriteLine($"asset {name}: {file.Length / (1024 * 1024)} MiB");
            }
            else
            {
                Console.Error.WriteLine($"asset {name}: missing from {assets}");
                missing++;
            }
        }

        return missing == 0 ? 0 : 1;
    }
}
