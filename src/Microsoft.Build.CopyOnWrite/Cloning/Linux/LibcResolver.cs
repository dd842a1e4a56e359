#if NET
using System;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>Binds our "libc" imports to the loaded C library, sparing the runtime's search its failed opens.</summary>
internal static class LibcResolver
{
#pragma warning disable CA2255 // A library's module initializer: it only registers how our own imports resolve.
    [ModuleInitializer]
#pragma warning restore CA2255
    internal static void Register()
        => NativeLibrary.SetDllImportResolver(typeof(LibcResolver).Assembly, Resolve);

    private static IntPtr Resolve(string libraryName, Assembly assembly, DllImportSearchPath? searchPath)
        => libraryName == "libc" && OperatingSystem.IsLinux() ? NativeLibrary.GetMainProgramHandle() : IntPtr.Zero;
}
#endif
