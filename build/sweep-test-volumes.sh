#!/usr/bin/env bash
# Removes what test processes that are gone left behind: their loop-mounted volumes and scratch folders.
#
# Each test process makes its volumes and folders under names that end in its process id (cow-tests-<pid> in
# /var/tmp, /mnt and the temp folder; cow-parity-<pid>; cow-measure-tool-tests-<pid>) and removes them in its
# assembly cleanup, which a process killed with SIGKILL (or stopped by Stryker, or by a hang timeout) never runs.
# For every such folder whose process no longer exists this unmounts what is mounted under it (umount -l, deepest
# first), detaches the loop devices whose image is in it and deletes it (rm --one-file-system: never into a mount
# that could not be unmounted). Folders of live processes (another lane, another checkout's run) are left alone.
#
# Run at the start of every test process (TestAssembly.Initialize, through StaleTestVolumes) and at the end of
# build/test.sh and build/mutation-score.sh. Prints one line per folder swept; needs root to unmount.
set -uo pipefail
roots=(/var/tmp /mnt /tmp /dev/shm)
[ -n "${TMPDIR:-}" ] && roots+=("${TMPDIR%/}")
declare -A seen=()
for root in "${roots[@]}"; do
  [ -n "${seen[$root]:-}" ] && continue
  seen[$root]=1
  for dir in "$root"/cow-tests-* "$root"/cow-parity-* "$root"/cow-measure-tool-tests-*; do
    [ -d "$dir" ] || continue
    pid="${dir##*-}"
    [[ "$pid" =~ ^[0-9]+$ ]] || continue
    [ -e "/proc/$pid" ] && continue
    mounts=0 loops=0
    # Deepest first: a reverse sort puts /a/b before /a.
    while IFS= read -r target; do
      umount -l "$target" 2>/dev/null && mounts=$((mounts + 1))
    done < <(findmnt -rn -o TARGET | awk -v d="$dir" '$0 == d || index($0, d "/") == 1' | sort -r)
    while read -r device image; do
      losetup -d "$device" 2>/dev/null && loops=$((loops + 1))
    done < <(losetup -nl -O NAME,BACK-FILE 2>/dev/null | awk -v d="$dir" 'index($2, d "/") == 1 { print $1, $2 }')
    rm -rf --one-file-system "$dir" 2>/dev/null
    if [ -e "$dir" ]; then
      echo "sweep-test-volumes: could not remove all of $dir (process $pid is gone; $mounts unmounted, $loops loop devices detached)" >&2
    else
      echo "sweep-test-volumes: removed $dir (process $pid is gone; $mounts unmounted, $loops loop devices detached)"
    fi
  done
done
exit 0
