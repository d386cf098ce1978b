#!/usr/bin/env bash
# Runs a command inside a Debian root made by contrib/scripts/debian-root.sh, with /proc, /dev,
# /dev/pts, /sys (recursive: slurmd needs the cgroup tree under it) and this repository mounted
# at the same path as outside, so a build or a test sees the same paths inside and out.
#   contrib/scripts/in-root.sh ROOT CMD [ARG...]
# CMD starts in the current directory when that is inside the repository, in / otherwise.
# Exits with CMD's status. Needs root (re-runs itself with sudo otherwise).
#
# The mounts are made in a private mount namespace (unshare): the host never sees them, two
# commands in the same root at once do not unmount each other's, and they go away with the
# namespace even if this script is killed. The trap still unmounts them, in reverse order, on
# every exit: a mount left in a root would let the rm -rf of a stale root reach the repository.
set -euo pipefail

usage() {
  sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
  exit "${1:-2}"
}
case "${1:-}" in -h|--help) usage 0 ;; esac
[ $# -ge 2 ] || usage
[ -d "$1" ] || { echo "spiderflow: in-root.sh: $1 is not a directory" >&2; exit 2; }
root=$(cd "$1" && pwd -P)
shift
[ -x "$root/bin/sh" ] || { echo "spiderflow: in-root.sh: $root has no /bin/sh: not a Debian root" >&2; exit 2; }
self=$(cd "$(dirname "$0")" && pwd -P)/$(basename "$0")
if [ "$(id -u)" -ne 0 ]; then
  exec sudo "$self" "$root" "$@"
fi
if [ -z "${SF_IN_ROOT_NAMESPACE:-}" ]; then
  exec env SF_IN_ROOT_NAMESPACE=1 unshare --mount --propagation private "$self" "$root" "$@"
fi

# The repository this script belongs to (no git here: root running git in a user's clone
# trips git's safe.directory check).
repo=$(cd "$(dirname "$self")/../.." && pwd -P)

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[i]}" 2>/dev/null || umount -R -l "${mounted[i]}" 2>/dev/null ||
      echo "spiderflow: in-root.sh: could not unmount ${mounted[i]}" >&2
  done
}
trap cleanup EXIT

bind() { # bind SOURCE TARGET-INSIDE-ROOT [--rbind]
  mkdir -p "$root$2"
  mount "${3:---bind}" "$1" "$root$2"
  mounted+=("$root$2")
}
mkdir -p "$root/proc"
mount -t proc proc "$root/proc"
mounted+=("$root/proc")
bind /dev /dev
bind /dev/pts /dev/pts
bind /sys /sys --rbind
bind "$repo" "$repo"

here=/
case "$(pwd -P)/" in "$repo"/*) here=$(pwd -P) ;; esac
# In the background, so that a TERM or an INT sent to this script reaches the command too and
# the mounts come off only once it has ended (0<&0: a background command's stdin stays ours).
env -u SF_IN_ROOT_NAMESPACE chroot "$root" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$here" "$@" 0<&0 &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM INT HUP
rc=0
wait "$child" || rc=$?
while kill -0 "$child" 2>/dev/null; do # a trapped signal ends wait early: wait again
  rc=0
  wait "$child" || rc=$?
done
exit "$rc"
