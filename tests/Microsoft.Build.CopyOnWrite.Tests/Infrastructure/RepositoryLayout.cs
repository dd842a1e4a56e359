using System;
using System.IO;
using System.Reflection;

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

    /// <summary>tests/Microsoft.Build.CopyOnWrite.MSBuild17Host, built in this test assembly's configuration: MSBuild 17.7 in a process.</summary>
    public static string MSBuild17Host => Path.Combine(
        Root, "tests", "Microsoft.Build.CopyOnWrite.MSBuild17Host", "bin", Configuration, "net8.0", "Microsoft.Build.CopyOnWrite.MSBuild17Host.dll");

    /// <summary>tests/Microsoft.Build.CopyOnWrite.FullFrameworkHost, built in this test assembly's configuration: MSBuild 17.7's .NET Framework engine, for Mono.</summary>
    public static string FullFrameworkHost => Path.Combine(
        Root, "tests", "Microsoft.Build.CopyOnWrite.FullFrameworkHost", "bin", Configuration, "net472", "Microsoft.Build.CopyOnWrite.FullFrameworkHost.exe");

    /// <summary>tests/Microsoft.Build.CopyOnWrite.Benchmarks, built in this test assembly's configuration: the benchmark program.</summary>
    public static string Benchmarks => Path.Combine(
        Root, "tests", "Microsoft.Build.CopyOnWrite.Benchmarks", "bin", Configuration, "net10.0", "Microsoft.Build.CopyOnWrite.Benchmarks.dll");

    /// <summary>The tool (src/Microsoft.Build.CopyOnWrite.Measure) as built in this test assembly's configuration, to run with `dotnet`.</summary>
    public static string Tool => Path.Combine(
        Root, "src", "Microsoft.Build.CopyOnWrite.Measure", "bin", Configuration, "net10.0", "Microsoft.Build.CopyOnWrite.Measure.dll");

    private static string Configuration => typeof(RepositoryLayout).Assembly.GetCustomAttribute<AssemblyConfigurationAttribute>()!.Configuration;
}
