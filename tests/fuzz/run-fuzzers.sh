#!/bin/bash
# Builds every fuzz target (tests/fuzz/fuzz_<name>.cpp) with clang and libFuzzer + ASan + UBSan,
# runs each for SECONDS (default 30) on a copy of its seed corpus and reports how many inputs
# each executed. Exit status 0 when no target crashed or failed to build.
#
#   tests/fuzz/run-fuzzers.sh [SECONDS] [TARGET...]
#
# Environment: CLANGXX (default clang++ or clang++-14), SF_FUZZ_WORKDIR (default
# ./build-fuzz under the source tree), SF_BUILDDIR (a configured build dir whose config.h to
# use; a minimal one is written otherwise), SF_FUZZ_JOBS (parallel compiles, default 2).
# The common/ sources, the services and the broker's routes (federation/brokerd, less its main)
# are compiled directly (not through automake) into one archive that each target links against,
# so the linker pulls only what a target uses.
set -euo pipefail

seconds=${1:-30}
[ $# -gt 0 ] && shift
case "$seconds" in ''|*[!0-9]*) echo "spiderflow: run-fuzzers: SECONDS must be a number, not '$seconds'" >&2; exit 2;; esac

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
work=${SF_FUZZ_WORKDIR:-$srcdir/build-fuzz}
jobs=${SF_FUZZ_JOBS:-2}
cxx=${CLANGXX:-}
if [ -z "$cxx" ]; then
    for c in clang++ clang++-14; do command -v "$c" >/dev/null 2>&1 && { cxx=$c; break; }; done
fi
[ -n "$cxx" ] || { echo "spiderflow: run-fuzzers: clang++ not found (apt-get install clang)" >&2; exit 2; }

pkgs="nlohmann_json hwloc cbc osi-clp coinutils sqlite3 libcurl zlib cpp-httplib libcrypto"
# Debian's cpp-httplib turns its OpenSSL code on in every includer but does not list OpenSSL
# (configure.ac says the same).
case " $(pkg-config --cflags cpp-httplib) " in *CPPHTTPLIB_OPENSSL_SUPPORT*) pkgs="$pkgs openssl" ;; esac

mkdir -p "$work/include" "$work/obj" "$work/gen"
if [ -n "${SF_BUILDDIR:-}" ] && [ -f "$SF_BUILDDIR/config.h" ]; then
    cp "$SF_BUILDDIR/config.h" "$work/include/config.h"
elif [ ! -f "$work/include/config.h" ]; then
    version=$(sed -n 's/^AC_INIT(\[spiderflow\], \[\([^]]*\)\].*/\1/p' "$srcdir/configure.ac")
    printf '/* minimal config.h for fuzz builds */\n#define PACKAGE_VERSION "%s"\n' "${version:-0}" > "$work/include/config.h"
fi

# A build's config.h may say the broker has MariaDB: then its store comes too.
mariadb_store="! -name mariadb_store.cpp"
if grep -q '^#define SF_HAVE_MARIADB' "$work/include/config.h"; then mariadb_store=""; pkgs="$pkgs libmariadb"; fi
pkg_cflags=$(pkg-config --cflags $pkgs)
pkg_libs=$(pkg-config --libs $pkgs)

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cxxflags="-std=c++20 -g -O1 -fno-omit-frame-pointer $san -I$srcdir -I$work/include -I$work/gen $pkg_cflags \
 -include config.h -DSF_PKGDATADIR=\"$srcdir\" -DSF_SYSCONFDIR=\"/etc\""

# Sources: the core library, every service but the agent (it needs libslurm) and the broker's
# routes without brokerd's main, plus the generated builtin catalog.
mapfile -t sources < <(cd "$srcdir" && find common services/slurmjob services/launch services/coalloc services/broker_client \
    services/fedsim services/broker services/probe federation/brokerd -name '*.cpp' ! -name placeholder.cpp \
    ! -name brokerd_main.cpp $mariadb_store | sort)
if [ -x "$srcdir/common/model/embed-text.sh" ] || [ -f "$srcdir/common/model/embed-text.sh" ]; then
    if ls "$srcdir"/common/model/catalog/*.json >/dev/null 2>&1; then
        mkdir -p "$work/gen/common/model"
        gen="$work/gen/common/model/catalog_data.cpp"
        sh "$srcdir/common/model/embed-text.sh" "$gen" "$srcdir"/common/model/catalog/*.json
    fi
fi

compile() {  # src (relative to srcdir or absolute) -> object, only when stale
    local src=$1 obj=$2 dep fresh=1
    # Stale when the source or any header it read (the compiler's list, $obj.d) is newer or gone.
    if [ -f "$obj" ] && [ -f "$obj.d" ]; then
        for dep in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$obj.d"); do
            if [ ! -e "$dep" ] || [ "$dep" -nt "$obj" ]; then fresh=0; break; fi
        done
        [ "$fresh" = 1 ] && return 0
    fi
    mkdir -p "$(dirname "$obj")"
    "$cxx" $cxxflags -fsanitize=fuzzer-no-link -MMD -MF "$obj.d" -c "$src" -o "$obj" 2>"$obj.err" || { echo "spiderflow: run-fuzzers: cannot compile $src (see $obj.err); skipped" >&2; rm -f "$obj" "$obj.d"; return 0; }
    rm -f "$obj.err"
}
export -f compile
export cxx cxxflags

echo "spiderflow: run-fuzzers: compiling common/ and services/ with $cxx ($jobs jobs)"
objs=()
{
    for s in "${sources[@]}"; do echo "$srcdir/$s $work/obj/${s%.cpp}.o"; done
    [ -f "$work/gen/common/model/catalog_data.cpp" ] && echo "$work/gen/common/model/catalog_data.cpp $work/obj/gen/catalog_data.o"
} > "$work/objects.txt"
xargs -P "$jobs" -L 1 bash -c 'compile "$0" "$1"' < "$work/objects.txt"
while read -r _ o; do [ -f "$o" ] && objs+=("$o"); done < "$work/objects.txt"
rm -f "$work/libsf_fuzz.a"
ar rcs "$work/libsf_fuzz.a" "${objs[@]}"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in "$srcdir"/tests/fuzz/fuzz_*.cpp; do
        [ -e "$f" ] || continue
        n=$(basename "$f" .cpp); targets+=("${n#fuzz_}")
    done
fi

status=0
report=()
for t in "${targets[@]}"; do
    src="$srcdir/tests/fuzz/fuzz_$t.cpp"
    bin="$work/fuzz_$t"
    if ! "$cxx" $cxxflags -fsanitize=fuzzer "$src" "$work/libsf_fuzz.a" $pkg_libs -lpthread -o "$bin" 2>"$work/fuzz_$t.build.log"; then
        echo "spiderflow: run-fuzzers: $t does not build (see $work/fuzz_$t.build.log)" >&2
        report+=("$(printf '%-16s %12s  %s' "$t" "-" "BUILD FAILED")")
        status=1
        continue
    fi
    corpus="$work/corpus/$t"
    mkdir -p "$corpus" "$work/artifacts"
    seeds="$srcdir/tests/fuzz/corpus/$t"
    [ -d "$seeds" ] || seeds=""
    log="$work/fuzz_$t.log"
    echo "spiderflow: run-fuzzers: $t for ${seconds}s"
    result=ok
    if ! LSAN_OPTIONS="suppressions=$srcdir/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=25 -rss_limit_mb=2560 \
            -artifact_prefix="$work/artifacts/$t-" "$corpus" $seeds >"$log" 2>&1; then
        result="CRASH: $(grep -o "$work/artifacts/$t-[^ ]*" "$log" | tail -1)"
        status=1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
    [ -n "$execs" ] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
    report+=("$(printf '%-16s %12s  %s (corpus %s files)' "$t" "${execs:-?}" "$result" "$(ls "$corpus" | wc -l)")")
done

echo
printf '%-16s %12s  %s\n' target inputs result
for r in "${report[@]}"; do echo "$r"; done
exit $status
