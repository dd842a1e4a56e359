namespace Microsoft.Build.CopyOnWrite.Windows.Parity;

internal static class WindowsFacts
{
    public static void Print(string scratch) { }
}
