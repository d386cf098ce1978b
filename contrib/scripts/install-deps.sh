#!/usr/bin/env bash
# Installs the Debian 12 packages SpiderFlow builds, tests and runs with. Idempotent: skips
# apt entirely when everything is already there, so CI on a warm machine costs nothing.
#   contrib/scripts/install-deps.sh          install what is missing
#   contrib/scripts/install-deps.sh --list   print the package names, one a line (debian-root.sh
#                                            installs the same set in a root of another Debian)
# prometheus is here for promtool (test_metrics.sh) and chromium for the status page's headless
# test (test_status_page.sh); both are large (doc/monitoring.md, "In CI": about 200 MiB to
# download between them) and the tests skip without them.
set -euo pipefail

packages=(
  build-essential autoconf automake libtool pkg-config
  coinor-libcbc-dev libhwloc-dev libhwloc-plugins hwloc libcurl4-openssl-dev libsqlite3-dev
  nlohmann-json3-dev zlib1g-dev libgtest-dev libgmock-dev libcpp-httplib-dev libssl-dev curl openssl
  libslurm-dev slurmctld slurmd slurm-client munge
  libmariadb-dev mariadb-server mariadb-client
  clang libclang-rt-dev iproute2 iperf3 librsvg2-bin gnuplot-nox
  python3-torch
  debhelper lintian rpm
  prometheus chromium
)

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "spiderflow: all build and test packages present"
  exit 0
fi
echo "spiderflow: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
