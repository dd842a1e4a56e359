using Snowball.Lib12;

namespace Snowball.Lib13;

/// <summary>Layer 13: one more level on top of <see cref="Layer12"/>.</summary>
public sealed class Layer13
{
    private readonly Layer12 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib13";
}
