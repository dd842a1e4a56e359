#!/usr/bin/env bash
# The main job: pack the SDK and its measurement tool, build samples/Snowball as a user would and print the
# build-wide summary logger's own line, then measure the sample with the installed tool, side by side:
# our Copy task against the stock one, on this checkout's file system and (as root) on a fresh XFS volume.
#   1. build/pack.sh: the SDK and the tool (which carries that same SDK package) into artifacts/packages.
#   2. dotnet tool install of the tool from that folder into artifacts/tools (a private package cache, so the
#      packages just made are the ones used).
#   3. dotnet cow-measure doctor on the sample: which folders of its build are on which volume, which clone, what to
#      type where they do not.
#   4. A clean build of the sample where it is, with CopyOnWriteSummaryLogger and no console logger: what it
#      prints is the summary logger's own output.
#   5. A stock build of the sample (MSBuild's own Copy) with a binary log, and dotnet cow-measure predict on it: the
#      forecast of what cloning could give, before anything is measured.
#   6. dotnet cow-measure on the sample, one clean build of each Copy task per volume after a warm-up build (as root,
#      xfsprogs installed first when missing): its table, and where its report and chart are (artifacts/measurement/).
#   7. The closing lines (build/summarize-sample.py): what cloning saved here, in numbers, beside the forecast.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
artifacts="$repo/artifacts"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off
# A private package cache: the packages built a moment ago are the ones used, never older ones of the same version.
export NUGET_PACKAGES="$artifacts/nuget-packages"
rm -rf "$NUGET_PACKAGES/microsoft.build.copyonwrite" "$NUGET_PACKAGES/microsoft.build.copyonwrite.measure"
started=$(date +%s)
echo "== Machine: $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== Packing the SDK and its measurement tool (dotnet cow-measure): build/pack.sh"
"$repo/build/pack.sh" "$artifacts/packages" -v:q
version=$(dotnet msbuild "$repo/src/Microsoft.Build.CopyOnWrite.Measure" -nologo -getProperty:PackageVersion)

echo
echo "== Installing the tool: dotnet tool install Microsoft.Build.CopyOnWrite.Measure --tool-path artifacts/tools"
rm -rf "$artifacts/tools"
dotnet tool install Microsoft.Build.CopyOnWrite.Measure --version "$version" --tool-path "$artifacts/tools" --add-source "$artifacts/packages"

echo
echo "== Can this machine clone what the sample builds? dotnet cow-measure doctor samples/Snowball"
"$artifacts/tools/dotnet-cow-measure" doctor "$repo/samples/Snowball"

echo
echo "== Building the sample on this checkout ($(df -T "$repo/samples" | awk 'NR==2 {print $2}')), clean, with the summary logger"
snowball="$repo/samples/Snowball"
rm -rf "$snowball"/*/bin "$snowball"/*/obj "$snowball/artifacts"
log="$artifacts/sample-build.log"
dotnet restore "$snowball/Snowball.sln" -nologo -v:q
logger=$(dotnet msbuild "$snowball/Snowball.App/Snowball.App.csproj" -nologo -getProperty:CopyOnWriteSummaryLogger)
# -noconlog: the only thing on the console is what the summary logger itself prints; the full log goes to a file.
if ! dotnet build "$snowball/Snowball.sln" --no-restore -nologo -nr:false -noconlog -logger:"$logger" -flp:"logfile=$log;verbosity=normal"; then
  grep -E ': error ' "$log" | head -5
  echo "The sample did not build; full log: $log"
  exit 1
fi

volumes=(--volume "$artifacts/measure-checkout")
if [ "$(id -u)" = 0 ]; then
  # A cloning product's demo should show a clone: as root, install what a fresh XFS volume needs, as .ci/run does.
  if ! command -v mkfs.xfs >/dev/null && command -v apt-get >/dev/null; then
    echo
    echo "== Installing xfsprogs (mkfs.xfs), for a fresh loop-mounted XFS volume"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq xfsprogs >/dev/null) \
      || echo "Could not install xfsprogs (apt-get failed above); measuring on this checkout only."
  fi
  if command -v mkfs.xfs >/dev/null; then
    volumes+=(--volume xfs)
  else
    echo
    echo "Measuring on this checkout only: no mkfs.xfs, and no apt-get to install it. Install xfsprogs, then run this again."
  fi
else
  echo
  echo "Measuring on this checkout only: a fresh XFS volume, where the sample's copies are clones, needs root."
  echo "To see it: sudo ./build/run-sample.sh"
fi

echo
echo "== Forecast from a stock build of the sample (MSBuild's own Copy): dotnet cow-measure predict"
rm -rf "$snowball"/*/bin "$snowball"/*/obj "$snowball/artifacts"
dotnet build "$snowball/Snowball.sln" -nologo -nr:false -v:q -p:DisableCopyOnWrite=true -bl:"$artifacts/sample-stock.binlog"
"$artifacts/tools/dotnet-cow-measure" predict "$artifacts/sample-stock.binlog" --json "$artifacts/forecast.json"

echo
echo "== Measuring the sample: dotnet cow-measure samples/Snowball/Snowball.sln ${volumes[*]}"
rm -rf "$artifacts/measurement"
"$artifacts/tools/dotnet-cow-measure" "$snowball/Snowball.sln" --root "$repo/samples" "${volumes[@]}" \
  --runs 1 --no-incremental --loop-dir "$artifacts/measure-loops" --out "$artifacts/measurement"

echo
echo "== What cloning saved on this machine"
python3 "$repo/build/summarize-sample.py" "$artifacts/measurement/measurement.json" "$artifacts/forecast.json"

echo
echo "== Done in $(( $(date +%s) - started )) s; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
