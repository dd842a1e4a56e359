#!/usr/bin/env bash
# Links against clones (issue #43, docs/links.md): a `dotnet new` solution (console app, class library, Newtonsoft.Json)
# with the four CreateHardLinksFor...IfPossible properties in Directory.Build.props, its package cache on the same fresh
# loop-mounted volume (XFS with reflink, then btrfs), built clean in alternating rounds of:
#   links   MSBuild's own Copy making the links asked for (DisableCopyOnWrite=true)
#   clones  our Copy with CopyOnWriteInsteadOfLinks=true
# Per build: wall time of `dotnet build --no-restore`, and the disk the outputs took by the file system's own accounting
# (XFS: the change in `df` used bytes across the build, after sync; btrfs: that too, and `btrfs filesystem du` of the
# outputs' Exclusive bytes). Prints a markdown table of medians and ranges. Root only (loop mounts); packs the SDK from
# this checkout with build/pack.sh first. Commits nothing.
#
#   sudo ./build/measure-links.sh            # 5 rounds per file system (about 10 minutes on a 2-core VM)
#   sudo ./build/measure-links.sh --rounds 3
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0

rounds=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    *) echo "measure-links.sh: unknown argument $1 (only --rounds N)" >&2; exit 2 ;;
  esac
done
if [[ $EUID -ne 0 ]]; then
  echo "measure-links.sh: run as root: it makes and mounts loop file systems (XFS, btrfs)." >&2
  exit 1
fi
for tool in mkfs.xfs mkfs.btrfs btrfs; do
  command -v "$tool" >/dev/null || { echo "measure-links.sh: $tool is missing (xfsprogs, btrfs-progs)." >&2; exit 1; }
done

source "$repo/build/scratch-volumes.sh"
scratch_volumes_begin cow-links

echo "== Packing the SDK from this checkout" >&2
"$repo/build/pack.sh" "$work/packages" >/dev/null
version="$(ls "$work/packages" | sed -n 's/^Microsoft\.Build\.CopyOnWrite\.\([0-9][^/]*\)\.nupkg$/\1/p')"
sdk_version="$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$repo/global.json" | head -1)"

make_solution() { # folder
  local root="$1"
  mkdir -p "$root"
  cat > "$root/NuGet.config" <<EOF
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="copy-on-write" value="$work/packages" />
    <add key="nuget.org" value="https://api.nuget.org/v3/index.json" protocolVersion="3" />
  </packageSources>
</configuration>
EOF
  echo "{ \"sdk\": { \"version\": \"$sdk_version\", \"rollForward\": \"latestFeature\" }, \"msbuild-sdks\": { \"Microsoft.Build.CopyOnWrite\": \"$version\" } }" > "$root/global.json"
  (cd "$root" && dotnet new sln -n Links >/dev/null && dotnet new console -n App -o App --no-restore >/dev/null \
    && dotnet new classlib -n Lib -o Lib --no-restore >/dev/null && dotnet add App/App.csproj reference Lib/Lib.csproj >/dev/null \
    && dotnet sln add App/App.csproj Lib/Lib.csproj >/dev/null)
  sed -i 's#</Project>#  <ItemGroup><PackageReference Include="Newtonsoft.Json" Version="13.0.3" /></ItemGroup>\n</Project>#' "$root/App/App.csproj"
}

write_props() { # folder mode
  local extra='<CopyOnWriteInsteadOfLinks>true</CopyOnWriteInsteadOfLinks>'
  [[ "$2" == links ]] && extra='<DisableCopyOnWrite>true</DisableCopyOnWrite>'
  cat > "$1/Directory.Build.props" <<EOF
<Project>
  <Sdk Name="Microsoft.Build.CopyOnWrite" />
  <PropertyGroup>
    <CreateHardLinksForCopyLocalIfPossible>true</CreateHardLinksForCopyLocalIfPossible>
    <CreateHardLinksForCopyFilesToOutputDirectoryIfPossible>true</CreateHardLinksForCopyFilesToOutputDirectoryIfPossible>
    <CreateHardLinksForAdditionalFilesIfPossible>true</CreateHardLinksForAdditionalFilesIfPossible>
    <CreateHardLinksForPublishFilesIfPossible>true</CreateHardLinksForPublishFilesIfPossible>
    $extra
  </PropertyGroup>
</Project>
EOF
}

used_bytes() { sync; [[ "$2" == btrfs ]] && btrfs filesystem sync "$1" >/dev/null; df -B1 --output=used "$1" | tail -1 | tr -d ' '; }

results="$work/results.tsv"
: > "$results"
for kind in xfs btrfs; do
  scratch_volume "$kind" 2
  mountpoint="$work/$kind"
  root="$mountpoint/solution"
  export NUGET_PACKAGES="$mountpoint/nuget-packages"
  make_solution "$root"
  write_props "$root" clones
  (cd "$root" && dotnet restore >/dev/null)
  # One build of each mode first, not counted: the SDK's first build in a folder does more (workload manifests, caches).
  for round in $(seq 0 "$rounds"); do
    for mode in links clones; do
      write_props "$root" "$mode"
      rm -rf "$root"/App/bin "$root"/Lib/bin "$root"/App/obj/Debug "$root"/Lib/obj/Debug
      before="$(used_bytes "$mountpoint" "$kind")"
      start="$(date +%s.%N)"
      (cd "$root" && dotnet build --no-restore -nologo -nr:false -v:q >/dev/null)
      end="$(date +%s.%N)"
      after="$(used_bytes "$mountpoint" "$kind")"
      exclusive=""
      if [[ $kind == btrfs ]]; then
        exclusive="$(btrfs filesystem du -s --raw "$root"/App/bin "$root"/Lib/bin "$root"/App/obj/Debug "$root"/Lib/obj/Debug | awk 'NR > 1 { sum += $2 } END { print sum }')"
      fi
      links="$(find "$root"/App/bin "$root"/Lib/bin -type f -links +1 | wc -l)"
      [[ $round -gt 0 ]] && printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$mode" "$(echo "$end - $start" | bc)" "$((after - before))" "$exclusive" "$links" >> "$results"
      echo "$kind round $round $mode: $(echo "$end - $start" | bc) s, df +$((after - before)) B${exclusive:+, btrfs du exclusive $exclusive B}, $links files in bin with more than one name" >&2
    done
  done
done

python3 - "$results" "$rounds" <<'EOF'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
print(f"Rounds: {sys.argv[2]} per mode, alternating, after one uncounted build of each. Clean build (bin/ and obj/Debug removed, restore kept).")
print()
print("| file system | mode | build time, median (min-max) | disk used by the build, df, median (min-max) | btrfs du exclusive, median | files in bin/ with 2+ names |")
print("|---|---|---|---|---|---|")
for kind in ("xfs", "btrfs"):
    for mode in ("links", "clones"):
        mine = [r for r in rows if r[0] == kind and r[1] == mode]
        if not mine:
            continue
        t = [float(r[2]) for r in mine]; d = [int(r[3]) for r in mine]
        ex = [int(r[4]) for r in mine if r[4]]
        kib = lambda b: f"{b / 1024:.0f} KiB"
        print(f"| {kind} | {mode} | {statistics.median(t):.2f} s ({min(t):.2f}-{max(t):.2f}) | {kib(statistics.median(d))} ({kib(min(d))}-{kib(max(d))}) | {kib(statistics.median(ex)) if ex else '-'} | {mine[-1][5]} |")
EOF
