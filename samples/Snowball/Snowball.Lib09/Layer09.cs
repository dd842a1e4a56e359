using Snowball.Lib08;

namespace Snowball.Lib09;

/// <summary>Layer 9: one more level on top of <see cref="Layer08"/>.</summary>
public sealed class Layer09
{
    private readonly Layer08 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib09";
}
