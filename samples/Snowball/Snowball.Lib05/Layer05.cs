using Snowball.Lib04;

namespace Snowball.Lib05;

/// <summary>Layer 5: one more level on top of <see cref="Layer04"/>.</summary>
public sealed class Layer05
{
    private readonly Layer04 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib05";
}
