using System;
using System.Runtime.InteropServices;

namespace Microsoft.Build.CopyOnWrite.Cloning;

/// <summary>
/// The process's one engine, made on first use and looking at no volume before a file is copied to it (so a RAW volume
/// cannot fail the build); one that cannot be made gives the copy-only engine, why in <see cref="SelectionFault"/>.
/// </summary>
internal static class CloneEngines
{
    private static readonly Lazy<ICloneEngine> ForThisProcess = new(Create);

    /// <summary>Shared by every Copy in the node so that what file systems refused is learnt once.</summary>
    public static ICloneEngine Current => ForThisProcess.Value;

    /// <summary>Why this process copies with the copy-only engine although its OS has a native one; null when it does not.</summary>
    public static string? SelectionFault { get; private set; }

    private static ICloneEngine Create()
    {
        ICloneEngine engine = CreateOrCopyOnly(ChooseForThisProcess, Create, out string? fault);
        SelectionFault = fault;
        return engine;
    }

    private static EngineChoice ChooseForThisProcess()
    {
        OSPlatform os = RuntimeInformation.IsOSPlatform(OSPlatform.Windows) ? OSPlatform.Windows
            : RuntimeInformation.IsOSPlatform(OSPlatform.Linux) ? OSPlatform.Linux
            : RuntimeInformation.IsOSPlatform(OSPlatform.OSX) ? OSPlatform.OSX
            : OSPlatform.Create("other");
#if NET
        bool hasStatx = os == OSPlatform.Linux && LinuxNative.HasStatx;
#else
        bool hasStatx = false;
#endif
        return Choose(os, RuntimeInformation.ProcessArchitecture, Environment.Is64BitProcess, hasStatx);
    }

    /// <summary>The chosen engine in the ladder; if choosing or making throws, the copy-only one and why.</summary>
    internal static ICloneEngine CreateOrCopyOnly(Func<EngineChoice> choose, Func<EngineChoice, CloneCapabilityCache, ICloneEngine> make, out string? fault)
    {
        var memory = new CloneCapabilityCache();
        ICloneEngine engine;
        try
        {
            engine = make(choose(), memory);
            fault = null;
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            Exception cause = e is TypeInitializationException { InnerException: { } inner } ? inner : e;
            fault = $"the clone engine for {RuntimeInformation.OSDescription} could not be made ({FallbackLadder.Describe(cause)})";
            engine = new CopyOnlyEngine("our clone engine could not start on " + RuntimeInformation.OSDescription);
        }

        return new FallbackLadder(engine, new PlainFiles(), memory);
    }

    /// <summary>The chosen engine, remembering refusals in <paramref name="refusals"/>.</summary>
    internal static ICloneEngine Create(EngineChoice choice, CloneCapabilityCache refusals)
    {
        if (choice.Kind == EngineKind.Windows && RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            return new WindowsCloneEngine(new WindowsNative(), refusals);
        }
#if NET
        if (choice.Kind == EngineKind.Linux && RuntimeInformation.IsOSPlatform(OSPlatform.Linux))
        {
            return new LinuxCloneEngine(refusals, choice.Architecture);
        }

        if (choice.Kind == EngineKind.Mac && RuntimeInformation.IsOSPlatform(OSPlatform.OSX))
        {
            return new MacCloneEngine(new MacNative(), refusals);
        }
#endif
        return new CopyOnlyEngine(choice.CopyOnlyReason ?? RuntimeInformation.OSDescription);
    }

    /// <summary>
    /// Which engine this OS, processor and process width get. The Linux engine declares 64-bit time_t and off_t, so a
    /// 32-bit process copies instead, as does a C library without statx (musl before 1.2.5), which it needs per source.
    /// </summary>
    internal static EngineChoice Choose(OSPlatform os, Architecture architecture, bool is64BitProcess, bool cLibraryHasStatx)
    {
        if (os == OSPlatform.Windows)
        {
            return new EngineChoice(EngineKind.Windows, architecture, null);
        }

#if NET
        if (os == OSPlatform.Linux)
        {
            if (!is64BitProcess)
            {
                return new EngineChoice(EngineKind.CopyOnly, architecture, $"Linux, 32-bit {architecture} process");
            }

            if (!cLibraryHasStatx)
            {
                return new EngineChoice(EngineKind.CopyOnly, architecture, "Linux, C library without statx");
            }

            // Every 64-bit processor .NET runs Linux on is listed there; a new one copies until its encodings are checked.
            return LinuxNative.FicloneRequestFor(architecture) is null
                ? new EngineChoice(EngineKind.CopyOnly, architecture, $"Linux on {architecture}")
                : new EngineChoice(EngineKind.Linux, architecture, null);
        }

#pragma warning disable CA1416 // KnowsAbiOf only compares the processor; it runs on any OS, so the choice can be tested anywhere.
        if (os == OSPlatform.OSX && MacNative.KnowsAbiOf(architecture))
#pragma warning restore CA1416
        {
            return new EngineChoice(EngineKind.Mac, architecture, null);
        }
#endif
        return new EngineChoice(EngineKind.CopyOnly, architecture, null);
    }
}

internal enum EngineKind
{
    Windows,
    Linux,
    Mac,
    CopyOnly,
}

/// <summary>An engine for this platform; for <see cref="EngineKind.CopyOnly"/>, what its results give as the reason (null: the OS description).</summary>
internal readonly record struct EngineChoice(EngineKind Kind, Architecture Architecture, string? CopyOnlyReason);
