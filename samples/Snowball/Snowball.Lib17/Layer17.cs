using Snowball.Lib16;

namespace Snowball.Lib17;

/// <summary>Layer 17: one more level on top of <see cref="Layer16"/>.</summary>
public sealed class Layer17
{
    private readonly Layer16 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib17";
}
