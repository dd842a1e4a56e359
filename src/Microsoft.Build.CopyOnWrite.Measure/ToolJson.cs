using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>
/// How every JSON file the tool writes is written (doctor, self-test, verify, predict, the measurement): System.Text.Json
/// with one set of options: indented, fields camelCase, paths and messages unescaped but for what JSON requires, and
/// NaN or an infinity (a ratio of nothing) as a name rather than a failure.
/// </summary>
internal static class ToolJson
{
    public static JsonSerializerOptions Options { get; } = new()
    {
        WriteIndented = true,
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
    };

    public static string Write(object document) => JsonSerializer.Serialize(document, Options);
}
