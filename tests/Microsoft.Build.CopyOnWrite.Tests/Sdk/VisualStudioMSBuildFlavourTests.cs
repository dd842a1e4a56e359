using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// Visual Studio's MSBuild.exe (.NET Framework) loads the package's net472 assemblies, and no MSBuild.exe has ever
/// loaded them (README, "What ran where"; MSBuild 17.7's .NET Framework engine under Mono loads tools/net472/ in
/// FullFrameworkFlavourTests): what can be checked without one is checked on the packed files. Every
/// assembly they reference is one the .NET Framework 4.7.2 has (its reference assemblies, from the
/// Microsoft.NETFramework.ReferenceAssemblies.net472 package the build compiles against) or MSBuild's own at the
/// assembly version MSBuild.exe binds them to (15.1.0.0). Every native entry point they import is in the named DLL
/// since Windows Vista, by Microsoft's documentation (the "Minimum supported client" of each function, below), so on
/// every Windows that Visual Studio 2022 runs on (Windows 10 version 1909 and Windows Server 2016 onwards); and where
/// Wine is installed, its kernel32.dll exports each one under the name the runtime binds.
/// </summary>
[TestClass]
public sealed class VisualStudioMSBuildFlavourTests
{
    private static readonly string[] Net472Assemblies = ["tools/net472/Microsoft.Build.CopyOnWrite.dll", "tools/multithreaded/net472/Microsoft.Build.CopyOnWrite.dll"];

    /// <summary>The summary logger beside each (<c>-logger:</c> in MSBuild.exe): it references the task assembly beside it.</summary>
    private static readonly string[] Net472SummaryLoggers = ["tools/net472/Microsoft.Build.CopyOnWrite.SummaryLogger.dll", "tools/multithreaded/net472/Microsoft.Build.CopyOnWrite.SummaryLogger.dll"];

    /// <summary>MSBuild's assemblies keep one assembly version, which MSBuild.exe.config redirects every older one to.</summary>
    private static readonly Version MSBuildAssemblyVersion = new(15, 1, 0, 0);

    /// <summary>
    /// kernel32.dll functions by their "Minimum supported client" on Microsoft Learn (learn.microsoft.com/windows/win32/api):
    /// a new import fails this test until its documented minimum is added here.
    /// </summary>
    private static readonly Dictionary<string, string> Kernel32Since = new()
    {
        ["CopyFileExW"] = "Windows XP",
        ["CreateFileW"] = "Windows XP",
        ["CreateHardLinkW"] = "Windows XP",
        ["CreateSymbolicLinkW"] = "Windows Vista",
        ["DeleteFileW"] = "Windows XP",
        ["DeviceIoControl"] = "Windows XP",
        ["FlushFileBuffers"] = "Windows XP",
        ["GetDriveTypeW"] = "Windows XP",
        ["GetFileInformationByHandle"] = "Windows XP",
        ["GetFileInformationByHandleEx"] = "Windows Vista",
        ["GetVolumeInformationByHandleW"] = "Windows Vista",
        ["GetVolumeInformationW"] = "Windows XP",
        ["GetVolumePathNameW"] = "Windows XP",
        ["MoveFileExW"] = "Windows XP",
        ["SetFileAttributesW"] = "Windows XP",
        ["SetFileInformationByHandle"] = "Windows Vista",
    };

    /// <summary>The C library calls of the Linux link and same-file checks and of the .NET Framework build's rename off Windows (under Mono), compiled into every flavour; called only after an OS check says not Windows.</summary>
    private static readonly string[] UnixOnlyImports = ["libc!link", "libc!rename", "libc!statx", "libc!symlink"];

    private static readonly string[] WineKernel32 =
    [
        "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/kernel32.dll",
        "/usr/lib/wine/x86_64-windows/kernel32.dll",
    ];

    [TestMethod]
    public void The_net472_assemblies_reference_only_the_NET_Framework_and_MSBuild_at_the_versions_MSBuild_exe_binds()
    {
        Dictionary<string, Version> framework = FrameworkReferenceAssemblies();

        foreach ((string entry, MetadataReader metadata) in PackedNet472Assemblies([.. Net472Assemblies, .. Net472SummaryLoggers]))
        {
            foreach (AssemblyReferenceHandle handle in metadata.AssemblyReferences)
            {
                AssemblyReference reference = metadata.GetAssemblyReference(handle);
                string name = metadata.GetString(reference.Name);
                if (name == "Microsoft.Build.CopyOnWrite" && Net472SummaryLoggers.Contains(entry))
                {
                    continue; // the task assembly in the logger's own folder
                }

                if (name is "Microsoft.Build.Framework" or "Microsoft.Build.Utilities.Core")
                {
                    Assert.AreEqual(MSBuildAssemblyVersion, reference.Version, $"{entry} references {name} {reference.Version}, which MSBuild.exe does not bind");
                    continue;
                }

                Assert.IsTrue(framework.TryGetValue(name, out Version? has), $"{entry} references {name} {reference.Version}, which neither the .NET Framework 4.7.2 nor MSBuild has: Visual Studio's MSBuild.exe would fail to load it (MSB4062)");
                Assert.IsTrue(reference.Version <= has, $"{entry} references {name} {reference.Version}; the .NET Framework 4.7.2 has {has}");
            }
        }
    }

    [TestMethod]
    public void Every_native_entry_point_of_the_net472_assemblies_is_in_kernel32_since_Windows_Vista()
    {
        HashSet<string>? wineExports = WineKernel32.FirstOrDefault(File.Exists) is string wine ? ExportsOf(wine) : null;
        Assert.IsTrue(wineExports is null || (wineExports.Count > 500 && wineExports.Contains("CreateFileW")), "the export table was not read (premise)");

        foreach ((string entry, MetadataReader metadata) in PackedNet472Assemblies())
        {
            List<(string Module, string Name, MethodImportAttributes Attributes)> imports = ImportsOf(metadata);
            Assert.IsTrue(imports.Count > 0, $"{entry} imports nothing: the test reads the wrong file");
            foreach ((string module, string name, MethodImportAttributes attributes) in imports)
            {
                if (module == "libc")
                {
                    CollectionAssert.Contains(UnixOnlyImports, $"{module}!{name}", $"{entry}: a new C library import must be called only off Windows; add it here once it is");
                    continue;
                }

                Assert.AreEqual("kernel32.dll", module, $"{entry} imports {name} from {module}");
                string bound = BoundName(name, attributes);
                Assert.IsTrue(Kernel32Since.TryGetValue(bound, out string? since), $"{entry} imports kernel32!{bound}: add its documented minimum Windows to this test");
                Assert.IsTrue(since is "Windows XP" or "Windows Vista", $"kernel32!{bound} needs {since}");
                if (wineExports is not null)
                {
                    Assert.IsTrue(wineExports.Contains(bound), $"Wine's kernel32.dll does not export {bound}");
                }
            }
        }

        if (wineExports is null)
        {
            Assert.Inconclusive("PARTLY SKIPPED: the imports match the documented table, but Wine (apt-get install wine64) is not installed to check its kernel32.dll's exports");
        }
    }

    /// <summary>
    /// The name the .NET Framework binds: with CharSet.Unicode and no ExactSpelling it looks for NAME + "W" first
    /// (MoveFileEx binds MoveFileExW), then NAME.
    /// </summary>
    private static string BoundName(string name, MethodImportAttributes attributes)
    {
        bool unicode = (attributes & MethodImportAttributes.CharSetMask) == MethodImportAttributes.CharSetUnicode;
        bool exact = (attributes & MethodImportAttributes.ExactSpelling) != 0;
        return unicode && !exact && !name.EndsWith('W') && Kernel32Since.ContainsKey(name + "W") ? name + "W" : name;
    }

    private static IEnumerable<(string Entry, MetadataReader Metadata)> PackedNet472Assemblies(string[]? entries = null)
    {
        using ZipArchive package = ZipFile.OpenRead(SdkPackage.PackagePath);
        foreach (string entry in entries ?? Net472Assemblies)
        {
            ZipArchiveEntry file = package.GetEntry(entry) ?? throw new AssertFailedException($"the package lacks {entry}");
            using var bytes = new MemoryStream();
            using (Stream stream = file.Open())
            {
                stream.CopyTo(bytes);
            }

            var reader = new PEReader(new MemoryStream(bytes.ToArray()));
            yield return (entry, reader.GetMetadataReader());
        }
    }

    private static List<(string, string, MethodImportAttributes)> ImportsOf(MetadataReader metadata)
    {
        var imports = new List<(string, string, MethodImportAttributes)>();
        foreach (MethodDefinitionHandle handle in metadata.MethodDefinitions)
        {
            MethodDefinition method = metadata.GetMethodDefinition(handle);
            MethodImport import = method.GetImport();
            if (import.Module.IsNil)
            {
                continue;
            }

            string module = metadata.GetString(metadata.GetModuleReference(import.Module).Name);
            string name = import.Name.IsNil ? metadata.GetString(method.Name) : metadata.GetString(import.Name);
            imports.Add((module, name, import.Attributes));
        }

        return imports;
    }

    /// <summary>Names and versions of the .NET Framework 4.7.2 reference assemblies, facades included, from the package the net472 build compiles against.</summary>
    private static Dictionary<string, Version> FrameworkReferenceAssemblies()
    {
        string cache = Environment.GetEnvironmentVariable("NUGET_PACKAGES") is { Length: > 0 } set ? set : Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".nuget", "packages");
        string package = Path.Combine(cache, "microsoft.netframework.referenceassemblies.net472");
        string? folder = Directory.Exists(package)
            ? Directory.GetDirectories(package).Select(version => Path.Combine(version, "build", ".NETFramework", "v4.7.2")).FirstOrDefault(Directory.Exists)
            : null;
        Assert.IsNotNull(folder, $"the .NET Framework 4.7.2 reference assemblies are not in {package} (the net472 build restores them)");
        var assemblies = new Dictionary<string, Version>(StringComparer.OrdinalIgnoreCase);
        foreach (string dll in Directory.GetFiles(folder, "*.dll").Concat(Directory.GetFiles(Path.Combine(folder, "Facades"), "*.dll")))
        {
            try
            {
                AssemblyName name = AssemblyName.GetAssemblyName(dll);
                assemblies[name.Name!] = name.Version!;
            }
            catch (BadImageFormatException)
            {
                // A file of the pack that is no assembly (a native helper): nothing to reference.
            }
        }

        Assert.IsTrue(assemblies.ContainsKey("mscorlib") && assemblies.ContainsKey("System.Core"), $"{folder} does not look like the .NET Framework's reference assemblies");
        return assemblies;
    }

    /// <summary>The names a PE file exports (its export directory's name table).</summary>
    private static HashSet<string> ExportsOf(string path)
    {
        using var reader = new PEReader(File.OpenRead(path));
        DirectoryEntry exports = reader.PEHeaders.PEHeader!.ExportTableDirectory;
        PEMemoryBlock directory = reader.GetSectionData(exports.RelativeVirtualAddress);
        BlobReader header = directory.GetReader();
        header.Offset = 24; // IMAGE_EXPORT_DIRECTORY: NumberOfNames at 24, AddressOfNames at 32
        int count = header.ReadInt32();
        header.Offset = 32;
        int namesTable = header.ReadInt32();
        var names = new HashSet<string>(StringComparer.Ordinal);
        BlobReader table = reader.GetSectionData(namesTable).GetReader();
        for (int i = 0; i < count; i++)
        {
            int nameAddress = table.ReadInt32();
            BlobReader name = reader.GetSectionData(nameAddress).GetReader();
            int length = name.IndexOf(0);
            names.Add(name.ReadUTF8(length));
        }

        return names;
    }
}
