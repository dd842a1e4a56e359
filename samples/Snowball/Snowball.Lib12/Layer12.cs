using Snowball.Lib11;

namespace Snowball.Lib12;

/// <summary>Layer 12: one more level on top of <see cref="Layer11"/>.</summary>
public sealed class Layer12
{
    private readonly Layer11 _below = new();

    public int Depth => _below.Depth + 1;

    public string Describe() => _below.Describe() + " > Lib12";
}
