using System.Text;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// Item specs are stored escaped: a file named "a;b%.txt" must become "a%3bb%25.txt" before it is made
/// into an item, or MSBuild would read it as two items or an escape sequence.
/// </summary>
internal static class MSBuildEscaping
{
    private const string SpecialCharacters = "%*?@$();'";

    public static string Escape(string unescaped)
    {
        if (unescaped.IndexOfAny(SpecialCharacters.ToCharArray()) < 0)
        {
            return unescaped;
        }

        var escaped = new StringBuilder(unescaped.Length + 8);
        foreach (char c in unescaped)
        {
            if (SpecialCharacters.IndexOf(c) >= 0)
            {
                escaped.Append('%').Append(((int)c).ToString("x2"));
            }
            else
            {
                escaped.Append(c);
            }
        }

        return escaped.ToString();
    }
}
