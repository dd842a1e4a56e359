#!/usr/bin/env bash
# The mutation score of the task assembly's decisions: Stryker.NET (dotnet-stryker, in the repository's tool manifest,
# .config/dotnet-tools.json) mutates one source file at a time and runs the test classes that cover it against each
# mutant, in Release. docs/test-strength.md gives the scores and accounts for every surviving mutant.
#   build/mutation-score.sh                 every file below, one after another
#   build/mutation-score.sh settings ladder the named ones only
# Prints, per file, "NAME FILE: SCORE% (K killed, T timed out, S survived, N not covered; C did not compile)" and the
# survivors (line, mutator, replacement); the reports are in artifacts/mutation/NAME/ (JSON and HTML).
# As root (the tests mount loop volumes); Stryker stops test hosts without their cleanup, so each test process sweeps
# what the previous ones left (build/sweep-test-volumes.sh), and this script sweeps once more at the end.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off

# name|file to mutate (a glob under src/Microsoft.Build.CopyOnWrite)|test-case filter: the classes that cover it
targets=(
  "pair|**/Task/PairDecision.cs|FullyQualifiedName~.Tests.Task.PairDecisionTests"
  "settings|**/Settings/CopyOnWriteSettings.cs|FullyQualifiedName~.Tests.Settings.CopyOnWriteSettingsTests"
  "sources|**/Settings/CopySources.cs|FullyQualifiedName~.Tests.Settings.CopySourcesTests|FullyQualifiedName~.Tests.Task.CopyDataTests|FullyQualifiedName~.Tests.Doctor.DoctorCheckTests"
  "clonerule|**/Volumes/CloneRule.cs|FullyQualifiedName~.Tests.Volumes.LinuxVolumesTests|FullyQualifiedName~.Tests.Settings.CopySourcesTests|FullyQualifiedName~.Tests.Task.CopyDataTests|FullyQualifiedName~.Tests.Doctor.DoctorCheckTests"
  "windows|**/Cloning/Windows/WindowsCloneDecisions.cs|FullyQualifiedName~.Tests.Cloning.Windows|FullyQualifiedName~.Tests.Cloning.CloneErrorsTests|FullyQualifiedName~.Tests.Cloning.EngineSeamFaultTests"
  "ladder|**/Cloning/FallbackLadder.cs|FullyQualifiedName~.Tests.Cloning.FallbackLadderTests|FullyQualifiedName~.Tests.Cloning.FallbackLadderFaultTextTests|FullyQualifiedName~.Tests.Cloning.EngineSeamFaultTests"
)
wanted=("$@")
trap '"$repo/build/sweep-test-volumes.sh"' EXIT
mkdir -p "$repo/artifacts/mutation"
(cd "$repo" && dotnet tool restore > /dev/null) || { echo "dotnet tool restore failed" >&2; exit 1; }
# The tests that build consumers of the packed SDK read it from COW_TEST_PACKAGES: packed once here (as build/test.sh
# does), not by each test process Stryker starts. The packed task assembly is never a mutant: only in-process calls
# from the tests reach the mutated code, so a consumer build's verdict is the same for every mutant.
if [ -z "${COW_TEST_PACKAGES:-}" ]; then
  export COW_TEST_PACKAGES="$repo/artifacts/mutation/packages"
  MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0 "$repo/build/pack.sh" "$COW_TEST_PACKAGES" > "$repo/artifacts/mutation/pack.log" 2>&1 \
    || { cat "$repo/artifacts/mutation/pack.log"; echo "build/pack.sh failed" >&2; exit 1; }
fi
# Each test host finds MSBuild before test discovery loads the task assembly (build/mutation/StartupHook.cs: without
# it Stryker never switches a mutant on, and every mutant survives).
hook="$repo/artifacts/mutation/hook"
dotnet build "$repo/build/mutation/MutationStartupHook.csproj" -c Release -nologo -v q -o "$hook" > "$repo/artifacts/mutation/hook.log" 2>&1 \
  || { cat "$repo/artifacts/mutation/hook.log"; echo "building build/mutation/MutationStartupHook.csproj failed" >&2; exit 1; }
status=0
for target in "${targets[@]}"; do
  name="${target%%|*}"; rest="${target#*|}"; file="${rest%%|*}"; filter="${rest#*|}"
  if [ ${#wanted[@]} -gt 0 ] && [[ ! " ${wanted[*]} " =~ " $name " ]]; then continue; fi
  out="$repo/artifacts/mutation/$name"
  rm -rf "$out"; mkdir -p "$out"
  started=$SECONDS
  (cd "$repo/tests/Microsoft.Build.CopyOnWrite.Tests" && DOTNET_STARTUP_HOOKS="$hook/MutationStartupHook.dll" dotnet stryker --project Microsoft.Build.CopyOnWrite.csproj --mutate "$file" \
      --test-case-filter "$filter" --configuration Release --output "$out" --reporter json --reporter html --reporter progress) > "$out/stryker.log" 2>&1 \
    || { echo "$name: dotnet stryker failed (see $out/stryker.log)"; tail -20 "$out/stryker.log"; status=1; continue; }
  report="$(find "$out" -name mutation-report.json | head -1)"
  python3 - "$name" "$file" "$report" "$((SECONDS - started))" <<'PY' || status=1
import json, sys
name, pattern, path, seconds = sys.argv[1:]
report = json.load(open(path))
counts, survivors = {}, []
for source, body in report["files"].items():
    lines = open(source).read().split("\n")
    for m in body["mutants"]:
        counts[m["status"]] = counts.get(m["status"], 0) + 1
        if m["status"] in ("Survived", "NoCoverage"):
            line = m["location"]["start"]["line"]
            survivors.append(f'  {m["status"]}: {source.split("/src/")[-1]}:{line} {m["mutatorName"]}: {lines[line - 1].strip()}  ->  {m.get("replacement", "")}')
killed, timeout = counts.get("Killed", 0), counts.get("Timeout", 0)
survived, nocov = counts.get("Survived", 0), counts.get("NoCoverage", 0)
valid = killed + timeout + survived + nocov
score = 100.0 * (killed + timeout) / valid if valid else float("nan")
print(f"{name} {pattern}: {score:.1f}% ({killed} killed, {timeout} timed out, {survived} survived, {nocov} not covered; "
      f"{counts.get('CompileError', 0)} did not compile, {counts.get('Ignored', 0)} ignored) in {seconds} s")
print("\n".join(survivors))
PY
done
exit $status
