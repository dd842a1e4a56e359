using Snowball.Lib03;

namespace Snowball.Lib04;

/// <summary>Layer 4: one more level on top of <see cref="Layer03"/>.</summary>
public sealed class Layer04
{
    private readonly Layer03 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib04";
}
