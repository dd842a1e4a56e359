#!/usr/bin/env bash
# The whole test suite: every test project under tests/, one after another (they mount file systems and
# run real builds; in parallel on a small machine they only slow each other down).
# Run as root so the loop-mounted XFS/btrfs/ext4 tests can run; without root they are reported skipped.
# Then the Windows parity program under Wine (build/test-windows-under-wine.sh), after the others.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
results="$(mktemp -d -t cow-test-results-XXXXXX)"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off

status=0
projects=()
dotnet build "$repo/Microsoft.Build.CopyOnWrite.sln" -c Release -nologo -v:q || exit 1
for project in "$repo"/tests/*.Tests/*.Tests.csproj; do
  projects+=("$(basename "$project" .csproj)")
  echo "=== $(basename "$project" .csproj)"
  dotnet test "$project" -c Release --no-build --nologo \
    --logger "trx" --logger "console;verbosity=minimal" --results-directory "$results/$(basename "$project" .csproj)" || status=1
done

# The Windows engine and our task beside MSBuild's own Copy, under Wine (skipped with the reason without Wine).
echo "=== Microsoft.Build.CopyOnWrite.Windows.Parity (under Wine)"
"$repo/build/test-windows-under-wine.sh" "$results/Microsoft.Build.CopyOnWrite.Windows.Parity" || status=1

python3 "$repo/build/summarize-test-results.py" "$results" "${projects[@]}" Microsoft.Build.CopyOnWrite.Windows.Parity || status=1
exit $status
