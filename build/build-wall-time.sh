#!/usr/bin/env bash
# What a user waits for: the wall time of a whole `dotnet build` of samples/Snowball (20 projects), as typed, restore
# included, in three scenarios:
#   clean     bin/ and obj/ deleted first (as after git clean -xdf)
#   nochange  built again, nothing changed
#   touched   Snowball.Lib01/Layer01.cs touched first (Lib01 and every project after it compiles again and copies)
# with MSBuild's nodes fresh for every build (-nr:false) and kept between builds (-nr:true, dotnet build's default:
# the nodes are shut down before that series, and one untimed round warms them), for these arms, each in a tree and
# package cache of its own on the volume (build/bench-trees.sh):
#   none   no SDK of ours imported: the build as it is without us
#   floor  the same tree with MSBuild's own Copy registered from an assembly of its own: what no drop-in can beat
#   new    our SDK from PKG_NEW
#   old    our SDK from PKG_OLD (when given): two versions of ours side by side in one run
# Rounds are paired: every arm builds once per round, in an order that rotates, and each build's time is divided by
# the "none" build of its round; the report gives the median of those ratios and their range, and each arm's median
# and range in seconds. Times the Copy task does not see (targets, evaluation, requests between projects) count here;
# build/incremental-copy-time.sh gives the time inside Copy.
# usage: build/build-wall-time.sh VOLUME_FOLDER PKG_NEW [PKG_OLD] [RUNS]
#   VOLUME_FOLDER: a folder on the volume to measure (XFS with reflink, btrfs, ext4); PKG_*: folders build/pack.sh made.
#   RUNS: timed rounds per scenario and node mode (default 7); CLEAN_RUNS: of those, how many time the clean build too
#   (default all). SCENARIOS="clean nochange touched" and NODES="fresh kept" choose a part. REPORT=FILE writes the
#   report (markdown) there as well. REUSE_TREES=1 skips making the trees (an earlier run's, same packages).
# Raw times: VOLUME_FOLDER/build-wall-time.txt ("NODES SCENARIO ROUND ARM MILLISECONDS").
set -euo pipefail
if [ $# -lt 2 ]; then sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; fi
mkdir -p "$1"; vol=$(realpath "$1"); new=$(realpath "$2"); old=${3:+$(realpath "$3")}; runs=${4:-7}; clean_runs=${CLEAN_RUNS:-$runs}
scenarios=${SCENARIOS:-clean nochange touched}; node_modes=${NODES:-fresh kept}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off
# Kept nodes and the compiler server are this script's own: no other build on the machine borrows them or lends it
# one of its own (which might run at another priority). Each arm keeps nodes of its own (the salt below), as a user of
# one version does: a node that loaded another arm's task assembly would load ours again from another path.
export SharedCompilationId="build-wall-time-$$"
source "$repo/build/bench-trees.sh"
machine=$(bench_machine)

arms=(none floor new)
[ -n "$old" ] && arms+=(old)
if [ "${REUSE_TREES:-}" != 1 ]; then # REUSE_TREES=1: the trees and package caches an earlier run of the same packages left
  bench_tree none none
  bench_tree new "$new"
  [ -n "$old" ] && bench_tree old "$old"
  for arm in "${arms[@]}"; do # every scenario starts from a built tree (clean deletes it first)
    [ "$arm" = floor ] || NUGET_PACKAGES="$vol/nuget-$arm" dotnet build "$vol/$arm/Snowball/Snowball.sln" --no-restore -nr:false -v:q >/dev/null
  done
fi
bench_floor

build() { # arm scenario nodes
  local tree=$1 extra=()
  [ "$1" = floor ] && { tree=none; extra+=("-p:CustomBeforeMicrosoftCommonTargets=$floor_targets"); }
  local environment=()
  # Kept: as dotnet build runs by default, whatever this shell says (MSBUILDDISABLENODEREUSE=1 would win over -nr:true).
  [ "$3" = kept ] && { extra+=(-nr:true); environment+=(-u MSBUILDDISABLENODEREUSE); } || extra+=(-nr:false)
  case $2 in
    clean) rm -rf "$vol/$tree/Snowball"/*/bin "$vol/$tree/Snowball"/*/obj ;;
    touched) touch "$vol/$tree/Snowball/Snowball.Lib01/Layer01.cs" ;;
  esac
  local started=$(date +%s%N)
  env "${environment[@]}" MSBUILDNODEHANDSHAKESALT="build-wall-time-$$-$1" NUGET_PACKAGES="$vol/nuget-$tree" dotnet build "$vol/$tree/Snowball/Snowball.sln" -v:m "${extra[@]}" > "$vol/last-build.log" 2>&1 \
    || { echo "build-wall-time.sh: the $1 build ($2, $3 nodes) failed:" >&2; cat "$vol/last-build.log" >&2; exit 1; }
  echo $(( ($(date +%s%N) - started) / 1000000 ))
}
shutdown_nodes() { local arm; for arm in "${arms[@]}"; do MSBUILDNODEHANDSHAKESALT="build-wall-time-$$-$arm" env -u MSBUILDDISABLENODEREUSE dotnet build-server shutdown --msbuild >/dev/null 2>&1 || true; done; }
rotated() { local n=${#arms[@]} i; for ((i = 0; i < n; i++)); do printf '%s ' "${arms[$(( (i + $1) % n ))]}"; done; }

raw="$vol/build-wall-time.txt"
: > "$raw"
per_mode=$(( runs * ${#arms[@]} * $(wc -w <<< "${scenarios/clean/}") ))
grep -qw clean <<< "$scenarios" && per_mode=$(( per_mode + clean_runs * ${#arms[@]} ))
total=$(( $(wc -w <<< "$node_modes") * per_mode )); done_builds=0
for nodes in $node_modes; do
  shutdown_nodes
  for round in $(seq 0 "$runs"); do
    [ "$round" = 0 ] && [ "$nodes" = fresh ] && continue # round 0 only warms kept nodes
    for scenario in $scenarios; do
      [ "$scenario" = clean ] && [ "$round" -gt "$clean_runs" ] && continue
      for arm in $(rotated "$round"); do
        ms=$(build "$arm" "$scenario" "$nodes")
        if [ "$round" -gt 0 ]; then
          echo "$nodes $scenario $round $arm $ms" >> "$raw"; done_builds=$((done_builds + 1))
          printf '\r%d/%d builds (%s %s, round %d, %s: %d ms)   ' "$done_builds" "$total" "$nodes" "$scenario" "$round" "$arm" "$ms" >&2
        fi
      done
    done
  done
done
shutdown_nodes
echo >&2
python3 - "$raw" "$machine" "$(cut -d' ' -f1-3 /proc/loadavg)" "$*" "${REPORT:-}" <<'PY'
import datetime, statistics, sys
raw, machine, load, arguments, report = sys.argv[1:6]
times = {}
for line in open(raw):
    nodes, scenario, round_, arm, ms = line.split()
    times.setdefault((nodes, scenario), {}).setdefault(arm, {})[int(round_)] = int(ms)
lines = ["# Whole `dotnet build` of samples/Snowball: wall time, ours against no SDK and the floor",
         "",
         f"Made by `build/build-wall-time.sh {arguments}` on {datetime.date.today()} ([performance.md](../performance.md#what-a-user-waits-for-whole-builds) says what it measures).",
         f"Machine: {machine}; load after: {load}.",
         "",
         "| nodes | scenario | arm | median s | range s | ratio to none: median | range | rounds |",
         "|---|---|---|---|---|---|---|---|"]
for (nodes, scenario), arms in times.items():
    none = arms["none"]
    for arm in ("none", "floor", "new", "old"):
        if arm not in arms:
            continue
        rounds = arms[arm]
        seconds = sorted(ms / 1000 for ms in rounds.values())
        ratios = sorted(rounds[r] / none[r] for r in rounds if r in none)
        lines.append(f"| {nodes} | {scenario} | {arm} | {statistics.median(seconds):.2f} | {seconds[0]:.2f}-{seconds[-1]:.2f} | "
                     f"{statistics.median(ratios):.3f} | {ratios[0]:.3f}-{ratios[-1]:.3f} | {len(rounds)} |")
text = "\n".join(lines)
print(text)
if report:
    open(report, "w").write(text + "\n")
PY
