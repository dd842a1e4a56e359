namespace Microsoft.Build.CopyOnWrite.TestKit;

/// <summary>What MSBuild itself writes in a build log, for tests that tell from the log what MSBuild did.</summary>
public static class MSBuildLogTexts
{
    /// <summary>Logged (detailed verbosity) when MSBuild runs a task in a task host process instead of its own.</summary>
    public const string TaskHostLaunch = "in an external task host";
}
