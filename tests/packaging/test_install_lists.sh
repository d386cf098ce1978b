#!/bin/bash
# Every file `make install` writes belongs to a package: a path of one of contrib/debian's
# *.install lists (or its not-installed list, or the plugins rules writes the list of), and a
# path the RPM spec's %files name. dh_missing and rpmbuild refuse a package build that leaves an
# installed file out, and that build is a 30-minute .ci/run stage: this finds the same miss in
# seconds, in make check. Run from the build dir (make check sets SF_SRCDIR).
#   tests/packaging/test_install_lists.sh
set -uo pipefail
src=${SF_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
FAILS=0
. "$src/tests/integration/checks.sh"   # expect, ok, not_ok

dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
# The prefix and directories the packages build with (contrib/debian/rules: dh's defaults).
make -s install DESTDIR="$dest" prefix=/usr sysconfdir=/etc localstatedir=/var >"$dest.log" 2>&1
rc=$?
expect "make install into a scratch DESTDIR (exit $rc)" test "$rc" = 0
[ "$rc" = 0 ] || { tail -20 "$dest.log"; rm -f "$dest.log"; exit 1; }
rm -f "$dest.log"
plugindir=$(make -s --no-print-directory print-slurm-plugindir)
installed=$(cd "$dest" && find . -type f -o -type l | sed 's|^\./||' | sort)

# Debian: each list's first field is a path or glob under debian/tmp; a directory takes all below.
debian_patterns=$( { cat "$src"/contrib/debian/*.install | awk '$1 !~ /^debian\// {print $1}';
                     grep -v '^#' "$src/contrib/debian/not-installed";
                     echo "${plugindir#/}/*.so"; } | sed '/^$/d')
in_debian() {
    local f=$1 p
    while read -r p; do
        # shellcheck disable=SC2053
        [[ $f == $p || $f == $p/* ]] && return 0
    done <<<"$debian_patterns"
    return 1
}
# RPM: the paths of every %files section, its macros read as rpm does on a usr prefix.
rpm_patterns=$(awk '/^%files/ {f = 1; next} /^%(post|pre|changelog|description|package|install|build|prep)/ {f = 0}
                    f && /^\// || f && /^%(\{|config|dir)/' "$src/contrib/rpm/spiderflow.spec" |
    sed -e 's/^%config([^)]*) *//' -e 's/^%config *//' -e 's/^%dir *//' \
        -e 's|%{_bindir}|usr/bin|; s|%{_sbindir}|usr/sbin|; s|%{_datadir}|usr/share|; s|%{_sysconfdir}|etc|' \
        -e 's|%{_docdir}/%{name}|usr/share/doc/spiderflow|; s|%{_unitdir}|usr/lib/systemd/system|' \
        -e "s|%{slurm_plugindir}|${plugindir#/}|" -e 's|^/||')
in_rpm() {
    local f=$1 p
    # The spec moves the example configurations to /etc and lists each unit and document it keeps.
    case $f in usr/share/spiderflow/*.conf) f=etc/spiderflow/${f##*/} ;; esac
    while read -r p; do
        # shellcheck disable=SC2053
        [[ $f == $p || $f == $p/* ]] && return 0
    done <<<"$rpm_patterns"
    return 1
}

deb_missing=() rpm_missing=()
while read -r f; do
    [ -n "$f" ] || continue
    in_debian "$f" || deb_missing+=("$f")
    in_rpm "$f" || rpm_missing+=("$f")
done <<<"$installed"
expect "every installed file ($(echo "$installed" | wc -l)) is in a Debian package's list or not-installed (missing: ${deb_missing[*]:-none})" \
    test "${#deb_missing[@]}" = 0
expect "every installed file is in the RPM spec's %files (missing: ${rpm_missing[*]:-none})" test "${#rpm_missing[@]}" = 0
[ "$FAILS" = 0 ]
