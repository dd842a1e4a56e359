#!/usr/bin/env bash
# Benchmarks, side by side in one run:
#   1. the clone engine against File.Copy and a byte copy (XFS with reflink, btrfs, ext4), warm process, and where
#      a clone's time goes per file (creating the file at its name, or unnamed and then named);
#   2. our Copy task against MSBuild's own (XFS, ext4), warm process, per-file work;
#   3. a fresh `dotnet msbuild` process copying 1 file and 200 files, ours (the packed SDK) against stock, on XFS,
#      btrfs and ext4, alternating rounds: the "Copy" row of -clp:PerformanceSummary and the JIT's share;
#   4. the sample's clean and incremental builds on XFS, time in Copy, ours against stock (the measurement tool), and the
#      same builds with half the projects on each task, every Copy call timed and compared with itself.
#   5. one Copy call in a warm process, ours against MSBuild's own (XFS, ext4): 1, 20 or 200 files of 1 KiB or 1 MiB, into
#      an empty folder or over files already there, with loggers that take low-importance messages or only normal ones.
# Makes its own loop-mounted file systems (sparse images under /var/tmp), so it must run as root; unmounts and
# deletes them at the end, also on failure or Ctrl+C. Writes the report to docs/results/benchmarks.md (or --out FILE) and
# prints it, and every raw iteration to artifacts/benchmarks/raw-measurements.md. Commits nothing. Needs a quiet machine for numbers worth quoting: the report records the load.
#
#   sudo ./build/benchmark.sh                 # the full run (about 35-40 minutes on a 2-core VM; section 5 about 10 of them)
#   sudo ./build/benchmark.sh --smoke --out /tmp/smoke.md   # a quick check of the harness (2 rounds, 1 sample run); numbers not for quoting
#   sudo ./build/benchmark.sh --only fresh --rounds 20      # or --only engine|naming|task|calls|sample
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
project="$repo/tests/Microsoft.Build.CopyOnWrite.Benchmarks/Microsoft.Build.CopyOnWrite.Benchmarks.csproj"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off

if [[ $EUID -ne 0 ]]; then
  echo "benchmark.sh: run as root: it makes and mounts loop file systems (XFS, btrfs, ext4)." >&2
  exit 1
fi
for tool in mkfs.xfs mkfs.btrfs mkfs.ext4 filefrag fstrim; do
  command -v "$tool" >/dev/null || { echo "benchmark.sh: $tool is missing (xfsprogs, btrfs-progs, e2fsprogs, util-linux)." >&2; exit 1; }
done

# 50 byte copies of 256 MiB need 12.5 GiB plus the source and file system overhead; the images are sparse,
# so only what is written takes host disk space, and fstrim gives it back after each benchmark case.
image_gib="${COW_BENCH_IMAGE_GIB:-20}"
source "$repo/build/scratch-volumes.sh"
scratch_volumes_begin cow-bench
# btrfs turns on asynchronous discard by itself on a loop device (discard=async): files deleted between
# measurements would then be trimmed in the background during later ones, on whichever method runs then.
# All three file systems are trimmed explicitly instead (fstrim, outside the measurements).
scratch_volume xfs "$image_gib"
scratch_volume btrfs "$image_gib" nodiscard
scratch_volume ext4 "$image_gib"
export COW_BENCH_XFS="$work/xfs" COW_BENCH_BTRFS="$work/btrfs" COW_BENCH_EXT4="$work/ext4"

only=all smoke=false
for ((i = 1; i <= $#; i++)); do
  case "${!i}" in
    --only) j=$((i + 1)); only="${!j}" ;;
    --smoke) smoke=true ;;
  esac
done

dotnet build "$project" -c Release -nologo -v:q
cd "$repo" # global.json here picks the SDK whose MSBuild (and stock Copy task) the Locator loads
SECONDS=0
status=0

# The SDK as users get it (precompiled task assemblies included), for the fresh-process runs and the sample.
package_dir="$repo/artifacts/benchmarks/package"
rm -rf "$package_dir"
dotnet pack "$repo/src/Microsoft.Build.CopyOnWrite/Microsoft.Build.CopyOnWrite.csproj" -c Release -o "$package_dir" -nologo -v:q
package="$(ls "$package_dir"/Microsoft.Build.CopyOnWrite.*.nupkg)"

sample_args=()
if [[ "$only" == all || "$only" == sample ]]; then
  sample_out="$repo/artifacts/benchmarks/sample"
  sample_runs=3
  [[ "$smoke" == true ]] && sample_runs=1
  dotnet run -c Release --project "$repo/src/Microsoft.Build.CopyOnWrite.Measure" -- samples/Snowball/Snowball.sln \
    --root samples --runs "$sample_runs" --volume xfs --touch Snowball/Snowball.Lib01/Layer01.cs \
    --package-dir "$package_dir" --loop-dir "$work/measure" --out "$sample_out"
  sample_args=(--sample "$sample_out/measurement.json" --samples "$repo/samples")
fi

# The builds above leave a compiler server and MSBuild nodes waiting for more work: stop them, so that every dotnet
# process the report finds alive is someone else's.
dotnet build-server shutdown >/dev/null 2>&1 || true
dotnet "$repo/tests/Microsoft.Build.CopyOnWrite.Benchmarks/bin/Release/net10.0/Microsoft.Build.CopyOnWrite.Benchmarks.dll" \
  --out "$repo/docs/results/benchmarks.md" --artifacts "$repo/artifacts/benchmarks" --package "$package" "${sample_args[@]}" "$@" || status=$?
echo "benchmark.sh: benchmarks ran for $((SECONDS / 60)) min $((SECONDS % 60)) s (exit code $status)."
exit "$status"
