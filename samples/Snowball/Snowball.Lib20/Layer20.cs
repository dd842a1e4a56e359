using Snowball.Lib19;

namespace Snowball.Lib20;

/// <summary>Layer 20: one more level on top of <see cref="Layer19"/>.</summary>
public sealed class Layer20
{
    private readonly Layer19 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib20";
}
