using System;
using System.Globalization;
using System.Resources;
using System.Text;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// The stock task's messages in its own words: the running MSBuild's Microsoft.Build.Tasks.Core resources in the build's UI
/// language, logged as the stock task logs them (the "MSB3030: " prefix as the code, its help keyword).
/// </summary>
/// <remarks>Where MSBuild has no such text (an older MSBuild, no Tasks.Core), the message is its name and arguments (<see cref="WithoutText"/>).</remarks>
internal static class StockTexts
{
    /// <summary>The stock task's help keyword prefix (its base class's): a coded message's keyword is this and the text's name.</summary>
    public const string HelpKeywordPrefix = "MSBuild.";

    private const string BaseName = "Microsoft.Build.Tasks.Core.Strings";

    private static readonly Lazy<ResourceManager?> s_resources = new(Load);

    public static void Error(TaskLoggingHelper log, StockMessage message, object?[] arguments)
    {
        if (!Use(log, message))
        {
            log.LogError(null, message.Code, HelpKeyword(message), null, 0, 0, 0, 0, "{0}", WithoutText(message, arguments));
        }
        else if (message.Code is null)
        {
            log.LogErrorFromResources(message.Name, arguments);
        }
        else
        {
            log.LogErrorWithCodeFromResources(message.Name, arguments);
        }
    }

    public static void Warning(TaskLoggingHelper log, StockMessage message, object?[] arguments)
    {
        if (Use(log, message))
        {
            log.LogWarningWithCodeFromResources(message.Name, arguments);
        }
        else
        {
            log.LogWarning(null, message.Code, HelpKeyword(message), null, 0, 0, 0, 0, "{0}", WithoutText(message, arguments));
        }
    }

    public static void Message(TaskLoggingHelper log, MessageImportance importance, StockMessage message, object?[] arguments)
    {
        if (!log.LogsMessagesOfImportance(importance))
        {
            return; // nobody takes it (the console's default verbosity): no text is looked up
        }

        if (Use(log, message))
        {
            log.LogMessageFromResources(importance, message.Name, arguments);
        }
        else
        {
            log.LogMessage(importance, "{0}", WithoutText(message, arguments));
        }
    }

    /// <summary>A stock text to go inside another message (the reason in a link message).</summary>
    public static string Format(TaskLoggingHelper log, StockMessage message, params object?[] arguments)
        => Use(log, message) ? log.FormatResourceString(message.Name, arguments) : WithoutText(message, arguments);

    /// <summary>A message whose text is not to be had: its name and arguments, e.g. <c>Copy.SourceFileNotFound ("a.txt")</c>.</summary>
    public static string WithoutText(StockMessage message, object?[] arguments)
    {
        var text = new StringBuilder(message.Name);
        for (int i = 0; i < arguments.Length; i++)
        {
            text.Append(i == 0 ? " (\"" : ", \"").Append(arguments[i]).Append('"');
        }

        return arguments.Length == 0 ? text.ToString() : text.Append(')').ToString();
    }

    /// <summary>Points <paramref name="log"/> at MSBuild's resources when they hold the message's text in some language.</summary>
    private static bool Use(TaskLoggingHelper log, StockMessage message)
    {
        ResourceManager? resources = s_resources.Value;
        if (resources?.GetString(message.Name, CultureInfo.CurrentUICulture) is null)
        {
            return false;
        }

        log.TaskResources = resources;
        log.HelpKeywordPrefix = HelpKeywordPrefix;
        return true;
    }

    private static string? HelpKeyword(StockMessage message) => message.Code is null ? null : HelpKeywordPrefix + message.Name;

    private static ResourceManager? Load()
    {
        if (MSBuildHost.TasksAssembly is not { } tasks)
        {
            return null;
        }

        try
        {
            // A ResourceManager finds out that its resources are missing only when asked: ask once, in the neutral language.
            var resources = new ResourceManager(BaseName, tasks);
            return resources.GetString(CopyMessages.CopyingFile.Name, CultureInfo.InvariantCulture) is null ? null : resources;
        }
        catch (MissingManifestResourceException)
        {
            return null;
        }
    }
}
