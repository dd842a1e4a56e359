#if NET
using System;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// Where this assembly's "libc" imports come from on Linux: the C library the process already has loaded, found in
/// the main program's global symbols (glibc or musl alike), instead of the runtime's search by file name.
/// </summary>
/// <remarks>
/// The search tries "libc.so" (on glibc a linker script, which it opens and rejects), then "liblibc.so" and "libc" in
/// the runtime's folder, our folder and the system's, before it settles: about a dozen failed opens on the first call
/// of every MSBuild node (strace). Measured in a fresh process copying one file on XFS (6 runs each, timestamps inside
/// the task): the first file's checks, where the first import is called, took about 0.15-0.2 ms less with this.
/// A module initializer, so it is in place before any import is called.
/// </remarks>
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
