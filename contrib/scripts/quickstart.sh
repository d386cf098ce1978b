#!/usr/bin/env bash
# README's first command: installs the Debian packages, builds and installs SpiderFlow, then
# plans a LLaMA-3 70B job twice: across two data centres joined by a dedicated optical link
# (crossing pays), and on the shipped 8-region worldwide example (it does not: the plan says so
# and names the better request). The Slurm plugins that need Slurm's own source of the installed
# version (topology/spiderflow_tree, select/spiderflow_cons_tres, sched/spiderflow) are built when
# `apt-get source` can fetch it (a deb-src entry); without it everything else is, and it says so.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
contrib/scripts/install-deps.sh
autoreconf -fi
echo "== Slurm's source of the installed version, for the plugins that build against it"
source_flag=$(contrib/scripts/slurm-source.sh --configure-flag "$top/_build/slurm-source")
mkdir -p _build/release
cd _build/release
"$top/configure" -q --prefix=/usr/local ${source_flag:+"$source_flag"}
make -s -j"$(nproc)"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO make -s install
export PATH="/usr/local/bin:$PATH"
example=/usr/local/share/spiderflow/topologies/worldwide-8.json
echo
echo "== spiderflow topo show $example"
spiderflow topo show "$example"
echo
echo "== spiderflow plan: llama3-70b, global batch 1024, 256 GPUs, two data centres on a dedicated link"
spiderflow plan --topology /usr/local/share/spiderflow/topologies/two-datacenters-dedicated.json \
  --model llama3-70b --global-batch 1024 --seq-len 4096 --gpus 256 --format text
echo
echo "== spiderflow plan: the same job across the 8 regions of the worldwide example (shared WAN links)"
spiderflow plan --topology "$example" --model llama3-70b --global-batch 1024 --seq-len 4096 \
  --gpus 256 --format text
