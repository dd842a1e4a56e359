using Snowball.Lib01;

namespace Snowball.Lib02;

/// <summary>Layer 2: one more level on top of <see cref="Layer01"/>.</summary>
public sealed class Layer02
{
    private readonly Layer01 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib02";
}
