using Snowball.Lib07;

namespace Snowball.Lib08;

/// <summary>Layer 8: one more level on top of <see cref="Layer07"/>.</summary>
public sealed class Layer08
{
    private readonly Layer07 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib08";
}
