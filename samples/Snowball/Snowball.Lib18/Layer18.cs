using Snowball.Lib17;

namespace Snowball.Lib18;

/// <summary>Layer 18: one more level on top of <see cref="Layer17"/>.</summary>
public sealed class Layer18
{
    private readonly Layer17 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib18";
}
