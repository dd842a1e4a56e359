using Snowball.Lib06;

namespace Snowball.Lib07;

/// <summary>Layer 7: one more level on top of <see cref="Layer06"/>.</summary>
public sealed class Layer07
{
    private readonly Layer06 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib07";
}
