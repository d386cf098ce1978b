# libslurm's public calls, one set for Slurm 22.05 to 26.05 (header only: every user already
# links -lslurm or runs inside a Slurm process).
noinst_HEADERS += services/slurm_api/slurm_api.h
