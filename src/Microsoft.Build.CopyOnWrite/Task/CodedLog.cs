using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// A coded warning or error the way the stock task logs its own: a code, no file and no position. One place for every
/// code the task layer says (the MSB30xx of the Copy contract, COW001-COW003, COW006).
/// </summary>
internal static class CodedLog
{
    public static void Warning(TaskLoggingHelper log, string code, string format, params object[] arguments)
        => log.LogWarning(subcategory: null, warningCode: code, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0, message: format, messageArgs: arguments);

    public static void Error(TaskLoggingHelper log, string code, string format, params object[] arguments)
        => log.LogError(subcategory: null, errorCode: code, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0, message: format, messageArgs: arguments);
}
