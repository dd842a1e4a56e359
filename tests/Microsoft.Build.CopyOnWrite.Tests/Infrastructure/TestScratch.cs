using System;
using System.IO;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>Fresh folders for tests, under one root per test run that the assembly cleanup removes.</summary>
public static class TestScratch
{
    private static readonly Lazy<string> Root = new(() =>
    {
        string root = Path.Combine(Path.GetTempPath(), "cow-tests-" + Environment.ProcessId);
        Directory.CreateDirectory(root);
        return root;
    });

    /// <summary>A new empty folder on the machine's temp volume (usually ext4 here).</summary>
    public static string NewFolder(string purpose)
    {
        string folder = Path.Combine(Root.Value, purpose + "-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(folder);
        return folder;
    }

    public static string RootFolder => Root.Value;

    public static void DeleteAll()
    {
        if (Root.IsValueCreated && Directory.Exists(Root.Value))
        {
            try
            {
                Directory.Delete(Root.Value, recursive: true);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                Console.WriteLine($"Could not delete the test scratch folder {Root.Value}: {e.Message}");
            }
        }
    }
}
