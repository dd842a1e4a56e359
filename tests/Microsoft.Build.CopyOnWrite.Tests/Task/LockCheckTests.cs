using System;
using System.IO;
using System.Reflection;
using System.Runtime.Loader;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Task;

/// <summary>
/// MSB3026 and MSB3027 end with who holds the destination, in the running MSBuild's own words, from its own lock check
/// (Windows' Restart Manager): found by name in each MSBuild our Copy loads in. Off Windows both say nothing. Naming a
/// holder is shown on real Windows only (RealWindows in the Windows parity program): Wine's Restart Manager names none.
/// </summary>
[TestClass]
public sealed class LockCheckTests
{
    [TestMethod]
    public void MSBuild_18s_lock_check_is_its_public_LockCheck()
    {
        Func<string, string>? lockCheck = MSBuildHost.FindLockCheck(typeof(Microsoft.Build.Utilities.Task).Assembly, tasks: null);

        Assert.IsNotNull(lockCheck, $"no lock check in {typeof(Microsoft.Build.Utilities.Task).Assembly.Location}");
        Assert.AreEqual(string.Empty, lockCheck(typeof(LockCheckTests).Assembly.Location), "MSBuild's own lock check says nothing off Windows");
    }

    [TestMethod]
    public void MSBuild_17_7s_lock_check_is_its_Copys_own()
    {
        var msbuild17 = new MSBuild17Context(Path.GetDirectoryName(RepositoryLayout.MSBuild17Host)!);
        try
        {
            Assembly utilities = msbuild17.LoadFromAssemblyName(new AssemblyName("Microsoft.Build.Utilities.Core"));
            Assembly tasks = msbuild17.LoadFromAssemblyName(new AssemblyName("Microsoft.Build.Tasks.Core"));
            StringAssert.StartsWith(utilities.GetCustomAttribute<AssemblyFileVersionAttribute>()!.Version, "17.7.", "the host is MSBuild 17.7");

            Func<string, string>? lockCheck = MSBuildHost.FindLockCheck(utilities, tasks);

            Assert.IsNotNull(lockCheck, $"no lock check in MSBuild 17.7 ({tasks.Location})");
            Assert.AreEqual(string.Empty, lockCheck(typeof(LockCheckTests).Assembly.Location), "MSBuild 17.7's lock check says nothing off Windows");
        }
        finally
        {
            msbuild17.Unload();
        }
    }

    [TestMethod]
    public void Off_Windows_ours_names_no_holder_as_MSBuild_names_none()
    {
        Assert.AreEqual(string.Empty, MSBuildHost.LockHolders(typeof(LockCheckTests).Assembly.Location));
    }

    /// <summary>MSBuild 17.7's own assemblies, beside the one this process runs (whose Framework and Utilities have the same names).</summary>
    private sealed class MSBuild17Context(string folder) : AssemblyLoadContext("msbuild-17.7", isCollectible: true)
    {
        protected override Assembly? Load(AssemblyName name)
        {
            string path = Path.Combine(folder, name.Name + ".dll");
            return File.Exists(path) ? LoadFromAssemblyPath(path) : null;
        }
    }
}
