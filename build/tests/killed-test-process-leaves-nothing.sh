#!/usr/bin/env bash
# Proves that a test process killed with SIGKILL mid-run leaves no mount, loop device or scratch folder once the next
# test process has started (its assembly set-up runs build/sweep-test-volumes.sh). As root, after a Release build:
#   build/tests/killed-test-process-leaves-nothing.sh
# 1. starts the main suite's engine tests (they mount XFS/btrfs/ext4 volumes in /var/tmp/cow-tests-<pid>/);
# 2. as soon as the test host has mounted its first volume, kills it with SIGKILL (no assembly cleanup runs);
# 3. shows what it left (findmnt, losetup -a, its folders): the premise, that something was left, must hold;
# 4. runs the next test process (one short test class) and shows that nothing of the killed one is left.
# Exits 0 when nothing is left, 1 otherwise.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
project="$repo/tests/Microsoft.Build.CopyOnWrite.Tests/Microsoft.Build.CopyOnWrite.Tests.csproj"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
[ "$(id -u)" = 0 ] || { echo "needs root (it mounts loop volumes)" >&2; exit 2; }
log="$(mktemp -t killed-test-process-XXXXXX.log)"
before="$(ls -d /var/tmp/cow-tests-* 2>/dev/null | sort)"

dotnet test "$project" -c Release --no-build --nologo --filter "FullyQualifiedName~.Tests.Cloning." > "$log" 2>&1 &
runner=$!
victim=""
for _ in $(seq 1 1200); do # up to 2 minutes for the first mount
  for dir in $(comm -13 <(echo "$before") <(ls -d /var/tmp/cow-tests-* 2>/dev/null | sort)); do
    if findmnt -rn -o TARGET | grep -q "^$dir/"; then victim="${dir##*-}"; break 2; fi
  done
  sleep 0.1
done
if [ -z "$victim" ]; then
  echo "FAIL (premise): no test process mounted a volume in /var/tmp/cow-tests-<pid>/ within 2 minutes"; cat "$log"
  kill "$runner" 2>/dev/null; exit 1
fi
kill -KILL "$victim"
echo "killed test host $victim with SIGKILL mid-run"
wait "$runner" 2>/dev/null
folder="/var/tmp/cow-tests-$victim"
left() {
  echo "findmnt (mounts under $folder):"; findmnt -rn -o TARGET,SOURCE,FSTYPE | grep "^$folder/" | sed 's/^/  /'
  echo "losetup -a (images in $folder):"; losetup -a | grep "$folder/" | sed 's/^/  /'
  echo "its folders:"; ls -d "/var/tmp/cow-tests-$victim" "/mnt/cow-tests-$victim" "${TMPDIR:-/tmp}/cow-tests-$victim" 2>/dev/null | sed 's/^/  /'
}
left
if ! findmnt -rn -o TARGET | grep -q "^$folder/"; then
  echo "FAIL (premise): the killed process left nothing mounted, so this proves nothing"; exit 1
fi

echo "the next test process (its assembly set-up sweeps):"
dotnet test "$project" -c Release --no-build --nologo --filter "FullyQualifiedName~.Tests.Layout.SourceLayoutTests" 2>&1 | grep -E "sweep-test-volumes|Passed!|Failed!" | sed 's/^/  /'
left
if findmnt -rn -o TARGET | grep -q "^$folder" || losetup -a | grep -q "$folder/" \
   || [ -e "/var/tmp/cow-tests-$victim" ] || [ -e "/mnt/cow-tests-$victim" ] || [ -e "${TMPDIR:-/tmp}/cow-tests-$victim" ]; then
  echo "FAIL: the killed test process's volumes or folders outlived it"; exit 1
fi
echo "PASS: nothing of test process $victim is left"
rm -f "$log"
