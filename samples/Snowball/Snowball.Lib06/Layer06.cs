using Snowball.Lib05;

namespace Snowball.Lib06;

/// <summary>Layer 6: one more level on top of <see cref="Layer05"/>.</summary>
public sealed class Layer06
{
    private readonly Layer05 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib06";
}
