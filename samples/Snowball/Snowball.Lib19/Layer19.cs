using Snowball.Lib18;

namespace Snowball.Lib19;

/// <summary>Layer 19: one more level on top of <see cref="Layer18"/>.</summary>
public sealed class Layer19
{
    private readonly Layer18 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib19";
}
