namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// The stock Copy task's English texts and codes, which builds, log parsers and NoWarn lists depend on,
/// plus our own clone messages. Codes are passed as real codes, never only inside the text.
/// </summary>
internal static class CopyMessages
{
    public const string UnableToCopyCode = "MSB3021";
    public const string UnableToCopy = "Unable to copy file \"{0}\" to \"{1}\". {2}";

    public const string BothDestinationsCode = "MSB3022";
    public const string BothDestinations = "Both \"{0}\" and \"{1}\" were specified as input parameters in the project file. Please choose one or the other.";

    public const string NoDestinationCode = "MSB3023";
    public const string NoDestination = "No destination specified for Copy. Please supply either \"{0}\" or \"{1}\".";

    public const string DestinationIsFolderCode = "MSB3024";
    public const string DestinationIsFolder = "Could not copy the file \"{0}\" to the destination file \"{1}\", because the destination is a folder instead of a file. To copy the source file into a folder, consider using the DestinationFolder parameter instead of DestinationFiles.";

    public const string SourceIsFolderCode = "MSB3025";
    public const string SourceIsFolder = "The source file \"{0}\" is actually a directory.  The \"Copy\" task does not support copying directories.";

    public const string RetryingCode = "MSB3026";
    public const string Retrying = "Could not copy \"{0}\" to \"{1}\". Beginning retry {2} in {3}ms. {4} {5}";

    public const string ExceededRetriesCode = "MSB3027";
    public const string ExceededRetries = "Could not copy \"{0}\" to \"{1}\". Exceeded retry count of {2}. Failed. {3}";

    public const string InvalidRetryCountCode = "MSB3028";
    public const string InvalidRetryCount = "{0} is an invalid retry count. Value must not be negative.";

    public const string InvalidRetryDelayCode = "MSB3029";
    public const string InvalidRetryDelay = "{0} is an invalid retry delay. Value must not be negative.";

    public const string SourceNotFoundCode = "MSB3030";
    public const string SourceNotFound = "Could not copy the file \"{0}\" because it was not found.";

    public const string CountMismatchCode = "MSB3094";
    public const string CountMismatch = "\"{2}\" refers to {0} item(s), and \"{3}\" refers to {1} item(s). They must have the same number of items.";

    public const string ErrorIfLinkFailsWithoutLinkCode = "MSB3892";
    public const string ErrorIfLinkFailsWithoutLink = "ErrorIfLinkFails requires UseHardlinksIfPossible or UseSymbolicLinksIfPossible to be set.";

    public const string LinkFailedCode = "MSB3893";
    public const string LinkFailed = "Could not use a link to copy \"{0}\" to \"{1}\".";

    public const string AlwaysRetryGotErrorCode = "MSB3894";
    public const string AlwaysRetryGotError = "Got {0} copying \"{1}\" to \"{2}\" and HR is {3}";

    public const string AlwaysRetryAccessDeniedCode = "MSB3895";
    public const string AlwaysRetryAccessDenied = "Retrying on ERROR_ACCESS_DENIED because environment variable MSBUILDALWAYSRETRY=1";

    public const string IncompatibleParametersCode = "MSB3896";
    public const string IncompatibleParameters = "Both \"{0}\" and \"{1}\" were specified as parameters in the project file but cannot be used together. Please choose one or the other.";

    public const string CopyingFile = "Copying file from \"{0}\" to \"{1}\".";
    public const string CreatingDirectory = "Creating directory \"{0}\".";
    public const string CreatingHardLink = "Creating hard link to copy \"{0}\" to \"{1}\".";
    public const string CreatingSymbolicLink = "Creating symbolic link to copy \"{0}\" to \"{1}\".";
    public const string LinkFailedCopyingInstead = "Could not use a link to copy \"{0}\" to \"{1}\". Copying the file instead. {2}";
    public const string HardLinkFailedTryingSymbolic = "Could not use a hard link to copy \"{0}\" to \"{1}\". Copying the file with symbolic link instead. {2}";
    public const string DidNotCopyUnchanged = "Did not copy from file \"{0}\" to file \"{1}\" because the \"{2}\" parameter was set to \"{3}\" in the project and the files' sizes and timestamps match.";
    public const string RemovingReadOnly = "Removing read-only attribute from \"{0}\".";

    // Ours: a file the clone engine copied rather than cloned, and why (low importance).
    public const string CopiedNotCloned = "Copied \"{0}\" to \"{1}\" ({2}), not cloned: {3}.";

    public const string WrittenInPlaceByFallback = "\"{0}\" could not be replaced by a new file, so it was written in place, as MSBuild's own Copy writes it ({1}).";

    public const string WrittenInPlace = "\"{0}\" was open in another process that did not let it be replaced, so it was written in place, as MSBuild's own Copy writes it; that process may see the new content.";
}
