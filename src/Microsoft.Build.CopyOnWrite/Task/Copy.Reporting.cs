using Microsoft.Build.Framework;

namespace Microsoft.Build.CopyOnWrite;

// What the task says in the build log of its own: the one summary line per invocation and the coded errors and
// warnings (COW006, when our engine fails, is EngineFaultWarning's; what it reports after the summary line, the data
// line and COW001-COW003, is SavingsReport's). One place, so every coded message goes out the same way.
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

    private bool LogErrorAndFail(string code, string format, params object[] arguments)
    {
        LogError(code, format, arguments);
        return false;
    }

    private void LogError(string code, string format, params object[] arguments) => CodedLog.Error(Log, code, format, arguments);

    private void LogWarning(string code, string format, params object[] arguments) => CodedLog.Warning(Log, code, format, arguments);
}
