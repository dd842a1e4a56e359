using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

// What the task says in the build log: the one summary line per invocation of its own, and the stock task's messages in
// MSBuild's words (StockTexts; COW006, when our engine fails, is EngineFaultWarning's; what it reports after the summary
// line, the data line and COW001-COW003, is SavingsReport's). One place, so every stock message goes out the same way.
public sealed partial class Copy
{
    private void LogSummary()
    {
        // Described only when a logger takes the line: at the console's default verbosity nobody does.
        MessageImportance importance = _summary.DidWork ? MessageImportance.Normal : MessageImportance.Low;
        if ((_summary.DidWork || _summary.UpToDateFiles > 0) && Log.LogsMessagesOfImportance(importance))
        {
            Log.LogMessage(importance, _summary.Describe());
        }
    }

    private bool LogErrorAndFail(StockMessage message, params object?[] arguments)
    {
        LogError(message, arguments);
        return false;
    }

    private void LogError(StockMessage message, params object?[] arguments) => StockTexts.Error(Log, message, arguments);

    private void LogWarning(StockMessage message, params object?[] arguments) => StockTexts.Warning(Log, message, arguments);

    private void LogMessage(MessageImportance importance, StockMessage message, params object?[] arguments) => StockTexts.Message(Log, importance, message, arguments);
}
