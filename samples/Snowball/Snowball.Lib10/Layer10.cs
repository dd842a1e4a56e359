using Snowball.Lib09;

namespace Snowball.Lib10;

/// <summary>Layer 10: one more level on top of <see cref="Layer09"/>.</summary>
public sealed class Layer10
{
    private readonly Layer09 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib10";
}
