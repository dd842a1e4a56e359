using Snowball.Lib02;

namespace Snowball.Lib03;

/// <summary>Layer 3: one more level on top of <see cref="Layer02"/>.</summary>
public sealed class Layer03
{
    private readonly Layer02 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib03";
}
