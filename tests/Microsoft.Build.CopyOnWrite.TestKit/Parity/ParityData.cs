using System.Linq;
using System.Collections.Generic;

namespace Microsoft.Build.CopyOnWrite.TestKit.Parity;

/// <summary>An input item as a project would write it: the spec in MSBuild's escaped form, and its metadata.</summary>
public sealed record ParityItem(string EscapedSpec, IReadOnlyList<KeyValuePair<string, string>> Metadata)
{
    public ParityItem(string escapedSpec)
        : this(escapedSpec, new List<KeyValuePair<string, string>>())
    {
    }
}

/// <summary>An output item: its spec (unescaped and escaped) and every custom metadata value, sorted by name.</summary>
public sealed record ObservedItem(string ItemSpec, string EscapedSpec, IReadOnlyList<KeyValuePair<string, string>> Metadata)
{
    public override string ToString()
        => $"{ItemSpec} [escaped {EscapedSpec}]" + (Metadata.Count == 0 ? string.Empty : " {" + string.Join(", ", Metadata.Select(m => $"{m.Key}={m.Value}")) + "}");
}

/// <summary>
/// One event the task logged: "error", "warning" or "message", its code and importance, its text, and the help keyword
/// an IDE looks the code up by (errors and warnings; the stock task's is MSBuild.&lt;its text's resource name&gt;).
/// </summary>
public sealed record ObservedEvent(string Kind, string? Code, string? Importance, string Text, string? HelpKeyword = null)
{
    public override string ToString()
        => $"{Kind}{(Code is null ? string.Empty : " " + Code)}{(Importance is null ? string.Empty : " (" + Importance + ")")}{(HelpKeyword is null ? string.Empty : " [" + HelpKeyword + "]")}: {Text}";
}

/// <summary>What one run of a Copy task did, apart from the files it left.</summary>
public sealed class TaskRunResult
{
    public bool Success { get; set; }

    public string? Exception { get; set; }

    public ObservedItem[]? DestinationFiles { get; set; }

    public ObservedItem[]? CopiedFiles { get; set; }

    public bool? WroteAtLeastOneFile { get; set; }

    public List<ObservedEvent> Events { get; } = new();

    public double ElapsedMilliseconds { get; set; }
}
