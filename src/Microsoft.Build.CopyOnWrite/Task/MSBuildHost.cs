using System;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>Facts about the MSBuild that loaded us, read at run time because the stock task's behaviour follows them.</summary>
internal static class MSBuildHost
{
    /// <summary>The file version of the running Microsoft.Build.Framework (the assembly version is frozen at 15.1).</summary>
    public static Version? Version { get; } = ReadVersion();

    /// <summary>MSBuild 18.7 (change wave 18.7) retries access denied off Windows; earlier, and Windows, only with MSBUILDALWAYSRETRY.</summary>
    public static bool RetriesAccessDeniedByDefault(Func<string, string?> environment)
        => !RuntimeInformation.IsOSPlatform(OSPlatform.Windows)
           && Version is Version running && running >= new Version(18, 7)
           && ChangeWaveEnabled(new Version(18, 7), environment);

    /// <summary>MSBUILDDISABLEFEATURESFROMVERSION turns off every change wave from that version on.</summary>
    public static bool ChangeWaveEnabled(Version wave, Func<string, string?> environment)
        => !(System.Version.TryParse(environment("MSBUILDDISABLEFEATURESFROMVERSION"), out Version? disabledFrom) && wave >= disabledFrom);

    /// <summary>Path comparison the stock task uses: case-insensitive where the usual file systems are (Windows, macOS).</summary>
    public static StringComparison PathComparison { get; } =
        RuntimeInformation.IsOSPlatform(OSPlatform.Linux) ? StringComparison.Ordinal : StringComparison.OrdinalIgnoreCase;

    public static StringComparer PathComparer { get; } =
        PathComparison == StringComparison.Ordinal ? StringComparer.Ordinal : StringComparer.OrdinalIgnoreCase;

    /// <summary>The running MSBuild's Microsoft.Build.Tasks.Core, loaded by name at first use; null in a process without it.</summary>
    public static Assembly? TasksAssembly => s_tasksAssembly.Value;

    /// <summary>
    /// Who holds <paramref name="path"/> open, by the running MSBuild's own lock check (what the stock task appends to
    /// MSB3026 and MSB3027); empty off Windows and where this MSBuild has none.
    /// </summary>
    public static string LockHolders(string path)
    {
        if (!RuntimeInformation.IsOSPlatform(OSPlatform.Windows) || s_lockCheck.Value is not { } lockCheck)
        {
            return string.Empty;
        }

        try
        {
            return lockCheck(path) ?? string.Empty;
        }
        catch (Exception)
        {
            return string.Empty; // only ever a help for the reader of a warning: it may never fail the copy (MSBuild's catches all, too)
        }
    }

    private static readonly Lazy<Assembly?> s_tasksAssembly = new(LoadTasksAssembly);

    private static readonly Lazy<Func<string, string>?> s_lockCheck = new(() => FindLockCheck(typeof(Task).Assembly, TasksAssembly));

    private static Assembly? LoadTasksAssembly()
    {
        try
        {
            // By the full name MSBuild's own task registrations use (Microsoft.Common.tasks): whatever copy the running
            // MSBuild binds that name to (under .NET, MSBuild's load context hands the name to the default one).
            return Assembly.Load(new AssemblyName("Microsoft.Build.Tasks.Core, Version=15.1.0.0, Culture=neutral, PublicKeyToken=b03f5f7f11d50a3a"));
        }
        catch (Exception e) when (e is IOException or BadImageFormatException)
        {
            return null;
        }
    }

    /// <summary>MSBuild's lock check: Microsoft.Build.Utilities.LockCheck in 18, the stock Copy's private GetLockedFileMessage in 17.7.</summary>
    internal static Func<string, string>? FindLockCheck(Assembly utilities, Assembly? tasks)
    {
        Type[] path = { typeof(string) };
        MethodInfo? check = utilities.GetType("Microsoft.Build.Utilities.LockCheck")?.GetMethod("GetLockedFileMessage", BindingFlags.Public | BindingFlags.Static, null, path, null)
            ?? tasks?.GetType("Microsoft.Build.Tasks.Copy")?.GetMethod("GetLockedFileMessage", BindingFlags.NonPublic | BindingFlags.Static, null, path, null);
        return check?.ReturnType == typeof(string) ? (Func<string, string>)Delegate.CreateDelegate(typeof(Func<string, string>), check) : null;
    }

    private static Version? ReadVersion()
    {
        string? fileVersion = typeof(ITaskItem).Assembly.GetCustomAttribute<AssemblyFileVersionAttribute>()?.Version;
        return System.Version.TryParse(fileVersion, out Version? version) ? version : null;
    }
}
