using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.TestKit;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Sdk;

/// <summary>
/// The package ships two flavours of the task assembly and Sdk.targets picks one by the running MSBuild: from 18.9 the
/// one declared thread-safe for -mt (IMultiThreadableTask, TaskEnvironment), before that the one that references
/// nothing newer than MSBuild 17.7. Shown with real MSBuilds (the installed one and the 17.7 engine) and by reading
/// the shipped assemblies' metadata.
/// </summary>
[TestClass]
public sealed class TaskFlavourTests
{
    private const string MultiThreaded = "tools/multithreaded/net10.0/Microsoft.Build.CopyOnWrite.dll";
    private const string ForOlderMSBuild = "tools/net8.0/Microsoft.Build.CopyOnWrite.dll";
    private const string MultiThreadedForMSBuildExe = "tools/multithreaded/net472/Microsoft.Build.CopyOnWrite.dll";
    private const string ForOlderMSBuildExe = "tools/net472/Microsoft.Build.CopyOnWrite.dll";

    private static string Extracted => SdkPackage.Extracted;

    [TestMethod]
    public void On_MSBuild_17_7_the_SDK_loads_the_flavour_for_older_MSBuild_and_copies()
    {
        (string folder, string project) = SdkPackage.ProjectImportingTheSdk("msbuild17", Extracted);

        ProcessResult build = ProcessRunner.Run("dotnet", [RepositoryLayout.MSBuild17Host, project], folder, SdkPackage.BuildEnvironment, TimeSpan.FromMinutes(5));

        Assert.IsTrue(build.Succeeded, "MSBuild 17.7 could not build with the SDK:\n" + build.Output);
        StringAssert.Contains(build.Output, "MSBuildVersion=17.7.");
        StringAssert.Contains(build.Output, SdkPackage.TaskLoadedFrom(Extracted, SdkPackage.TaskAssemblyForThisMachine("tools/net8.0")), "MSBuild 17.7 must get the flavour that loads there, precompiled for this machine where packed:\n" + build.Output);
        Assert.AreEqual("payload", File.ReadAllText(Path.Combine(folder, "out", "a.txt")));
        Assert.AreEqual(1, new BuildLog(build.Output).SummaryLines.Count(line => line.StartsWith("CopyOnWrite: copied 1 file", StringComparison.Ordinal)), build.Output);
    }

    [TestMethod]
    public void On_MSBuild_17_7_the_stock_messages_are_its_own_texts_and_one_it_has_none_for_names_its_text()
    {
        string folder = TestScratch.NewFolder("msbuild17-texts");
        string project = StockMessagesOn17_7.WriteProject(folder, Path.Combine(Extracted, ForOlderMSBuild));

        ProcessResult build = ProcessRunner.Run("dotnet", [RepositoryLayout.MSBuild17Host, project], folder, SdkPackage.BuildEnvironment, TimeSpan.FromMinutes(5));

        StockMessagesOn17_7.AssertSaidInItsWords(build, Path.Combine(Path.GetDirectoryName(RepositoryLayout.MSBuild17Host)!, "Microsoft.Build.Tasks.Core.dll"));
    }

    [TestMethod]
    public void On_MSBuild_17_7_the_multi_threaded_flavour_cannot_load_which_is_why_the_SDK_picks_by_version()
    {
        string folder = TestScratch.NewFolder("msbuild17-mt");
        File.WriteAllText(Path.Combine(folder, "a.txt"), "payload");
        string project = Path.Combine(folder, "direct.proj");
        File.WriteAllText(project, $"""
            <Project>
              <UsingTask TaskName="Copy" AssemblyFile="{Path.Combine(Extracted, MultiThreaded)}" />
              <Target Name="Build"><Copy SourceFiles="a.txt" DestinationFolder="out" /></Target>
            </Project>
            """);

        ProcessResult build = ProcessRunner.Run("dotnet", [RepositoryLayout.MSBuild17Host, project], folder, SdkPackage.BuildEnvironment, TimeSpan.FromMinutes(5));

        Assert.IsFalse(build.Succeeded, build.Output);
        StringAssert.Contains(build.Output, "MSB4062");
        StringAssert.Contains(build.Output, "IMultiThreadableTask");
    }

    [TestMethod]
    public void On_the_installed_MSBuild_the_SDK_loads_the_multi_threaded_flavour_and_mt_runs_it_in_process()
    {
        (string folder, string project) = SdkPackage.ProjectImportingTheSdk("msbuild18", Extracted);

        ProcessResult build = SdkPackage.Dotnet(folder, "msbuild", project, "-mt", "-v:d", "-nologo", "-nr:false");

        StringAssert.Contains(build.Output, SdkPackage.TaskLoadedFrom(Extracted, SdkPackage.TaskAssemblyForThisMachine("tools/multithreaded/net10.0")), "MSBuild 18.9 and later must get the multi-threaded flavour, precompiled for this machine where packed:\n" + build.Output);
        Assert.IsFalse(build.Output.Contains(MSBuildLogTexts.TaskHostLaunch, StringComparison.Ordinal), "-mt ran our Copy in a task host:\n" + build.Output);
        Assert.AreEqual("payload", File.ReadAllText(Path.Combine(folder, "out", "a.txt")));
        Assert.AreEqual(1, new BuildLog(build.Output).SummaryLines.Count(line => line.StartsWith("CopyOnWrite: copied 1 file", StringComparison.Ordinal)), build.Output);
    }

    /// <summary>
    /// Under -mt the process's current directory is where the build started, not the project's folder: a relative
    /// DestinationFolder that is a file in the project's folder is known as one there (no retry can make it a folder),
    /// as the stock task knows it in a build whose current directory is the project's.
    /// </summary>
    [TestMethod]
    public void Under_mt_a_relative_DestinationFolder_that_is_a_file_of_the_project_fails_at_once_without_retries()
    {
        string started = TestScratch.NewFolder("mt-relative-folder");
        string projectFolder = Directory.CreateDirectory(Path.Combine(started, "project")).FullName;
        File.WriteAllText(Path.Combine(projectFolder, "a.txt"), "payload");
        File.WriteAllText(Path.Combine(projectFolder, "out"), "a file where the folder should be");
        File.WriteAllText(Path.Combine(projectFolder, "copy.proj"), $"""
            <Project>
              <UsingTask TaskName="Copy" AssemblyFile="{Path.Combine(Extracted, SdkPackage.TaskAssemblyForThisMachine("tools/multithreaded/net10.0"))}" />
              <Target Name="Build"><Copy SourceFiles="a.txt" DestinationFolder="out" Retries="2" RetryDelayMilliseconds="10" /></Target>
            </Project>
            """);

        ProcessResult build = SdkPackage.TryDotnet(started, ["msbuild", Path.Combine("project", "copy.proj"), "-mt", "-nologo", "-nr:false"]);

        Assert.IsFalse(build.Succeeded, build.Output);
        StringAssert.Contains(build.Output, "error MSB3021");
        Assert.IsFalse(build.Output.Contains("MSB3026", StringComparison.Ordinal) || build.Output.Contains("MSB3027", StringComparison.Ordinal), "retried a folder that is a file:\n" + build.Output);
        Assert.AreEqual("a file where the folder should be", File.ReadAllText(Path.Combine(projectFolder, "out")));
    }

    [TestMethod]
    [DataRow(MultiThreaded)]
    [DataRow(MultiThreadedForMSBuildExe)]
    public void The_multi_threaded_Copy_is_declared_thread_safe_and_takes_the_project_environment(string packagePath)
    {
        using var assembly = new ShippedAssembly(Path.Combine(Extracted, packagePath));

        TypeDefinition copy = assembly.Type("Microsoft.Build.CopyOnWrite", "Copy");

        CollectionAssert.Contains(assembly.AttributeNames(copy), "Microsoft.Build.Framework.MSBuildMultiThreadableTaskAttribute");
        CollectionAssert.Contains(assembly.InterfaceNames(copy), "Microsoft.Build.Framework.IMultiThreadableTask");
    }

    /// <summary>
    /// In a multi-threaded build many projects share the process: a thread-safe task must not read or change its
    /// environment or current directory (MSBuild's rule for [MSBuildMultiThreadableTask]). Checked on every call
    /// the shipped assembly makes (the build-wide summary logger, no task, is an assembly of its own).
    /// </summary>
    [TestMethod]
    [DataRow(MultiThreaded)]
    [DataRow(MultiThreadedForMSBuildExe)]
    public void Nothing_in_the_multi_threaded_flavour_reads_or_changes_the_process_environment_or_current_directory(string packagePath)
    {
        using var assembly = new ShippedAssembly(Path.Combine(Extracted, packagePath));
        string[] processWide =
        {
            "System.Environment.GetEnvironmentVariable", "System.Environment.GetEnvironmentVariables", "System.Environment.SetEnvironmentVariable",
            "System.Environment.ExpandEnvironmentVariables", "System.Environment.get_CurrentDirectory", "System.Environment.set_CurrentDirectory",
            "System.Environment.Exit", "System.IO.Directory.GetCurrentDirectory", "System.IO.Directory.SetCurrentDirectory",
        };

        List<(string Caller, string Callee)> calls = assembly.CallsByMethod().ToList();
        string[] offending = calls.Where(call => processWide.Contains(call.Callee)).Select(call => $"{call.Caller} calls {call.Callee}").ToArray();

        Assert.IsTrue(calls.Any(call => call.Callee == "Microsoft.Build.Framework.TaskEnvironment.GetEnvironmentVariable"), "the scan found no TaskEnvironment call, so it cannot see calls at all");
        Assert.AreEqual(0, offending.Length, string.Join(Environment.NewLine, offending));
    }

    [TestMethod]
    [DataRow(ForOlderMSBuild, "net7.0")]
    [DataRow(ForOlderMSBuildExe, "net472")]
    public void The_flavour_for_older_MSBuild_uses_nothing_from_MSBuild_newer_than_17_7(string packagePath, string referenceTfm)
    {
        using var assembly = new ShippedAssembly(Path.Combine(Extracted, packagePath));
        using var framework17 = new ShippedAssembly(MSBuild17ReferenceAssembly("microsoft.build.framework", referenceTfm, "Microsoft.Build.Framework.dll"));
        using var utilities17 = new ShippedAssembly(MSBuild17ReferenceAssembly("microsoft.build.utilities.core", referenceTfm, "Microsoft.Build.Utilities.Core.dll"));
        var available = new HashSet<string>(framework17.TypeNames().Concat(utilities17.TypeNames()));

        string[] used = assembly.ReferencedTypeNames("Microsoft.Build.Framework").Concat(assembly.ReferencedTypeNames("Microsoft.Build.Utilities.Core")).ToArray();
        string[] missing = used.Where(name => !available.Contains(name)).ToArray();

        Assert.IsTrue(used.Contains("Microsoft.Build.Framework.ITaskItem"), "the scan found no MSBuild type at all");
        Assert.AreEqual(0, missing.Length, "not in MSBuild 17.7: " + string.Join(", ", missing));
        CollectionAssert.DoesNotContain(assembly.AttributeNames(assembly.Type("Microsoft.Build.CopyOnWrite", "Copy")), "Microsoft.Build.Framework.MSBuildMultiThreadableTaskAttribute",
            "this flavour reads the process environment, so it must not claim to be thread-safe");
    }

    private static string MSBuild17ReferenceAssembly(string package, string tfm, string file)
    {
        string cache = Environment.GetEnvironmentVariable("NUGET_PACKAGES") is { Length: > 0 } configured
            ? configured
            : Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".nuget", "packages");
        string path = Path.Combine(cache, package, "17.7.2", "ref", tfm, file);
        Assert.IsTrue(File.Exists(path), $"{path} is missing: restore the solution first (the task project downloads it).");
        return path;
    }

    /// <summary>An assembly read as metadata (never loaded), enough to list its types, references and calls.</summary>
    private sealed class ShippedAssembly : IDisposable
    {
        private readonly PEReader _pe;
        private readonly MetadataReader _metadata;

        public ShippedAssembly(string path)
        {
            _pe = new PEReader(File.OpenRead(path));
            _metadata = _pe.GetMetadataReader();
        }

        public void Dispose() => _pe.Dispose();

        public TypeDefinition Type(string ns, string name)
            => _metadata.TypeDefinitions.Select(_metadata.GetTypeDefinition)
                .Single(type => _metadata.GetString(type.Namespace) == ns && _metadata.GetString(type.Name) == name);

        public IEnumerable<string> TypeNames()
            => _metadata.TypeDefinitions.Select(handle => FullName(_metadata.GetTypeDefinition(handle)));

        public List<string> AttributeNames(TypeDefinition type)
            => type.GetCustomAttributes().Select(handle => _metadata.GetCustomAttribute(handle).Constructor)
                .Select(constructor => constructor.Kind == HandleKind.MemberReference ? NameOf(_metadata.GetMemberReference((MemberReferenceHandle)constructor).Parent) : NameOf(_metadata.GetMethodDefinition((MethodDefinitionHandle)constructor).GetDeclaringType()))
                .ToList();

        public List<string> InterfaceNames(TypeDefinition type)
            => type.GetInterfaceImplementations().Select(handle => NameOf(_metadata.GetInterfaceImplementation(handle).Interface)).ToList();

        /// <summary>Full names of the types this assembly takes from the named assembly.</summary>
        public IEnumerable<string> ReferencedTypeNames(string assemblyName)
            => _metadata.TypeReferences.Select(_metadata.GetTypeReference)
                .Where(reference => reference.ResolutionScope.Kind == HandleKind.AssemblyReference
                    && _metadata.GetString(_metadata.GetAssemblyReference((AssemblyReferenceHandle)reference.ResolutionScope).Name) == assemblyName)
                .Select(reference => Join(_metadata.GetString(reference.Namespace), _metadata.GetString(reference.Name)))
                .Distinct();

        /// <summary>Every method this assembly calls (call, callvirt, newobj, ldftn), by the method that calls it.</summary>
        public IEnumerable<(string Caller, string Callee)> CallsByMethod()
        {
            foreach (TypeDefinitionHandle typeHandle in _metadata.TypeDefinitions)
            {
                TypeDefinition type = _metadata.GetTypeDefinition(typeHandle);
                foreach (MethodDefinitionHandle methodHandle in type.GetMethods())
                {
                    MethodDefinition method = _metadata.GetMethodDefinition(methodHandle);
                    if (method.RelativeVirtualAddress == 0)
                    {
                        continue;
                    }

                    string caller = FullName(type) + "." + _metadata.GetString(method.Name);
                    BlobReader il = _pe.GetMethodBody(method.RelativeVirtualAddress).GetILReader();
                    foreach (EntityHandle callee in CalledMethods(il))
                    {
                        yield return (caller, MethodName(callee));
                    }
                }
            }
        }

        private static IEnumerable<EntityHandle> CalledMethods(BlobReader il)
        {
            var handles = new List<EntityHandle>();
            while (il.RemainingBytes > 0)
            {
                ILOpCode opCode = ReadOpCode(ref il);
                if (opCode is ILOpCode.Call or ILOpCode.Callvirt or ILOpCode.Newobj or ILOpCode.Ldftn or ILOpCode.Ldvirtftn)
                {
                    handles.Add(MetadataTokens.EntityHandle(il.ReadInt32()));
                }
                else
                {
                    SkipOperand(ref il, opCode);
                }
            }

            return handles;
        }

        private static ILOpCode ReadOpCode(ref BlobReader il)
        {
            byte first = il.ReadByte();
            return first == 0xFE ? (ILOpCode)(0xFE00 | il.ReadByte()) : (ILOpCode)first;
        }

        private static void SkipOperand(ref BlobReader il, ILOpCode opCode)
        {
            switch (opCode)
            {
                case ILOpCode.Switch:
                    int targets = il.ReadInt32();
                    il.Offset += targets * 4;
                    break;
                default:
                    il.Offset += opCode.IsBranch() ? opCode.GetBranchOperandSize() : OperandSize(opCode);
                    break;
            }
        }

        /// <summary>Operand sizes of the non-branch opcodes (ECMA-335 III).</summary>
        private static int OperandSize(ILOpCode opCode) => opCode switch
        {
            ILOpCode.Ldarg_s or ILOpCode.Ldarga_s or ILOpCode.Starg_s or ILOpCode.Ldloc_s or ILOpCode.Ldloca_s or ILOpCode.Stloc_s
                or ILOpCode.Ldc_i4_s or ILOpCode.Unaligned => 1,
            ILOpCode.Ldarg or ILOpCode.Ldarga or ILOpCode.Starg or ILOpCode.Ldloc or ILOpCode.Ldloca or ILOpCode.Stloc => 2,
            ILOpCode.Ldc_i8 or ILOpCode.Ldc_r8 => 8,
            ILOpCode.Ldc_i4 or ILOpCode.Ldc_r4 or ILOpCode.Jmp or ILOpCode.Calli or ILOpCode.Ldstr or ILOpCode.Ldtoken
                or ILOpCode.Ldfld or ILOpCode.Ldflda or ILOpCode.Stfld or ILOpCode.Ldsfld or ILOpCode.Ldsflda or ILOpCode.Stsfld
                or ILOpCode.Box or ILOpCode.Unbox or ILOpCode.Unbox_any or ILOpCode.Castclass or ILOpCode.Isinst or ILOpCode.Newarr
                or ILOpCode.Ldelema or ILOpCode.Ldelem or ILOpCode.Stelem or ILOpCode.Ldobj or ILOpCode.Stobj or ILOpCode.Cpobj
                or ILOpCode.Initobj or ILOpCode.Sizeof or ILOpCode.Mkrefany or ILOpCode.Refanyval or ILOpCode.Constrained => 4,
            _ => 0,
        };

        private string MethodName(EntityHandle handle) => handle.Kind switch
        {
            HandleKind.MemberReference => NameOf(_metadata.GetMemberReference((MemberReferenceHandle)handle).Parent) + "." + _metadata.GetString(_metadata.GetMemberReference((MemberReferenceHandle)handle).Name),
            HandleKind.MethodDefinition => FullName(_metadata.GetTypeDefinition(_metadata.GetMethodDefinition((MethodDefinitionHandle)handle).GetDeclaringType())) + "." + _metadata.GetString(_metadata.GetMethodDefinition((MethodDefinitionHandle)handle).Name),
            HandleKind.MethodSpecification => MethodName(_metadata.GetMethodSpecification((MethodSpecificationHandle)handle).Method),
            _ => "?",
        };

        private string NameOf(EntityHandle handle) => handle.Kind switch
        {
            HandleKind.TypeReference => Join(_metadata.GetString(_metadata.GetTypeReference((TypeReferenceHandle)handle).Namespace), _metadata.GetString(_metadata.GetTypeReference((TypeReferenceHandle)handle).Name)),
            HandleKind.TypeDefinition => FullName(_metadata.GetTypeDefinition((TypeDefinitionHandle)handle)),
            HandleKind.TypeSpecification => "(generic type)",
            _ => "?",
        };

        private string FullName(TypeDefinition type)
            => type.GetDeclaringType().IsNil
                ? Join(_metadata.GetString(type.Namespace), _metadata.GetString(type.Name))
                : FullName(_metadata.GetTypeDefinition(type.GetDeclaringType())) + "+" + _metadata.GetString(type.Name);

        private static string Join(string ns, string name) => ns.Length == 0 ? name : ns + "." + name;
    }
}
