#!/bin/bash
# The plan picture as a viewer draws it: each plan's SVG is rendered with rsvg-convert (librsvg,
# what GNOME and many wikis use) onto a canvas with a margin around the picture, and nothing may
# be drawn in the margin (a cut subtitle, a label running off the side); the legend names every
# pipeline stage. Skipped when rsvg-convert is missing (librsvg2-bin).
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${SF_SRCDIR:-$(cd "$here/../.." && pwd)}
prog=${SF_BUILDDIR:-.}/spiderflow
command -v rsvg-convert >/dev/null || { echo "SKIP: rsvg-convert not installed (librsvg2-bin)"; exit 77; }
[ -x "$prog" ] || { echo "spiderflow not built: $prog"; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sf-svg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0

check() {  # check NAME PLAN-ARGS...
    local name=$1
    shift
    if ! (cd "$srcdir" && "$prog" plan "$@" --format svg -o "$tmp/$name.svg" 2>"$tmp/$name.err"); then
        echo "not ok - $name: spiderflow plan failed"; cat "$tmp/$name.err"; fails=$((fails + 1)); return
    fi
    if python3 "$here/svg_margin_check.py" "$tmp/$name.svg" "$tmp/$name"; then
        echo "ok - $name: drawn inside its $(sed -n 's/.*<svg [^>]*width="\([^"]*\)" height="\([^"]*\)".*/\1 x \2/p' "$tmp/$name.svg") picture, $(grep -o '>stage [0-9]* (' "$tmp/$name.svg" | wc -l) stages in the legend"
    else
        echo "not ok - $name"; fails=$((fails + 1))
    fi
}

check worldwide8_70b --topology contrib/topologies/worldwide-8.json --model llama3-70b --global-batch 1024 \
    --seq-len 4096 --gpus 256
check worldwide8_32_stages --topology contrib/topologies/worldwide-8.json --model llama3-70b --global-batch 1024 \
    --seq-len 4096 --gpus 256 --tp 8 --pp 32 --dp 1
check aws4_8b --topology contrib/topologies/aws-4.json --model llama3-8b --global-batch 256 --gpus 32
check dedicated_70b --topology contrib/topologies/two-datacenters-dedicated.json --model llama3-70b \
    --global-batch 1024 --seq-len 4096 --gpus 256
echo "# $fails failed"
[ "$fails" = 0 ]
