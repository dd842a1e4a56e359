using Snowball.Lib14;

namespace Snowball.Lib15;

/// <summary>Layer 15: one more level on top of <see cref="Layer14"/>.</summary>
public sealed class Layer15
{
    private readonly Layer14 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib15";
}
