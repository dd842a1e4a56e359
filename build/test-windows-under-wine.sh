#!/usr/bin/env bash
# Runs the Windows parity program (tests/Microsoft.Build.CopyOnWrite.Windows.Parity, published win-x64) under
# Wine: our Copy task and engine side by side with MSBuild's own Copy on Windows file rules.
#   build/test-windows-under-wine.sh [RESULTS_FOLDER] [program options, e.g. --filter open]
# Writes RESULTS_FOLDER/windows-parity.trx (default artifacts/test-results/windows-parity). Without Wine the
# suite is reported as one skipped test with the reason. A run is judged by the program's own closing line
# and TRX file, never by Wine's exit code: wine64 exits 0 when .NET dies of an unhandled exception.
# Wine as root writes read-only files, so the program runs as an unprivileged user (created when missing).
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
results="$(realpath -m "${1:-$repo/artifacts/test-results/windows-parity}")"
shift || true
wine="${COW_WINE:-/usr/lib/wine/wine64}"
user="${COW_WINE_USER:-cow-wine}"
# shellcheck source=build/wine-env.sh
. "$repo/build/wine-env.sh"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off
mkdir -p "$results"

# One TRX with one result, for a run that could not happen or did not finish; summarize-test-results.py counts it.
# Its ResultSummary says this report is complete ("Completed", or "Failed" for a failed result, as vstest writes
# it): the one result carries the failure, so the summary counts it once (a TRX without one counts as cut short).
report_only() { # outcome name message
  local now; now="$(date -u +%Y-%m-%dT%H:%M:%S.0000000Z)"
  local run_outcome=Completed passed=0 failed=0 not_executed=0
  case "$1" in
    Passed) passed=1 ;;
    NotExecuted) not_executed=1 ;;
    *) run_outcome=Failed; failed=1 ;;
  esac
  local id exec; id="$(cat /proc/sys/kernel/random/uuid)"; exec="$(cat /proc/sys/kernel/random/uuid)"
  local message; message="$(printf '%s' "$3" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g')"
  cat > "$results/windows-parity.trx" <<TRX
<?xml version="1.0" encoding="utf-8"?>
<TestRun id="$(cat /proc/sys/kernel/random/uuid)" name="Microsoft.Build.CopyOnWrite.Windows.Parity" xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">
  <Times creation="$now" start="$now" finish="$now" />
  <Results>
    <UnitTestResult executionId="$exec" testId="$id" testName="$2" computerName="$(hostname)" duration="00:00:00" startTime="$now" endTime="$now" testType="13cdc9d9-ddb5-4fa4-a97d-d965ccfc6d4b" outcome="$1" testListId="8c84fa94-04c1-424b-9868-57a2d4851a1d">
      <Output><ErrorInfo><Message>$message</Message></ErrorInfo></Output>
    </UnitTestResult>
  </Results>
  <TestDefinitions><UnitTest name="$2" storage="build/test-windows-under-wine.sh" id="$id"><Execution id="$exec" /><TestMethod codeBase="build/test-windows-under-wine.sh" adapterTypeName="executor://build/test-windows-under-wine.sh" className="WindowsUnderWine" name="$2" /></UnitTest></TestDefinitions>
  <TestEntries><TestEntry testId="$id" executionId="$exec" testListId="8c84fa94-04c1-424b-9868-57a2d4851a1d" /></TestEntries>
  <TestLists><TestList name="Results Not in a List" id="8c84fa94-04c1-424b-9868-57a2d4851a1d" /></TestLists>
  <ResultSummary outcome="$run_outcome">
    <Counters total="1" executed="$((passed + failed))" passed="$passed" failed="$failed" notExecuted="$not_executed" />
  </ResultSummary>
</TestRun>
TRX
  echo "$2: $1: $3"
}

if [ ! -x "$wine" ]; then
  report_only NotExecuted "WindowsUnderWine.Suite" "SKIPPED: Wine is not installed ($wine not found), so the Windows engine did not run: apt-get install wine wine64 (.ci/run installs them)."
  exit 0
fi

seconds() { date +%s%N; }
elapsed() { local tenths=$(( ($(seconds) - $1) / 100000000 )); echo "$((tenths / 10)).$((tenths % 10)) s"; }

# The program, self-contained, in a folder the Wine user can read (the checkout or mktemp's folder may not be).
out="$(mktemp -d -t cow-windows-parity-XXXXXX)"
trap 'rm -rf "$out"' EXIT
t="$(seconds)"
if ! publish_windows_program "$out"; then
  cat "$out/publish.log"
  report_only Failed "WindowsUnderWine.Publish" "dotnet publish of the Windows parity program failed; see the log above."
  exit 1
fi
echo "published the Windows parity program in $(elapsed "$t")"
mkdir -p "$out/results" "$out/scratch"
chmod 755 "$out"

use_wine_user "$out/results" "$out/scratch"
t="$(seconds)"
if make_wine_prefix "$out/wineboot.log"; then
  echo "made the Wine prefix $prefix in $(elapsed "$t")"
fi

t="$(seconds)"
# Results and scratch files in this run's own folder (removed on exit, even after a crash), as Windows paths.
windows_out="Z:${out//\//\\}"
as_user env "${wine_env[@]}" timeout 1800 "$wine" "$out/program/Microsoft.Build.CopyOnWrite.Windows.Parity.exe" \
    --results "$windows_out\\results" --scratch "$windows_out\\scratch" "$@" 2>&1 \
  | tr -d '\r' | tee "$out/output.log"
wine_status=${PIPESTATUS[0]}
echo "ran under Wine in $(elapsed "$t") (wine's own exit code $wine_status, not used to judge the run)"

closing="$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out/output.log" | tail -n 1)"
if [ -z "$closing" ] || [ ! -f "$out/results/windows-parity.trx" ]; then
  report_only Failed "WindowsUnderWine.Run" "The Windows parity program ended without its closing line or TRX file (wine exit code $wine_status). Last lines: $(tail -n 15 "$out/output.log" | tr '\n' ' ')"
  exit 1
fi
cp "$out/results/windows-parity.trx" "$results/windows-parity.trx"
read -r passed _ failed _ skipped _ <<< "${closing//,/}"
echo "Windows under Wine: $closing"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
