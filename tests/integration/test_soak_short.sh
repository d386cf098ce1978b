#!/bin/bash
# The soak's short version for the suite (issue 41): bench/soak_bench.sh with 20 cross-site jobs
# over three real clusters, the broker restarted twice (a clean stop, kill -9): none lost, none
# run twice, no reservation or part left, and the daemons' VmRSS printed. About 2 minutes here;
# the full soak (300 jobs) is `make bench-soak`.
exec "${SF_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/bench/soak_bench.sh" "${SF_SOAK_JOBS:-20}"
