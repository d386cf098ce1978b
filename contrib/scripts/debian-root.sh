#!/usr/bin/env bash
# Makes, or reuses, a Debian root holding another Slurm version's daemons and headers, for the
# tests and builds that must run against that version (issue 30: 22.05 on the host, 24.11 and
# 26.05 in roots).
#   contrib/scripts/debian-root.sh [--runtime] SUITE [CACHE_DIR]
#     --runtime  a root as a site has it before installing our packages: Slurm's daemons and
#                clients, munge and python3 only, no build packages (tests/packaging installs
#                the .deb files there, so a Depends we forgot shows); CACHE_DIR/SUITE-runtime
#     SUITE      trixie (Slurm 24.11) or forky (Slurm 26.05); another Debian suite name is
#                tried as it is (bookworm: the host's own Slurm 22.05)
#     CACHE_DIR  where roots live; default ${SF_ROOT_CACHE:-/var/cache/spiderflow/roots}, outside
#                the clone, so that a CI run in a fresh clone reuses the root of the last run
# The root is CACHE_DIR/SUITE (without --runtime). Inside it: debootstrap --variant=minbase, then
# slurmctld slurmd slurm-client libslurm-dev munge libmunge-dev python3 and the build and test
# packages of contrib/scripts/install-deps.sh --list, less mariadb-server, mariadb-client,
# python3-torch, the packaging tools, prometheus and chromium (the roots run Slurm-facing tests
# only, not the broker's on MariaDB, the PyTorch world, make deb, promtool or the status page in a
# browser; libmariadb-dev stays, so a plain ./configure works there).
# The mirror is the host's own (the deb entry for the host's Debian suite in
# /etc/apt/sources.list or /etc/apt/sources.list.d/*.sources); SF_DEBIAN_MIRROR overrides it.
# A stamp file in the root (.spiderflow-root) records the suite, the Slurm version installed and a
# hash of the package list: a root whose stamp matches (and whose packages are all installed) is
# reused in seconds; a missing, half-made (no stamp) or stale root is removed and made again
# (debootstrap 1-3 min, apt 1-3 min). flock on CACHE_DIR/SUITE.lock: one run at a time per root.
# Progress lines start with "spiderflow:" (on stderr); the root's path is the last line (stdout):
#   root=$(contrib/scripts/debian-root.sh trixie)
#   contrib/scripts/in-root.sh "$root" slurmctld -V
# debootstrap's and apt's output go to CACHE_DIR/SUITE.log. Needs root (re-runs itself with sudo).
set -euo pipefail

# Bump when the way a root is made changes, so that every cached root is made again.
recipe=1

usage() {
  sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
  exit "${1:-2}"
}
say() { echo "spiderflow: $*" >&2; }
die() { say "$*"; exit 1; }

runtime=""
[ "${1:-}" = --runtime ] && { runtime=-runtime; shift; }
case "${1:-}" in -h|--help) usage 0 ;; "" | -*) usage ;; esac
[ $# -le 2 ] || usage
suite=$1
[[ $suite =~ ^[a-z][a-z0-9-]*$ ]] || die "not a Debian suite name: $suite"
cache=${2:-${SF_ROOT_CACHE:-/var/cache/spiderflow/roots}}

here=$(cd "$(dirname "$0")" && pwd -P)
if [ "$(id -u)" -ne 0 ]; then
  exec sudo --preserve-env=SF_ROOT_CACHE,SF_DEBIAN_MIRROR "$here/$(basename "$0")" ${runtime:+--runtime} "$@"
fi

mkdir -p "$cache"
cache=$(cd "$cache" && pwd -P)
root=$cache/$suite$runtime
log=$root.log
stamp=$root/.spiderflow-root

exec 9>"$root.lock"
if ! flock -n 9; then
  say "another run holds $root.lock: waiting for it"
  flock 9
fi

# The package set and its hash: install-deps.sh's list, our Slurm packages, less the skipped ones
# (the packaging tools too: packages are built on the host, for its own Debian; promtool and
# chromium: the monitoring tests run on the host).
skip=(mariadb-server mariadb-client python3-torch debhelper lintian rpm prometheus chromium)
if [ -n "$runtime" ]; then
  packages=(munge python3 slurm-client slurmctld slurmd)
else
  mapfile -t packages < <({ "$here/install-deps.sh" --list
                            printf '%s\n' slurmctld slurmd slurm-client libslurm-dev munge libmunge-dev python3
                          } | grep -vxF -f <(printf '%s\n' "${skip[@]}") | sort -u)
fi
[ ${#packages[@]} -gt 0 ] || die "install-deps.sh --list gave no packages"
hash=$(printf '%s\n' "${packages[@]}" | sha256sum | cut -c1-16)

write_hosts() {
  local name
  name=$(hostname)
  printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' "$name" \
    > "$root/etc/hosts"
}

# Says why the root cannot be reused (on stdout), or nothing when it can.
stale_reason() {
  [ -d "$root" ] || { echo "no root yet"; return; }
  [ -f "$stamp" ] || { echo "no stamp: half-made"; return; }
  local want have slurm
  want=$(printf 'suite=%s\nrecipe=%s\npackages=%s\n' "$suite" "$recipe" "$hash")
  have=$(grep -v '^slurm=' "$stamp" || true)
  [ "$want" = "$have" ] ||
    { echo "stale: stamp has $(echo "$have" | grep -vxF "$want" | paste -sd' '), want $(echo "$want" | grep -vxF "$have" | paste -sd' ')"; return; }
  slurm=$(chroot "$root" dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
  grep -qxF "slurm=$slurm" "$stamp" || { echo "Slurm there is now '${slurm}', not the stamp's $(grep '^slurm=' "$stamp")"; return; }
  local missing
  missing=$(chroot "$root" dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${packages[@]}" 2>&1 |
              grep -v '^ii ' || true)
  [ -z "$missing" ] || { echo "packages not installed: $(echo "$missing" | tr '\n' ' ')"; return; }
}

# The mirror the host itself uses for its own Debian suite.
host_mirror() {
  if [ -n "${SF_DEBIAN_MIRROR:-}" ]; then echo "$SF_DEBIAN_MIRROR"; return; fi
  local id codename
  id=$(. /etc/os-release && echo "${ID:-}")
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [ "$id" = debian ] && [ -n "$codename" ] ||
    die "the host is not Debian ($id): set SF_DEBIAN_MIRROR to a Debian mirror's URL"
  local sources=()
  [ -f /etc/apt/sources.list ] && sources+=(/etc/apt/sources.list)
  local f
  for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sources+=("$f")
  done
  [ ${#sources[@]} -gt 0 ] || die "no apt sources on the host: set SF_DEBIAN_MIRROR"
  awk -v cn="$codename" '
    function flush() {
      if (!found && enabled && types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " cn " ") && uris != "") {
        split(uris, u, " "); print u[1]; found = 1
      }
      types = uris = suites = ""; enabled = 1
    }
    FNR == 1 { flush() }
    FILENAME ~ /\.sources$/ {
      if ($0 ~ /^[ \t]*#/) next
      if ($0 ~ /^[ \t]*$/) { flush(); next }
      if (sub(/^Types:[ \t]*/, "")) types = $0
      else if (sub(/^URIs:[ \t]*/, "")) uris = $0
      else if (sub(/^Suites:[ \t]*/, "")) suites = $0
      else if ($0 ~ /^Enabled:[ \t]*[Nn]o/) enabled = 0
      next
    }
    $1 == "deb" && !found {
      i = 2
      if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
      if ($(i + 1) == cn) { print $i; found = 1 }
    }
    END { flush() }' "${sources[@]}" | head -n1
}

reason=$(stale_reason)
if [ -z "$reason" ]; then
  write_hosts
  say "$suite root ready, reused ($(grep '^slurm=' "$stamp"))"
  echo "$root"
  exit 0
fi
say "making the $suite root in $root ($reason)"
started=$SECONDS

# Nothing may be mounted under a root we remove: rm -rf would go through a bind mount of the
# repository (in-root.sh mounts in its own namespace, but a root may be entered by other means).
if [ -d "$root" ]; then
  if awk -v r="$root" '$5 == r || index($5, r "/") == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
    die "something is mounted under $root (findmnt -R $root): unmount it first"
  fi
  rm -rf --one-file-system "$root"
fi

if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap on the host"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null; }
fi
mirror=$(host_mirror)
[ -n "$mirror" ] || die "no deb entry for the host's own suite in its apt sources: set SF_DEBIAN_MIRROR"
script=()
if [ ! -e "/usr/share/debootstrap/scripts/$suite" ]; then
  # An older debootstrap knows no newer suite (Debian 12's has no forky): sid's script fits any.
  script=(/usr/share/debootstrap/scripts/sid)
fi

fail() {
  say "$1 failed; the end of $log:"
  tail -n 20 "$log" >&2
  exit 1
}

: > "$log"
say "debootstrap --variant=minbase $suite from $mirror${script:+ (with the sid script)}"
t=$SECONDS
nice -n 10 debootstrap --variant=minbase "$suite" "$root" "$mirror" "${script[@]}" >>"$log" 2>&1 ||
  fail debootstrap
say "debootstrap took $((SECONDS - t)) s"

# A testing suite's InRelease expires within days; a root is made once and then kept, so an
# expired one must not stop apt there.
apt_conf=$root/etc/apt/apt.conf.d/90spiderflow
echo 'APT::Install-Recommends "false";' > "$apt_conf"
case "$suite" in
  forky|testing|sid|unstable) echo 'Acquire::Check-Valid-Until "false";' >> "$apt_conf" ;;
esac
# Postinst scripts must not start munged or the Slurm daemons in the root: tests start them.
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
write_hosts

say "apt-get install in the root: ${#packages[@]} packages"
t=$SECONDS
{ nice -n 10 "$here/in-root.sh" "$root" apt-get update -q &&
  nice -n 10 "$here/in-root.sh" "$root" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${packages[@]}" &&
  "$here/in-root.sh" "$root" apt-get clean
} >>"$log" 2>&1 || fail "apt-get install"
say "apt-get install took $((SECONDS - t)) s"

slurm=$(chroot "$root" dpkg-query -W -f='${Version}' slurmctld)
printf 'suite=%s\nrecipe=%s\npackages=%s\nslurm=%s\n' "$suite" "$recipe" "$hash" "$slurm" > "$stamp.tmp"
mv "$stamp.tmp" "$stamp"
reason=$(stale_reason)
[ -z "$reason" ] || die "the new root does not pass its own check: $reason"
say "$suite root made in $((SECONDS - started)) s (Slurm $slurm)"
echo "$root"
