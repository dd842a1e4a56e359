using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.IO;
using System.Linq;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

/// <summary>What a DLL and its portable PDB say about where they were built, read with System.Reflection.Metadata.</summary>
public static class PackedAssemblyFacts
{
    /// <summary>The kind GUID of the SourceLink JSON in a portable PDB's custom debug information.</summary>
    private static readonly Guid SourceLinkKind = new("CC110556-A091-4D38-9FEC-25AB9A351A6A");

    /// <summary>The PDB path the DLL's CodeView debug directory entry names (what a debugger looks for first).</summary>
    public static string PdbPathNamedBy(byte[] dll)
    {
        using var reader = new PEReader(ImmutableArray.Create(dll));
        DebugDirectoryEntry codeView = reader.ReadDebugDirectory().Single(entry => entry.Type == DebugDirectoryEntryType.CodeView);
        return reader.ReadCodeViewDebugDirectoryData(codeView).Path;
    }

    /// <summary>The source file paths the PDB names.</summary>
    public static IReadOnlyList<string> SourceDocuments(byte[] pdb)
    {
        using MetadataReaderProvider provider = MetadataReaderProvider.FromPortablePdbImage(ImmutableArray.Create(pdb));
        MetadataReader reader = provider.GetMetadataReader();
        return reader.Documents.Select(handle => reader.GetString(reader.GetDocument(handle).Name)).ToList();
    }

    /// <summary>The PDB's SourceLink JSON (where a debugger downloads each source from), or null if it has none.</summary>
    public static string? SourceLinkJson(byte[] pdb)
    {
        using MetadataReaderProvider provider = MetadataReaderProvider.FromPortablePdbImage(ImmutableArray.Create(pdb));
        MetadataReader reader = provider.GetMetadataReader();
        foreach (CustomDebugInformationHandle handle in reader.GetCustomDebugInformation(EntityHandle.ModuleDefinition))
        {
            CustomDebugInformation information = reader.GetCustomDebugInformation(handle);
            if (reader.GetGuid(information.Kind) == SourceLinkKind)
            {
                return Encoding.UTF8.GetString(reader.GetBlobBytes(information.Value));
            }
        }

        return null;
    }

    /// <summary>Whether <paramref name="text"/> occurs in <paramref name="bytes"/> as UTF-8 or as UTF-16 (how .NET metadata stores strings).</summary>
    public static bool Contains(byte[] bytes, string text)
        => bytes.AsSpan().IndexOf(Encoding.UTF8.GetBytes(text)) >= 0 || bytes.AsSpan().IndexOf(Encoding.Unicode.GetBytes(text)) >= 0;

    /// <summary>
    /// Folders of the machine that built a package that no file of it may name: the repository and the test run's
    /// scratch folder anywhere; the home folder and the package cache in what the build wrote (the README's
    /// examples may well show a home folder).
    /// </summary>
    public static IReadOnlyList<string> BuildMachineFolders(string repositoryRoot, bool inBuildOutput)
    {
        var folders = new List<string> { repositoryRoot.TrimEnd('/') + "/", TestScratch.RootFolder + "/" };
        if (inBuildOutput)
        {
            folders.Add(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile).TrimEnd('/') + "/");
            folders.Add(Environment.GetEnvironmentVariable("NUGET_PACKAGES") ?? "");
        }

        return folders.Where(folder => folder.Length > 1).Distinct().ToList();
    }
}
