using Snowball.Lib13;

namespace Snowball.Lib14;

/// <summary>Layer 14: one more level on top of <see cref="Layer13"/>.</summary>
public sealed class Layer14
{
    private readonly Layer13 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib14";
}
