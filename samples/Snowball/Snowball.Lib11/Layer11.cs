using Snowball.Lib10;

namespace Snowball.Lib11;

/// <summary>Layer 11: one more level on top of <see cref="Layer10"/>.</summary>
public sealed class Layer11
{
    private readonly Layer10 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib11";
}
