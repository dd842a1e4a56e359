using System.Globalization;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Savings;

/// <summary>A string as a JSON string literal: the summary logger's JSON is written by hand (no serializer to load in MSBuild).</summary>
internal static class JsonText
{
    public static string Quote(string value)
    {
        var text = new StringBuilder("\"");
        foreach (char c in value)
        {
            switch (c)
            {
                case '"':
                    text.Append("\\\"");
                    break;
                case '\\':
                    text.Append("\\\\");
                    break;
                case < ' ':
                    text.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                    break;
                default:
                    text.Append(c);
                    break;
            }
        }

        return text.Append('"').ToString();
    }
}
