using Snowball.Lib15;

namespace Snowball.Lib16;

/// <summary>Layer 16: one more level on top of <see cref="Layer15"/>.</summary>
public sealed class Layer16
{
    private readonly Layer15 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib16";
}
