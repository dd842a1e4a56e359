using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

// The task's summary line and the stock task's messages in MSBuild's words (StockTexts): one place, so every stock
// message goes out the same way (COW006 is EngineFaultWarning's, what follows the summary line SavingsReport's).
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
