using System;
using System.IO;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

public static class RepositoryLayout
{
    private static readonly Lazy<string> RootFolder = new(() =>
    {
        for (DirectoryInfo? folder = new(AppContext.BaseDirectory); folder is not null; folder = folder.Parent)
        {
            if (File.Exists(Path.Combine(folder.FullName, "Microsoft.Build.CopyOnWrite.sln")))
            {
                return folder.FullName;
            }
        }

        throw new InvalidOperationException($"No Microsoft.Build.CopyOnWrite.sln above {AppContext.BaseDirectory}");
    });

    public static string Root => RootFolder.Value;

    public static string TaskProject => Path.Combine(Root, "src", "Microsoft.Build.CopyOnWrite", "Microsoft.Build.CopyOnWrite.csproj");

    public static string Samples => Path.Combine(Root, "samples");
}
