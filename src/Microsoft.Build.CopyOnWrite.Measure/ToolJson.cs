using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>
/// The options of every JSON file the tool writes: paths and messages unescaped but for what JSON requires, and NaN
/// or an infinity (a ratio of nothing) written as a name rather than failing.
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
