#!/usr/bin/env bash
# Fetches and configures the Slurm source tree of exactly the installed Slurm, for the
# select/spiderflow_cons_tres and sched/spiderflow plugins (they use slurmctld's internal headers).
#   contrib/scripts/slurm-source.sh [DIR]     (default DIR: _build/slurm-source)
#   contrib/scripts/slurm-source.sh --configure-flag [DIR]
# Prints the configured tree's path on its last line: pass it to ./configure --with-slurm-source=.
# With --configure-flag it prints that option itself, or nothing (and says which plugins are then
# not built) when the source cannot be had: what quickstart and CI pass to configure.
# Idempotent: a tree already configured for the installed version is reused.
set -euo pipefail

if [ "${1:-}" = --configure-flag ]; then
  shift
  tree=$("$0" "$@" | tail -1) || tree=""
  if [ -n "$tree" ] && [ -f "$tree/config.h" ]; then
    echo "--with-slurm-source=$tree"
  else
    echo "spiderflow: Slurm's source could not be fetched (apt-get source needs a deb-src entry):" \
         "topology/spiderflow_tree, select/spiderflow_cons_tres and sched/spiderflow are not built; everything else is" >&2
  fi
  exit 0
fi

dest=${1:-_build/slurm-source}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

version=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || dpkg-query -W -f='${Version}' libslurm-dev 2>/dev/null || true)
if [ -z "$version" ]; then
  echo "spiderflow: Slurm is not installed from Debian's packages (slurmctld or libslurm-dev): nothing to match" >&2
  exit 1
fi
upstream=${version%%-*}
tree="$dest/slurm-wlm-$upstream"

if [ -f "$tree/config.h" ] && [ -f "$tree/.spiderflow-configured" ] && \
   [ "$(cat "$tree/.spiderflow-configured")" = "$version" ]; then
  echo "spiderflow: Slurm $version source already configured"
  echo "$tree"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
# apt-get source needs deb-src entries for the suites the binaries came from: add them once,
# mirroring the deb entries (deb822 or one-line format), then refresh the index.
if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "spiderflow: adding deb-src entries for the configured Debian suites"
  src=$(mktemp)
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f" >> "$src" && echo >> "$src"
  done
  if [ -s "$src" ]; then
    $SUDO install -m 0644 "$src" /etc/apt/sources.list.d/spiderflow-deb-src.sources
  else
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$src"
    $SUDO install -m 0644 "$src" /etc/apt/sources.list.d/spiderflow-deb-src.list
  fi
  rm -f "$src"
  $SUDO apt-get update -qq
fi
command -v dpkg-source >/dev/null || { $SUDO apt-get update -qq; $SUDO apt-get install -y -qq --no-install-recommends dpkg-dev; }

if [ ! -f "$tree/configure" ]; then
  echo "spiderflow: fetching slurm-wlm=$version source into $dest"
  (cd "$dest" && apt-get source -qq "slurm-wlm=$version" >/dev/null)
fi
[ -f "$tree/configure" ] || { echo "spiderflow: apt-get source did not unpack $tree" >&2; exit 1; }

# Debian's own configure flags where they change headers the plugins read (config.h, slurm.h).
echo "spiderflow: configuring $tree (a minute or two)"
(cd "$tree" && ./configure -q --prefix=/usr --sysconfdir=/etc/slurm --libdir=/usr/lib/x86_64-linux-gnu \
   --enable-multiple-slurmd >"$tree/spiderflow-configure.log" 2>&1) \
  || { echo "spiderflow: Slurm's configure failed; see $tree/spiderflow-configure.log" >&2; exit 1; }
echo "$version" > "$tree/.spiderflow-configured"
echo "$tree"
