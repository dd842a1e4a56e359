#!/usr/bin/env bash
# Time in Copy (-clp:PerformanceSummary) of incremental builds of samples/Snowball with Snowball.Lib01/Layer01.cs
# touched before each build (63 Copy calls; Lib01.dll and .pdb go over existing destinations in every project after it),
# three tasks in rotation, each build in a fresh process: "new" (the SDK package in PKG_NEW), "old" (the one in PKG_OLD,
# e.g. a previous commit's, to compare two versions of ours in one run) and "stock" (MSBuild's own Copy, in the new
# tree), under two logging conditions:
#   quiet: -v:m and no other logger: MSBuild tells the task nobody takes its report lines, so none are made
#   lines: -v:n and the summary logger: every line made and sent, as dotnet-cow-measure builds
# Each task has its own copy of samples/ and package cache in VOLUME_FOLDER (a folder on the volume to measure).
# Prints "RUN CONDITION TASK MILLISECONDS CALLS" per build, then medians, ranges and the ratio to stock.
# usage: build/incremental-copy-time.sh VOLUME_FOLDER PKG_NEW PKG_OLD [RUNS]   (build/pack.sh FOLDER makes a PKG)
set -euo pipefail
vol=$1; new=$2; old=$3; runs=${4:-5}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off
setup() { # tree package
  local tree="$vol/$1"
  rm -rf "$tree"; mkdir -p "$tree"; cp -r "$repo/samples/." "$tree/"
  rm -rf "$tree/Snowball"/*/bin "$tree/Snowball"/*/obj
  printf '<configuration><packageSources><clear /><add key="local" value="%s" /></packageSources></configuration>\n' "$2" > "$tree/NuGet.config"
  rm -rf "$vol/nuget-$1"
  NUGET_PACKAGES="$vol/nuget-$1" dotnet restore "$tree/Snowball/Snowball.sln" -v:q >/dev/null
  NUGET_PACKAGES="$vol/nuget-$1" dotnet build "$tree/Snowball/Snowball.sln" --no-restore -nr:false -v:q >/dev/null
}
setup new "$new"; setup old "$old"
logger_new=$(NUGET_PACKAGES="$vol/nuget-new" dotnet msbuild "$vol/new/Snowball/Snowball.App/Snowball.App.csproj" -nologo -getProperty:CopyOnWriteSummaryLogger)
logger_old=$(NUGET_PACKAGES="$vol/nuget-old" dotnet msbuild "$vol/old/Snowball/Snowball.App/Snowball.App.csproj" -nologo -getProperty:CopyOnWriteSummaryLogger)
copy_ms() { awk '/Task Performance Summary:/{s=1;next} s && $2=="ms" && $3=="Copy" {print $1, $4; exit}' ; }
one() { # task condition
  local tree=new logger=$logger_new extra=()
  case $1 in old) tree=old; logger=$logger_old ;; stock) extra+=(-p:DisableCopyOnWrite=true) ;; esac
  if [ "$2" = quiet ]; then extra+=(-v:m); else extra+=(-v:n "-logger:$logger"); fi
  touch "$vol/$tree/Snowball/Snowball.Lib01/Layer01.cs"
  NUGET_PACKAGES="$vol/nuget-$tree" dotnet build "$vol/$tree/Snowball/Snowball.sln" --no-restore -nr:false -clp:PerformanceSummary "${extra[@]}" 2>&1 | copy_ms
}
orders=("new stock old" "stock old new" "old new stock")
{
for i in $(seq 1 "$runs"); do
  for cond in lines quiet; do
    for t in ${orders[$(( (i - 1) % 3 ))]}; do echo "$i $cond $t $(one $t $cond)"; done
  done
done
} | tee "$vol/incremental-copy-time.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$vol/incremental-copy-time.txt" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    run, condition, task, milliseconds = line.split()[:4]
    times.setdefault((condition, task), []).append(int(milliseconds))
for condition in ("quiet", "lines"):
    stock = statistics.median(times[(condition, "stock")])
    for task in ("new", "old", "stock"):
        values = times[(condition, task)]
        print(f"{condition} {task:5} median {statistics.median(values):5.0f} ms  range {min(values)}-{max(values)}  ratio to stock {statistics.median(values) / stock:.2f}  ({len(values)} builds)")
PY
