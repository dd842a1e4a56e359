# Sourced by the scripts that measure on fresh loop-mounted file systems (benchmark.sh, measure-links.sh):
#   scratch_volumes_begin NAME          a work folder, /var/tmp/NAME-PID (in $work), removed with every volume
#                                       mounted in it however the script ends (exit, Ctrl-C, TERM)
#   scratch_volume KIND GIB [OPTIONS]   a sparse GIB GiB image of KIND (xfs with reflink, btrfs, ext4) mounted at
#                                       $work/KIND, with ",OPTIONS" added to the loop mount's options
scratch_volumes_begin() {
  work="/var/tmp/$1-$$"
  _scratch_script="$(basename "$0")"
  _scratch_mounted=()
  trap _scratch_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  mkdir -p "$work"
}

scratch_volume() {
  local kind="$1" gib="$2" options="${3:-}"
  local image="$work/$kind.img" mountpoint="$work/$kind"
  truncate -s "${gib}G" "$image"
  case "$kind" in
    xfs) mkfs.xfs -q -f -m reflink=1 "$image" ;;
    btrfs) mkfs.btrfs -q -f "$image" >/dev/null ;;
    ext4) mkfs.ext4 -q -F "$image" ;;
    *) echo "$_scratch_script: no file system kind $kind (xfs, btrfs, ext4)" >&2; return 2 ;;
  esac
  mkdir -p "$mountpoint"
  _scratch_mounted+=("$mountpoint")
  mount -o "loop${options:+,$options}" "$image" "$mountpoint"
}

_scratch_cleanup() {
  local status=$?
  trap - EXIT INT TERM
  for mountpoint in "${_scratch_mounted[@]}"; do
    umount "$mountpoint" 2>/dev/null || umount -l "$mountpoint" 2>/dev/null || echo "$_scratch_script: could not unmount $mountpoint" >&2
  done
  rm -rf "$work"
  exit "$status"
}
