namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// The stock task's messages by their resource names in MSBuild (texts read at run time: <see cref="StockTexts"/>), with
/// the codes builds and NoWarn lists depend on; and our own clone messages, in English.
/// </summary>
internal static class CopyMessages
{
    public static readonly StockMessage UnableToCopy = new("Copy.Error", "MSB3021");
    public static readonly StockMessage BothDestinations = new("Copy.ExactlyOneTypeOfDestination", "MSB3022");
    public static readonly StockMessage NoDestination = new("Copy.NeedsDestination", "MSB3023");
    public static readonly StockMessage DestinationIsFolder = new("Copy.DestinationIsDirectory", "MSB3024");
    public static readonly StockMessage SourceIsFolder = new("Copy.SourceIsDirectory", "MSB3025");
    public static readonly StockMessage Retrying = new("Copy.Retrying", "MSB3026");
    public static readonly StockMessage ExceededRetries = new("Copy.ExceededRetries", "MSB3027");
    public static readonly StockMessage InvalidRetryCount = new("Copy.InvalidRetryCount", "MSB3028");
    public static readonly StockMessage InvalidRetryDelay = new("Copy.InvalidRetryDelay", "MSB3029");
    public static readonly StockMessage SourceNotFound = new("Copy.SourceFileNotFound", "MSB3030");
    public static readonly StockMessage CountMismatch = new("General.TwoVectorsMustHaveSameLength", "MSB3094");
    public static readonly StockMessage ErrorIfLinkFailsWithoutLink = new("Copy.ErrorIfLinkFailsSetWithoutLinkOption", "MSB3892");
    public static readonly StockMessage LinkFailed = new("Copy.LinkFailed", "MSB3893");
    public static readonly StockMessage AlwaysRetryGotError = new("Copy.IOException", "MSB3894");
    public static readonly StockMessage AlwaysRetryAccessDenied = new("Copy.RetryingOnAccessDenied", "MSB3895");
    public static readonly StockMessage IncompatibleParameters = new("Copy.IncompatibleParameters", "MSB3896");

    public static readonly StockMessage CopyingFile = new("Copy.FileComment");
    public static readonly StockMessage CreatingDirectory = new("Copy.CreatesDirectory");
    public static readonly StockMessage CreatingHardLink = new("Copy.HardLinkComment");
    public static readonly StockMessage CreatingSymbolicLink = new("Copy.SymbolicLinkComment");
    public static readonly StockMessage LinkFailedCopyingInstead = new("Copy.RetryingAsFileCopy");
    public static readonly StockMessage HardLinkFailedTryingSymbolic = new("Copy.RetryingAsSymbolicLink");
    public static readonly StockMessage DidNotCopyUnchanged = new("Copy.DidNotCopyBecauseOfFileMatch");
    public static readonly StockMessage RemovingReadOnly = new("Copy.RemovingReadOnlyAttribute");

    /// <summary>Why a link call failed off Windows (the call, with its parentheses, and the errno): the reason in the link messages.</summary>
    public static readonly StockMessage LinkCallFailed = new("Copy.NonWindowsLinkErrorMessage");

    // Ours: a file the clone engine copied rather than cloned, and why (low importance).
    public const string CopiedNotCloned = "Copied \"{0}\" to \"{1}\" ({2}), not cloned: {3}.";

    public const string WrittenInPlaceByFallback = "\"{0}\" could not be replaced by a new file, so it was written in place, as MSBuild's own Copy writes it ({1}).";

    public const string WrittenInPlace = "\"{0}\" was open in another process that did not let it be replaced, so it was written in place, as MSBuild's own Copy writes it; that process may see the new content.";
}

/// <summary>A message of MSBuild's Copy: the name of its text among MSBuild's resources, and its code (null for a plain message).</summary>
internal sealed record StockMessage(string Name, string? Code = null);
