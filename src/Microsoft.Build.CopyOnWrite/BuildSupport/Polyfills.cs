#if NETFRAMEWORK
namespace System.Runtime.CompilerServices
{
    // Lets records and init-only setters compile for .NET Framework.
    internal static class IsExternalInit
    {
    }
}
#endif
