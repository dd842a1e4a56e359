#!/usr/bin/env bash
# The whole test suite, or its quick tier:
#   build/test.sh           every test project under tests/ and the Windows parity program under Wine
#   build/test.sh --quick   the quick tier (CONTRIBUTING.md, "Testing"): the task's contract, the engines on real
#                           XFS/btrfs/ext4 volumes, the fallback ladder, the parity suite's in-process cases and the
#                           layout rules; no consumer builds, no packing, no Wine
#   COW_COVERAGE=1 build/test.sh [--quick]   either, and the task assembly's line coverage after the summary
# Run as root so the loop-mounted XFS/btrfs/ext4 tests can run; without root they are reported skipped.
#
# The suites run side by side in lanes, which share no volume: each test process makes its own loop file systems and
# scratch folders (named by its process id). The SDK and tool packages are packed once per run by the release
# command in a release clone (build/pack-release-clone.sh) before the suites that consume them, and handed to them in
# COW_TEST_PACKAGES, so no test process packs them again. The main suite (Microsoft.Build.CopyOnWrite.Tests) runs as
# three processes: its consumer builds (namespace Sdk) in two halves, and the rest. Each suite's console output is
# printed whole when it ends.
#
# The summary at the end (build/summarize-test-results.py, whose own tests run first) prints where the minutes went
# (the slowest classes and tests), each suite's counts and time, and the wall clock; its last line is
# 'tests: N passed, N failed, N skipped', after the count of build processes the run started.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: build/test.sh [--quick]" >&2; exit 2 ;;
esac
results="$(mktemp -d -t cow-test-results-XXXXXX)"
chmod 755 "$results" # the packages in it are read by tests that run the tool as an unprivileged user
# The .NET SDK leaves folders in the temp folder on every command (two empty ones a build, one holding a
# project.assets.json a tool install: dotnet/sdk#35353), hundreds a run: every process of the run gets a temp folder of
# its own, removed at the end; world-writable as /tmp is (tests run builds and the tool as other users).
temp="$results/tmp"
mkdir -m 1777 "$temp" && export TMPDIR="$temp"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off
# The builds compile with the C# compiler server, as on a developer's machine or a CI runner: an environment that turns
# it off (UseSharedCompilation=false, as some sandboxes do) makes every compile a process of its own, about three times
# the CPU of a small project's build. The server keeps no file of a test volume open; it is shut down at the end.
unset UseSharedCompilation
tests="$repo/tests"
main="$tests/Microsoft.Build.CopyOnWrite.Tests/Microsoft.Build.CopyOnWrite.Tests.csproj"
parity="$tests/Microsoft.Build.CopyOnWrite.Parity.Tests/Microsoft.Build.CopyOnWrite.Parity.Tests.csproj"
reliability="$tests/Microsoft.Build.CopyOnWrite.Reliability.Tests/Microsoft.Build.CopyOnWrite.Reliability.Tests.csproj"
measure="$tests/Microsoft.Build.CopyOnWrite.Measure.Tests/Microsoft.Build.CopyOnWrite.Measure.Tests.csproj"
sdk_builds="FullyQualifiedName~Microsoft.Build.CopyOnWrite.Tests.Sdk."
not_sdk_builds="FullyQualifiedName!~Microsoft.Build.CopyOnWrite.Tests.Sdk." # spelled out: ${x/~/!~} would tilde-expand the ~
# The consumer builds in two halves, each a process of its own: the package routes and package caches (restores from
# NuGet sources, the README's lines), and the rest.
sdk_routes_classes=(CloneInsteadOfLinksBuildTests GettingThePackageTests SummaryWithoutTrapsTests ReadmeWalkthroughTests)
sdk_routes="$(printf '|FullyQualifiedName~.Tests.Sdk.%s' "${sdk_routes_classes[@]}")"; sdk_routes="${sdk_routes#|}"
sdk_others="$sdk_builds$(printf '&FullyQualifiedName!~.Tests.Sdk.%s' "${sdk_routes_classes[@]}")"
# The quick tier's filters (MSTest --filter over class names): what they select is listed in CONTRIBUTING.md.
quick_main="FullyQualifiedName~.Tests.Task.|FullyQualifiedName~.Tests.Settings.CopyOnWriteSettingsTests|FullyQualifiedName~.Tests.Settings.CopySourcesTests|FullyQualifiedName~.Tests.Cloning.|FullyQualifiedName~.Tests.Layout.|FullyQualifiedName~.Tests.Volumes.LinuxVolumesTests|FullyQualifiedName~.Tests.WindowsBenchmark."
quick_reliability="FullyQualifiedName!~SystemCallFaultTests&FullyQualifiedName!~ConcurrentCopyTests"

# Every `dotnet` the run starts goes through a wrapper first on PATH that records its command line, so the summary can
# count the build processes (the budget in CONTRIBUTING.md, "Testing"): the tests and the tool start programs by
# name from PATH (ChildProcess), builds run as `nobody` write there too, and the program keeps the name it was
# started by (a test finds the tool's process by its command line).
real_dotnet="$(readlink -f "$(command -v dotnet)")"
commands="$results/dotnet-commands.txt"
mkdir -p "$results/bin" && : > "$commands" && chmod 666 "$commands"
cat > "$results/bin/dotnet" <<EOF
#!/bin/bash
echo "\$*" >> '$commands'
exec -a dotnet '$real_dotnet' "\$@"
EOF
chmod 755 "$results/bin" "$results/bin/dotnet"
export PATH="$results/bin:$PATH"

# COW_COVERAGE=1: each suite also records which lines of the task assembly its tests ran (coverlet.collector), and
# build/coverage.py prints the merged coverage and the lines no test reached after the summary (docs/test-strength.md).
coverage_include='DataCollectionRunSettings.DataCollectors.DataCollector.Configuration.Include=[Microsoft.Build.CopyOnWrite]*'

times="$results/suite-times.txt" # one line per step: NAME SECONDS
: > "$times"
now() { date +%s%N; }
# took NAME STARTED: appends 'NAME SECONDS' to the times file and prints SECONDS.
took() { local tenths=$(( ($(now) - $2) / 100000000 )); echo "$1 $((tenths / 10)).$((tenths % 10))" >> "$times"; echo "$((tenths / 10)).$((tenths % 10))"; }
run_started="$(now)"
names=()
failed_marker="$results/failed"

# suite NAME PROJECT [FILTER]: one test project (or the part FILTER selects) into RESULTS/NAME; its output in
# RESULTS/NAME.log, printed whole (under a lock, not interleaved with another lane's) when it ends.
suite() {
  local name="$1" project="$2" filter="${3:-}" started seconds log="$results/$1.log"
  started="$(now)"
  local args=(test "$project" -c Release --no-build --nologo --logger "trx" --logger "console;verbosity=minimal" --results-directory "$results/$name")
  [ -n "$filter" ] && args+=(--filter "$filter")
  if [ "${COW_COVERAGE:-}" = 1 ]; then
    # coverlet instruments the task assembly in the test output folder, in place: the main suite's three lanes would
    # rewrite one file under each other's test hosts (TypeLoadException, crashed hosts), so each runs from its own copy.
    local output
    output="$(dirname "$project")/bin/Release/coverage-$name"
    rm -rf "$output" && cp -a "$(dirname "$project")/bin/Release/net10.0" "$output"
    args+=(-p:OutputPath="$output/" --collect "XPlat Code Coverage" -- "$coverage_include" DataCollectionRunSettings.DataCollectors.DataCollector.Configuration.Format=cobertura)
  fi
  dotnet "${args[@]}" > "$log" 2>&1 || touch "$failed_marker"
  [ "${COW_COVERAGE:-}" = 1 ] && rm -rf "$output"
  seconds="$(took "$name" "$started")"
  { flock 8; echo "=== $name ($seconds s)"; cat "$log"; } 8>"$results/print.lock"
}

# The Windows engine and our task beside MSBuild's own Copy, under Wine (skipped with the reason without Wine).
wine() {
  local name=Microsoft.Build.CopyOnWrite.Windows.Parity started seconds log="$results/Microsoft.Build.CopyOnWrite.Windows.Parity.log"
  started="$(now)"
  "$repo/build/test-windows-under-wine.sh" "$results/$name" > "$log" 2>&1 || touch "$failed_marker"
  seconds="$(took "$name" "$started")"
  { flock 8; echo "=== $name, under Wine ($seconds s)"; cat "$log"; } 8>"$results/print.lock"
}

# Waits until the packages are packed (pack_packages below); false when packing failed.
packed() {
  while [ ! -e "$results/packed" ]; do sleep 2; done
  [ "$(cat "$results/packed")" = ok ]
}

started="$(now)"
dotnet build "$repo/Microsoft.Build.CopyOnWrite.sln" -c Release -nologo -v:q || exit 1
took build "$started" > /dev/null

if [ "$quick" = 1 ]; then
  names=(Microsoft.Build.CopyOnWrite.Tests Microsoft.Build.CopyOnWrite.Parity.Tests Microsoft.Build.CopyOnWrite.Reliability.Tests)
  suite Microsoft.Build.CopyOnWrite.Tests "$main" "$quick_main" &
  { suite Microsoft.Build.CopyOnWrite.Parity.Tests "$parity"
    suite Microsoft.Build.CopyOnWrite.Reliability.Tests "$reliability" "$quick_reliability"; } &
  wait
else
  names=(Microsoft.Build.CopyOnWrite.Tests-Sdk Microsoft.Build.CopyOnWrite.Tests-Sdk-routes Microsoft.Build.CopyOnWrite.Tests-others
         Microsoft.Build.CopyOnWrite.Measure.Tests Microsoft.Build.CopyOnWrite.Parity.Tests Microsoft.Build.CopyOnWrite.Reliability.Tests
         Microsoft.Build.CopyOnWrite.Windows.Parity)
  # The run's one pack: the release command in a clone whose origin is a stand-in of GitHub's shape, as a release is
  # made (build/pack-release-clone.sh). What it printed too: the README's "Get it" command is this one
  # (GettingThePackageTests reads its output); the clone itself for ReleasePackageTests.
  # In the run's temp folder, removed at the end: the clone's own test fixtures (build/tests/trx) are no results of the run.
  export COW_TEST_PACKAGES="$temp/release/packages" COW_TEST_PACK_OUTPUT="$results/pack.log" COW_TEST_PACKED_REPOSITORY="$temp/release/repository"
  # Four lanes, so that the consumer builds (the longest) run as two processes. Lanes that need no package start at
  # once; the others wait for it.
  { suite Microsoft.Build.CopyOnWrite.Parity.Tests "$parity"
    wine
    packed && suite Microsoft.Build.CopyOnWrite.Tests-Sdk "$main" "$sdk_others"; } &
  { suite Microsoft.Build.CopyOnWrite.Reliability.Tests "$reliability"
    packed && suite Microsoft.Build.CopyOnWrite.Tests-others "$main" "$not_sdk_builds"; } &
  { packed && suite Microsoft.Build.CopyOnWrite.Tests-Sdk-routes "$main" "$sdk_routes"; } &
  # Both packages, once, with the release command, in the environment SdkPackage.PackEnvironment describes.
  started="$(now)"
  if MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0 "$repo/build/pack-release-clone.sh" "$temp/release" \
       https://github.com/stand-in-owner/stand-in-repository.git > "$results/pack.log" 2>&1; then
    echo ok > "$results/packed"
  else
    cat "$results/pack.log"; echo "build/pack-release-clone.sh failed: the suites that consume the packages do not run" >&2
    echo failed > "$results/packed"; touch "$failed_marker"
  fi
  took pack "$started" > /dev/null
  packed && suite Microsoft.Build.CopyOnWrite.Measure.Tests "$measure" &
  wait
fi

# What a test process that was killed (a crash, a hang timeout) left mounted: every lane has ended, so nothing of this
# run's is still in use; another checkout's running tests are left alone (build/sweep-test-volumes.sh).
"$repo/build/sweep-test-volumes.sh"
dotnet build-server shutdown --vbcscompiler > /dev/null 2>&1
ours="$(find "$temp" -mindepth 1 -maxdepth 1 -name 'cow-*')"
[ -n "$ours" ] && printf 'a test left in the temp folder (removed now):\n%s\n' "$ours"
echo "the run's temp folder removed, with the $(find "$temp" -mindepth 1 -maxdepth 1 | wc -l) entries left in it"
rm -rf "$temp"

# The summary's own tests (under a second; over real TRX files of crashed and hang-killed runs), counted like a suite.
echo "=== summarize-test-results.tests"
started="$(now)"
python3 "$repo/build/tests/test_summarize_test_results.py" --trx "$results/summarize-test-results.tests/summarize-test-results.trx" || touch "$failed_marker"
took summarize-test-results.tests "$started" > /dev/null
wall_tenths=$(( ($(now) - run_started) / 100000000 ))

status=0
[ -e "$failed_marker" ] && status=1
python3 "$repo/build/summarize-test-results.py" "$results" --times "$times" --commands "$commands" --wall "$((wall_tenths / 10)).$((wall_tenths % 10))" \
  "${names[@]}" summarize-test-results.tests || status=1
[ "${COW_COVERAGE:-}" = 1 ] && { python3 "$repo/build/coverage.py" "$results" --out "$results/coverage.txt" || status=1; }
exit $status
