#!/usr/bin/env bash
# The whole test suite: every test project under tests/, one after another (they mount file systems and
# run real builds; in parallel on a small machine they only slow each other down).
# Run as root so the loop-mounted XFS/btrfs/ext4 tests can run; without root they are reported skipped.
# Then the Windows parity program under Wine (build/test-windows-under-wine.sh), after the others.
# The summary at the end (build/summarize-test-results.py, whose own tests run first) prints each suite's counts
# and wall time; its last line is 'tests: N passed, N failed, N skipped'.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
results="$(mktemp -d -t cow-test-results-XXXXXX)"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off

status=0
projects=()
times="$results/suite-times.txt" # one line per step: NAME SECONDS
started=0
start() { started="$(date +%s%N)"; }
took() { local tenths=$(( ($(date +%s%N) - started) / 100000000 )); echo "$1 $((tenths / 10)).$((tenths % 10))" >> "$times"; }
: > "$times"

start
dotnet build "$repo/Microsoft.Build.CopyOnWrite.sln" -c Release -nologo -v:q || exit 1
took build
for project in "$repo"/tests/*.Tests/*.Tests.csproj; do
  name="$(basename "$project" .csproj)"
  projects+=("$name")
  echo "=== $name"
  start
  dotnet test "$project" -c Release --no-build --nologo \
    --logger "trx" --logger "console;verbosity=minimal" --results-directory "$results/$name" || status=1
  took "$name"
done

# The Windows engine and our task beside MSBuild's own Copy, under Wine (skipped with the reason without Wine).
echo "=== Microsoft.Build.CopyOnWrite.Windows.Parity (under Wine)"
start
"$repo/build/test-windows-under-wine.sh" "$results/Microsoft.Build.CopyOnWrite.Windows.Parity" || status=1
took Microsoft.Build.CopyOnWrite.Windows.Parity

# The summary's own tests (under a second; over real TRX files of crashed and hang-killed runs), counted like a suite.
echo "=== summarize-test-results.tests"
start
python3 "$repo/build/tests/test_summarize_test_results.py" --trx "$results/summarize-test-results.tests/summarize-test-results.trx" || status=1
took summarize-test-results.tests

python3 "$repo/build/summarize-test-results.py" "$results" --times "$times" \
  "${projects[@]}" Microsoft.Build.CopyOnWrite.Windows.Parity summarize-test-results.tests || status=1
exit $status
