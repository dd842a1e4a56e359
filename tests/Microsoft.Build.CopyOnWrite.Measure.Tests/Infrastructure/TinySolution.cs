using System.IO;
using System.Security.Cryptography;

namespace Microsoft.Build.CopyOnWrite.Measure.Tests.Infrastructure;

/// <summary>
/// A two-project solution for end-to-end runs: an app referencing a library that copies an 8 MiB data file to its
/// output, so a clean build copies 9 files and 16 MiB (the data file twice) - enough to tell a clone from a copy
/// in the file system's used space, small enough to build in seconds.
/// </summary>
public static class TinySolution
{
    public const int DataFileBytes = 8 << 20;

    /// <summary>Writes the solution into <paramref name="folder"/> and returns the .slnx path.</summary>
    public static string WriteInto(string folder, bool compiles = true)
    {
        Directory.CreateDirectory(Path.Combine(folder, "Lib"));
        Directory.CreateDirectory(Path.Combine(folder, "App"));
        File.WriteAllText(Path.Combine(folder, "Lib", "Lib.csproj"), """
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>
              <ItemGroup><None Include="data.bin" CopyToOutputDirectory="PreserveNewest" /></ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(folder, "Lib", "Greeting.cs"), compiles
            ? "namespace Lib; public static class Greeting { public static string Text => \"hello\"; }"
            : "namespace Lib; public static class Greeting { public static string Text => \"hello\" }");
        File.WriteAllBytes(Path.Combine(folder, "Lib", "data.bin"), RandomNumberGenerator.GetBytes(DataFileBytes));
        File.WriteAllText(Path.Combine(folder, "App", "App.csproj"), """
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup><OutputType>Exe</OutputType><TargetFramework>net10.0</TargetFramework></PropertyGroup>
              <ItemGroup><ProjectReference Include="../Lib/Lib.csproj" /></ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(folder, "App", "Program.cs"), "System.Console.WriteLine(Lib.Greeting.Text);");
        string solution = Path.Combine(folder, "Tiny.slnx");
        File.WriteAllText(solution, """
            <Solution>
              <Project Path="App/App.csproj" />
              <Project Path="Lib/Lib.csproj" />
            </Solution>
            """);
        return solution;
    }
}
