#!/bin/bash
# Packaging (issue 40): the Debian packages `make deb` built, installed from the .deb files alone
# into a Debian root of the host's release that holds only Slurm, munge and python3
# (contrib/scripts/debian-root.sh --runtime: apt must find every dependency through the packages'
# own Depends, and the host's PluginDir, which other tests share, stays untouched). Then:
#   - lintian on the packages: no error;
#   - the plugins are in Slurm's own PluginDir, the plugstack.conf.d file is there and disabled;
#   - the submit path's core checks and planned jobs on a real cluster of the root's Slurm with
#     the installed plugins and command (tests/integration/test_slurm_submit.sh with
#     SF_INSTALLED_PLUGINDIR);
#   - the broker starts as installed, as user spiderflow, and writes its database in
#     /var/lib/spiderflow;
#   - `apt-get remove`: nothing left but conffiles (their packages in state rc, the others gone);
#   - `apt-get purge` (and autoremove): nothing left: no /etc/spiderflow, /var/lib/spiderflow,
#     user spiderflow, file named *spiderflow*, nor any package that was not there before.
#   tests/packaging/test_packages.sh [PACKAGES_DIR]   (default: $SF_BUILDDIR/packages)
# Prints TAP lines and each step's seconds; exits 1 on a failed check, 77 without root or debs.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd -P)
debs=${1:-${SF_BUILDDIR:-$top/_build/ci}/packages}
FAILS=0
. "$top/tests/integration/checks.sh"   # expect, ok, not_ok
say() { echo "# $*"; }
step_start=$SECONDS
step() { say "$1 ($((SECONDS - step_start)) s)"; step_start=$SECONDS; }

[ "$(id -u)" = 0 ] || { say "skip: needs root"; exit 77; }
packages=(spiderflow spiderflow-slurm-plugins spiderflow-broker spiderflow-agent)
files=()
for p in "${packages[@]}"; do
    f=$(ls "$debs/${p}_"*.deb 2>/dev/null | head -n1)
    [ -n "$f" ] || { say "skip: no ${p}_*.deb in $debs (make deb makes them)"; exit 77; }
    files+=("$f")
done

# --- lintian ------------------------------------------------------------------------------------
if command -v lintian >/dev/null; then
    lintian --fail-on error "${files[@]}" >"$debs/lintian.txt" 2>&1
    rc=$?
    expect "lintian: no error (exit $rc; $(grep -c '^E:' "$debs/lintian.txt") E, $(grep -c '^W:' "$debs/lintian.txt") W)" test "$rc" = 0
    sed 's/^/#   /' "$debs/lintian.txt"
    step "lintian"
else
    say "lintian not installed: not run"
fi

# --- a root as a site has it: Slurm, munge, python3 ---------------------------------------------
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
root=$("$top/contrib/scripts/debian-root.sh" --runtime "$suite" | tail -1) || { not_ok "a $suite root"; exit 1; }
in_root() { "$top/contrib/scripts/in-root.sh" "$root" "$@"; }
state() { chroot "$root" dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | tr -d ' '; }
# A run that failed half-way left its packages: the root starts without them.
leftover=$(chroot "$root" dpkg-query -W -f='${Package}\n' 'spiderflow*' 2>/dev/null)
[ -z "$leftover" ] || in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $leftover >/dev/null
in_root env DEBIAN_FRONTEND=noninteractive apt-get autoremove --purge -y -q >/dev/null
chroot "$root" dpkg-query -W -f='${Package}\n' | sort >"$debs/root-packages.before"
# Files of the root's own making with our name (its stamp, its apt settings) are not ours to find.
named_files() { find "$root" -xdev -iname '*spiderflow*' ! -path "$root/tmp/*" 2>/dev/null | sort; }
named_files >"$debs/root-named.before"
step "$suite root $root"

# --- install from the packages alone --------------------------------------------------------------
rm -rf "$root/tmp/sf-debs" && mkdir -p "$root/tmp/sf-debs" && cp "${files[@]}" "$root/tmp/sf-debs/"
in_root apt-get update -q >/dev/null 2>&1
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${files[@]/#*\//\/tmp\/sf-debs\/}" \
    >"$debs/apt-install.log" 2>&1
rc=$?
expect "apt-get install of the four .deb files (exit $rc)" test "$rc" = 0
[ "$rc" = 0 ] || { tail -20 "$debs/apt-install.log"; exit 1; }
for p in "${packages[@]}"; do expect "$p installed" test "$(state "$p")" = ii; done
step "install"

# Slurm's PluginDir is where its own select_cons_tres.so is.
plugindir=$(dirname "$(chroot "$root" dpkg -L slurm-wlm-basic-plugins | grep '/select_cons_tres\.so$' | head -n1)")
ours=$(chroot "$root" dpkg -L spiderflow-slurm-plugins | grep '\.so$')
say "plugins: $(echo $ours)"
expect "every plugin in Slurm's PluginDir $plugindir" \
    test "$(echo "$ours" | grep -vc "^$plugindir/[^/]*\.so$")" = 0
for so in spiderflow.so spiderflow_stepd.so job_submit_spiderflow.so; do
    expect "$so installed" test -f "$root$plugindir/$so"
done
expect "the Grafana dashboard in the spiderflow package" \
    bash -c "chroot '$root' dpkg -L spiderflow | grep -qx /usr/share/spiderflow/grafana/spiderflow.json"
dropin=$root/etc/slurm/plugstack.conf.d/spiderflow.conf
expect "plugstack.conf.d/spiderflow.conf shipped disabled" test -f "$dropin" -a -z "$(grep -v '^#' "$dropin" | grep -v '^ *$')"
expect "... and its commented line names the installed spiderflow.so" \
    test -f "$root$(sed -n 's/^#optional \([^ ]*\) .*/\1/p' "$dropin")"
conffiles=$(for p in "${packages[@]}"; do chroot "$root" dpkg-query -W -f='${Conffiles}\n' "$p"; done | awk 'NF {print $1}' | sort)
expect "conffiles: the broker's and agent's configuration and the plugstack file" test "$(echo $conffiles)" = \
    "/etc/slurm/plugstack.conf.d/spiderflow.conf /etc/spiderflow/agent.conf /etc/spiderflow/brokerd.conf"
uid=$(chroot "$root" id -u spiderflow 2>/dev/null)
expect "system user spiderflow (uid $uid)" test -n "$uid" -a "${uid:-1000}" -lt 1000
expect "/var/lib/spiderflow owned by spiderflow" test "$(chroot "$root" stat -c %U /var/lib/spiderflow)" = spiderflow
for unit in spiderflow-brokerd spiderflow-agent; do
    expect "$unit.service installed" test -f "$root/lib/systemd/system/$unit.service"
done
expect "the broker's unit runs as spiderflow" grep -qx 'User=spiderflow' "$root/lib/systemd/system/spiderflow-brokerd.service.d/spiderflow-brokerd-user.conf"
expect "spiderflow --version runs" in_root spiderflow --version
expect "spiderflow-agent --help runs" in_root sh -c 'spiderflow-agent --help >/dev/null'

# The broker as its unit would start it (no systemd in a root): as spiderflow, its database in
# /var/lib/spiderflow; /healthz answers.
mkdir -p "$root/tmp/sf-broker"
port=$(free_port)
printf 'reader test %s\n' "$(echo test | chroot "$root" spiderflow-brokerd --hash-token)" >"$root/tmp/sf-broker/tokens"
printf 'listen = 127.0.0.1\nport = %s\ndb = /var/lib/spiderflow/broker.db\ntopology = /usr/share/spiderflow/topologies/aws-4.json\ntokens = /tmp/sf-broker/tokens\n' \
    "$port" >"$root/tmp/sf-broker/brokerd.conf"
in_root sh -c 'setpriv --reuid=spiderflow --regid=spiderflow --clear-groups spiderflow-brokerd --config /tmp/sf-broker/brokerd.conf >/tmp/sf-broker/log 2>&1 &
    pid=$!
    for i in $(seq 100); do
        python3 -c "import urllib.request,sys; urllib.request.urlopen(\"http://127.0.0.1:$1/healthz\", timeout=1)" 2>/dev/null && break
        sleep 0.1
    done
    kill $pid; wait $pid' sh "$port"
expect "the broker ran as spiderflow and wrote /var/lib/spiderflow/broker.db" \
    test "$(chroot "$root" stat -c %U /var/lib/spiderflow/broker.db 2>/dev/null)" = spiderflow
grep -q 'listening\|spiderflow' "$root/tmp/sf-broker/log" || sed 's/^/#   /' "$root/tmp/sf-broker/log"
step "installed files and the broker"

# --- the submit path on the installed plugins -----------------------------------------------------
log=$debs/test_slurm_submit.log
in_root env SF_SRCDIR="$top" SF_BUILDDIR=/nonexistent SF_INSTALLED_PLUGINDIR="$plugindir" \
    timeout 1200 bash "$top/tests/integration/test_slurm_submit.sh" >"$log" 2>&1
rc=$?
expect "test_slurm_submit.sh on the installed packages (exit $rc; $(grep -c '^ok' "$log") ok, $(grep -c '^not ok' "$log") not ok)" test "$rc" = 0
grep '^not ok' "$log"
[ "$rc" = 0 ] || tail -40 "$log"
# Nothing of that test may outlive it: a daemon whose root is this root would be ours.
left=$(for p in /proc/[0-9]*; do [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"; done)
expect "no process left running in the root" test -z "$left"
[ -z "$left" ] || { ps -o pid,args -p $left; kill $left; }
step "submit checks"

# --- remove: only conffiles left ------------------------------------------------------------------
in_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "${packages[@]}" >"$debs/apt-remove.log" 2>&1
rc=$?
expect "apt-get remove (exit $rc)" test "$rc" = 0
for p in "${packages[@]}"; do
    # A package with conffiles stays known to dpkg (rc) until purged; one without is gone.
    if [ -n "$(chroot "$root" dpkg-query -W -f='${Conffiles}' "$p" 2>/dev/null)" ]; then
        expect "$p in state rc" test "$(state "$p")" = rc
    else
        st=$(state "$p")
        expect "$p (no conffiles) gone${st:+ (state $st)}" test -z "$st" -o "$st" = un
    fi
    # What dpkg still lists for it: directories, or its conffiles.
    extra=$(chroot "$root" dpkg -L "$p" 2>/dev/null | while read -r f; do
                [ -f "$root$f" ] || [ -L "$root$f" ] || continue
                echo "$conffiles" | grep -qxF "$f" || echo "$f"
            done)
    expect "$p: no file left but conffiles${extra:+ (left: $(echo $extra))}" test -z "$extra"
done
expect "no plugin left in PluginDir" test -z "$(find "$root$plugindir" -iname '*spiderflow*')"
expect "no spiderflow command left" test ! -e "$root/usr/bin/spiderflow"
step "remove"

# --- purge: nothing left ----------------------------------------------------------------------------
in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${packages[@]}" >"$debs/apt-purge.log" 2>&1
rc=$?
expect "apt-get purge (exit $rc)" test "$rc" = 0
in_root env DEBIAN_FRONTEND=noninteractive apt-get autoremove --purge -y -q >>"$debs/apt-purge.log" 2>&1
for p in "${packages[@]}"; do st=$(state "$p"); expect "$p purged${st:+ (state $st)}" test -z "$st" -o "$st" = un; done
for d in /etc/spiderflow /var/lib/spiderflow /etc/slurm/plugstack.conf.d/spiderflow.conf; do
    expect "$d gone" test ! -e "$root$d"
done
expect "user spiderflow gone" test -z "$(chroot "$root" getent passwd spiderflow)"
expect "group spiderflow gone" test -z "$(chroot "$root" getent group spiderflow)"
named=$(named_files | comm -13 "$debs/root-named.before" -)
expect "no file named *spiderflow* in the root${named:+ (found: $(echo $named))}" test -z "$named"
chroot "$root" dpkg-query -W -f='${Package}\n' | sort >"$debs/root-packages.after"
expect "the root's packages are those it had before (the dependencies apt pulled in went too)" \
    diff "$debs/root-packages.before" "$debs/root-packages.after"
rm -rf "$root/tmp/sf-debs" "$root/tmp/sf-broker"
step "purge"

[ "$FAILS" -eq 0 ] || { echo "$FAILS check(s) failed"; exit 1; }
