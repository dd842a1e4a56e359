#!/usr/bin/env bash
# Time in Copy (-clp:PerformanceSummary) of incremental builds of samples/Snowball with Snowball.Lib01/Layer01.cs
# touched before each build (63 Copy calls; Lib01.dll and .pdb go over existing destinations in every project after it),
# four tasks in rotation, each build in a fresh process (unless NODE_REUSE=true): "new" (the SDK package in PKG_NEW),
# "old" (the one in PKG_OLD, e.g. a previous commit's, to compare two versions of ours in one run), "stock" (MSBuild's
# own Copy, in the new tree) and "floor" (MSBuild's own Copy loaded as any drop-in is: a class deriving from it in an
# assembly of its own, registered with <UsingTask TaskName="Copy" AssemblyFile=...>, in the new tree; what no drop-in
# can do better than), under two logging conditions:
#   quiet: -v:m and no other logger: the in-process node tells the task nobody takes its low-importance lines, so it
#          makes no data line; the out-of-process node says they are taken (it did at -v:m), so it makes them
#   lines: -v:n and the summary logger: every line made and sent, as dotnet cow-measure builds
# Each task has its own copy of samples/ and package cache in VOLUME_FOLDER (a folder on the volume to measure).
# Prints "RUN CONDITION TASK MILLISECONDS CALLS" per build, then medians, ranges and the ratio to stock.
# usage: build/incremental-copy-time.sh VOLUME_FOLDER PKG_NEW PKG_OLD [RUNS [CONDITIONS]]
#   build/pack.sh FOLDER makes a PKG; PKG_OLD may be PKG_NEW (two copies of one task show the noise).
#   CONDITIONS: "lines quiet" by default, or one of them.
#   NODE_REUSE=true: the builds share MSBuild's nodes (dotnet build's default): only the first pays a node's first Copy.
#   SCENARIO=clean: each build after deleting bin/ and obj/Debug/ (restore kept) instead of touching Layer01.cs: the
#   clean build's time in Copy (every output written).
set -euo pipefail
vol=$1; new=$2; old=$3; runs=${4:-5}; conditions=${5:-lines quiet}; node_reuse=${NODE_REUSE:-false}; scenario=${SCENARIO:-touched}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off
source "$repo/build/bench-trees.sh"
for tree in new old; do
  package=$new; [ $tree = old ] && package=$old
  bench_tree $tree "$package"
  NUGET_PACKAGES="$vol/nuget-$tree" dotnet build "$vol/$tree/Snowball/Snowball.sln" --no-restore -nr:false -v:q >/dev/null
done
bench_floor
logger_new=$(NUGET_PACKAGES="$vol/nuget-new" dotnet msbuild "$vol/new/Snowball/Snowball.App/Snowball.App.csproj" -nologo -getProperty:CopyOnWriteSummaryLogger)
logger_old=$(NUGET_PACKAGES="$vol/nuget-old" dotnet msbuild "$vol/old/Snowball/Snowball.App/Snowball.App.csproj" -nologo -getProperty:CopyOnWriteSummaryLogger)
copy_ms() { awk '/Task Performance Summary:/{s=1;next} s && $2=="ms" && $3=="Copy" {print $1, $4; exit}' ; }
one() { # task condition
  local tree=new logger=$logger_new extra=()
  case $1 in
    old) tree=old; logger=$logger_old ;;
    stock) extra+=(-p:DisableCopyOnWrite=true) ;;
    floor) extra+=(-p:DisableCopyOnWrite=true "-p:CustomBeforeMicrosoftCommonTargets=$floor_targets") ;;
  esac
  if [ "$2" = quiet ]; then extra+=(-v:m); else extra+=(-v:n "-logger:$logger"); fi
  if [ "$scenario" = clean ]; then rm -rf "$vol/$tree/Snowball"/*/bin "$vol/$tree/Snowball"/*/obj/Debug
  else touch "$vol/$tree/Snowball/Snowball.Lib01/Layer01.cs"; fi
  NUGET_PACKAGES="$vol/nuget-$tree" dotnet build "$vol/$tree/Snowball/Snowball.sln" --no-restore "-nr:$node_reuse" -clp:PerformanceSummary "${extra[@]}" 2>&1 | copy_ms
}
orders=("new stock old floor" "stock old floor new" "old floor new stock" "floor new stock old")
{
for i in $(seq 1 "$runs"); do
  for cond in $conditions; do
    for t in ${orders[$(( (i - 1) % 4 ))]}; do echo "$i $cond $t $(one $t $cond)"; done
  done
done
} | tee "$vol/incremental-copy-time.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
same=$([ "$(realpath "$new")" = "$(realpath "$old")" ] && echo 1 || echo 0)
python3 - "$vol/incremental-copy-time.txt" "$same" <<'PY'
# Medians, ranges, ratios to stock, and for each ratio a 90 % bootstrap interval (4,000 resamples of each side's
# builds, fixed seed). When new and old are one package, "ours" pools them.
import random, statistics, sys
times = {}
for line in open(sys.argv[1]):
    run, condition, task, milliseconds = line.split()[:4]
    times.setdefault((condition, task), []).append(int(milliseconds))

def interval(a, b, resamples=4000):
    rng = random.Random(1)
    ratios = sorted(statistics.median(rng.choices(a, k=len(a))) / statistics.median(rng.choices(b, k=len(b))) for _ in range(resamples))
    return ratios[int(0.05 * resamples)], ratios[int(0.95 * resamples)]

for condition in ("quiet", "lines"):
    if (condition, "stock") not in times:
        continue
    if sys.argv[2] == "1":
        times[(condition, "ours")] = times[(condition, "new")] + times[(condition, "old")]
    stock = times[(condition, "stock")]
    for task in ("new", "old", "ours", "floor", "stock"):
        values = times.get((condition, task))
        if values is None:
            continue
        low, high = interval(values, stock)
        print(f"{condition} {task:5} median {statistics.median(values):5.0f} ms  range {min(values)}-{max(values)}  "
              f"ratio to stock {statistics.median(values) / statistics.median(stock):.2f} ({low:.2f}-{high:.2f})  ({len(values)} builds)")
    for task in ("new", "ours"):
        if (condition, task) in times:
            low, high = interval(times[(condition, task)], times[(condition, "floor")])
            print(f"{condition} {task:5} / floor {statistics.median(times[(condition, task)]) / statistics.median(times[(condition, 'floor')]):.2f} ({low:.2f}-{high:.2f})")
PY
