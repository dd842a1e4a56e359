using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Microsoft.Build.CopyOnWrite.Measure.PackageCache;

/// <summary>One extracted package: <c>ROOT/ID/VERSION/</c>, id and version as the folder names have them (lower case).</summary>
internal sealed record ExtractedPackage(string Id, string Version, string Folder)
{
    /// <summary>The .nupkg NuGet keeps beside the files it extracted: <c>ID.VERSION.nupkg</c>.</summary>
    public string PackageFile => Path.Combine(Folder, $"{Id}.{Version}.nupkg");

    public override string ToString() => $"{Id} {Version}";
}

/// <summary>
/// NuGet's "v3" package folder (the global packages folder, a fallback folder) and where its extraction puts each
/// .nupkg entry: %-escapes undone, packaging parts and NuGet's own files left out, the root .nuspec as ID.nuspec.
/// </summary>
internal static class NuGetPackageFolder
{
    private static readonly string[] PackagingParts = ["[Content_Types].xml", "_rels/", "_rels\\", "package/", "package\\"];

    private static readonly string[] NamesNuGetWrites = [".nupkg.sha512", ".nupkg.metadata"];

    /// <summary>What a folder must look like to be verified, for the message that says it is not one.</summary>
    public const string ExpectedLayout = "ID/VERSION/ID.VERSION.nupkg below it with the files NuGet extracted from it, as in ~/.nuget/packages";

    /// <summary>
    /// The packages below <paramref name="root"/>: each <c>ID/VERSION/</c> folder with a .nupkg or a file NuGet writes
    /// beside one, so that a package whose .nupkg is gone is still reported. Dot folders (NuGet's, a tool's) are not.
    /// </summary>
    public static IReadOnlyList<ExtractedPackage> Packages(string root)
        => Folders(root)
            .SelectMany(idFolder => Folders(idFolder).Select(versionFolder => new ExtractedPackage(Path.GetFileName(idFolder), Path.GetFileName(versionFolder), versionFolder)))
            .Where(IsPackage)
            .OrderBy(package => package.Id, StringComparer.Ordinal)
            .ThenBy(package => package.Version, StringComparer.Ordinal)
            .ToList();

    /// <summary>
    /// Where NuGet puts entry <paramref name="entryName"/> of package <paramref name="id"/>, relative to its folder
    /// with '/'; null for an entry NuGet does not extract, or whose path leaves the folder (NuGet refuses those).
    /// </summary>
    public static string? ExtractedPath(string entryName, string id)
    {
        string name = entryName.Contains('%', StringComparison.Ordinal) ? Uri.UnescapeDataString(entryName) : entryName;
        if (name.Length == 0 || name.EndsWith('/') || name.EndsWith('\\')
            || PackagingParts.Any(part => name.StartsWith(part, StringComparison.OrdinalIgnoreCase))
            || NamesNuGetWrites.Any(suffix => name.EndsWith(suffix, StringComparison.OrdinalIgnoreCase)))
        {
            return null;
        }

        string[] parts = name.Split('/', '\\');
        if (parts.Any(part => part is "" or "." or "..") || Path.IsPathRooted(name) || Unextractable(entryName) is not null)
        {
            return null;
        }

        return parts.Length == 1 && name.EndsWith(".nuspec", StringComparison.OrdinalIgnoreCase) ? id + ".nuspec" : string.Join('/', parts);
    }

    /// <summary>
    /// Why NuGet could not have extracted <paramref name="entryName"/> where its name says (out of the package's
    /// folder, which NuGet refuses; a control character once unescaped, which no file name holds), or null.
    /// </summary>
    public static string? Unextractable(string entryName)
    {
        string name = entryName.Contains('%', StringComparison.Ordinal) ? Uri.UnescapeDataString(entryName) : entryName;
        if (name.Any(char.IsControl))
        {
            return "its name holds a control character (NUL...), which no file name on disk can hold: NuGet could not have extracted it";
        }

        return name.Split('/', '\\').Contains("..") || Path.IsPathRooted(name) || name.StartsWith('/') || name.StartsWith('\\')
            ? "its name leads out of the package's folder: NuGet refuses such a package, so these files are not what NuGet made"
            : null;
    }

    /// <summary>An entry's name as a line can show it: control characters as \xNN.</summary>
    public static string Printable(string name)
        => string.Concat(name.Select(c => char.IsControl(c) ? $"\\x{(int)c:X2}" : c.ToString()));

    private static bool IsPackage(ExtractedPackage package)
        => File.Exists(package.PackageFile)
            || File.Exists(Path.Combine(package.Folder, ".nupkg.metadata"))
            || File.Exists(package.PackageFile + ".sha512")
            || File.Exists(Path.Combine(package.Folder, package.Id + ".nuspec"));

    private static IEnumerable<string> Folders(string folder)
    {
        try
        {
            return Directory.GetDirectories(folder).Where(path => !Path.GetFileName(path).StartsWith('.'));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }
}
