using Microsoft.Build.Utilities;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// A coded warning or error of ours the way the stock task logs its own: a code, no file and no position. One place for
/// every code of ours the task layer says (COW001-COW003, COW006); the stock task's codes go out through StockTexts.
/// </summary>
internal static class CodedLog
{
    public static void Warning(TaskLoggingHelper log, string code, string text)
        => log.LogWarning(subcategory: null, warningCode: code, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0, message: "{0}", messageArgs: text);

    public static void Error(TaskLoggingHelper log, string code, string text)
        => log.LogError(subcategory: null, errorCode: code, helpKeyword: null, file: null, lineNumber: 0, columnNumber: 0, endLineNumber: 0, endColumnNumber: 0, message: "{0}", messageArgs: text);
}
