#!/usr/bin/env bash
# The main job: build the SDK, build samples/Snowball with it, and show what it cloned and saved.
# 1. Packs the SDK into artifacts/packages (where samples/NuGet.config looks).
# 2. Builds the sample where it is, on this checkout's file system.
# 3. As root with xfsprogs: builds it again on a scratch XFS volume (a loop-mounted image under artifacts/),
#    where copies become clones, and shows the file system's own evidence and the disk space saved.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
artifacts="$repo/artifacts"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off
# A private package cache: the package built a moment ago is the one used, never an older one of the same version.
export NUGET_PACKAGES="$artifacts/nuget-packages"
rm -rf "$NUGET_PACKAGES/microsoft.build.copyonwrite"

echo "== Packing the SDK"
dotnet pack "$repo/src/Microsoft.Build.CopyOnWrite" -c Release -nologo -v:q -o "$artifacts/packages"
ls "$artifacts"/packages/Microsoft.Build.CopyOnWrite.*.nupkg

# Builds the sample in $1 from clean and prints our summary lines and their totals.
build_sample() {
  local samples="$1" label="$2" log
  log="$(mktemp)"
  rm -rf "$samples"/Snowball/*/bin "$samples"/Snowball/*/obj "$samples"/Snowball/artifacts
  echo
  echo "== Building the sample on $label ($(df -T "$samples" | awk 'NR==2 {print $2}'), clean build)"
  local start end
  start=$(date +%s.%N)
  (cd "$samples/Snowball" && dotnet build Snowball.sln -nr:false -v:n) > "$log" 2>&1 || { tail -50 "$log"; exit 1; }
  end=$(date +%s.%N)
  grep -o 'CopyOnWrite: .*' "$log" | sort | uniq -c | sort -rn | head -8
  echo "   ... $(grep -c 'CopyOnWrite: ' "$log") summary lines in all"
  awk '
    /CopyOnWrite: / {
      if (match($0, /cloned [0-9]+ files?/)) { split(substr($0, RSTART, RLENGTH), a, " "); cloned += a[2] }
      if (match($0, /copied [0-9]+ files?/)) { split(substr($0, RSTART, RLENGTH), a, " "); copied += a[2] }
    }
    END { printf "   Totals: %d files cloned, %d files copied\n", cloned, copied }' "$log"
  awk -v s="$start" -v e="$end" 'BEGIN { printf "   Build time: %.1f s\n", e - s }'
  rm -f "$log"
}

build_sample "$repo/samples" "this checkout"

if [ "$(id -u)" != 0 ] || ! command -v mkfs.xfs >/dev/null; then
  echo
  echo "Skipping the XFS demonstration: it needs root and xfsprogs (apt-get install xfsprogs) to make a loop-mounted volume."
  exit 0
fi

image="$artifacts/xfs-demo.img" mountpoint="$artifacts/xfs-demo"
cleanup() { umount "$mountpoint" 2>/dev/null || true; rm -f "$image"; rmdir "$mountpoint" 2>/dev/null || true; }
trap cleanup EXIT
cleanup
mkdir -p "$mountpoint"
truncate -s 4G "$image"
mkfs.xfs -q -f -m reflink=1 "$image"
mount -o loop "$image" "$mountpoint"
# Copied without build outputs: deleting files on XFS frees their space lazily, which would skew the reading below.
tar -C "$repo" --exclude=bin --exclude=obj --exclude=artifacts -cf - samples | tar -C "$mountpoint" -xf -
# The copy's NuGet.config points at ../artifacts/packages relative to itself: point it back at ours.
sed -i "s#value=\"[^\"]*\"#value=\"$artifacts/packages\"#" "$mountpoint/samples/NuGet.config"
sync
used_before=$(df --output=used -B1 "$mountpoint" | tail -1)
build_sample "$mountpoint/samples" "a scratch XFS volume"
sync
used_after=$(df --output=used -B1 "$mountpoint" | tail -1)
outputs=$(cd "$mountpoint/samples/Snowball" && find . -path '*/bin/*' -type f -o -path './artifacts/*' -type f | xargs -d '\n' du -cb --apparent-size | tail -1 | cut -f1)
largest=$(cd "$mountpoint/samples/Snowball/artifacts" && find . -type f -printf '%s %p\n' | sort -rn | head -1 | cut -d' ' -f2-)
echo
echo "== What cloning saved on XFS"
echo "   Files in bin/ and artifacts/: $(numfmt --to=iec-i --suffix=B "$outputs") (their apparent size)"
echo "   Disk space the whole build used (obj/ included): $(numfmt --to=iec-i --suffix=B $((used_after - used_before)))"
echo "   The file system's own evidence for the largest staged artifact ($largest): filefrag -v reports"
filefrag -v "$mountpoint/samples/Snowball/artifacts/$largest" | awk 'NR>3 && /:/ {print "     " $0}' | head -4
