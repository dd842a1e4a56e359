namespace Snowball.Lib01;

/// <summary>The first layer: every other layer stands on it.</summary>
public sealed class Layer01
{
    public int Depth => 1;

    public string Describe() => "Lib01";
}
