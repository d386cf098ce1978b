# A training program that resumes from its checkpoint, for the requeue test
# (tests/integration/test_requeue.sh). Each task joins a PyTorch gloo world from the environment
# SpiderFlow gave it. In the first run (SPIDERFLOW_ATTEMPT unset or 1) the ranks all-reduce a
# tensor, rank 0 saves it as the checkpoint (OUT/checkpoint.pt, on the disk every "site" of the
# test shares), and the ranks keep training until a peer is gone. In a later run every rank loads
# the checkpoint, checks it, all-reduces once more and ends. Each rank of run N writes
# OUT/run-N-rank-RANK.txt:
#   CLUSTER RANK WORLD ATTEMPT TP PP DP checkpoint=saved|loaded|bad previous=LAYOUT
# Usage: /usr/bin/python3 torch_resume.py OUT
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist

out = sys.argv[1]
attempt = int(os.environ.get("SPIDERFLOW_ATTEMPT", "1"))
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=60))
checkpoint = os.path.join(out, "checkpoint.pt")

total = torch.tensor([float(rank + 1)])
dist.all_reduce(total)
if attempt == 1:
    if rank == 0:
        torch.save({"weights": total, "world": world}, checkpoint + ".tmp")
        os.replace(checkpoint + ".tmp", checkpoint)  # whole or absent, as a real save should be
    state = "saved"
else:
    saved = torch.load(checkpoint)
    state = "loaded" if saved["weights"].item() == saved["world"] * (saved["world"] + 1) / 2 else "bad"
dist.barrier()

with open(f"{out}/run-{attempt}-rank-{rank}.txt", "w") as f:
    f.write(" ".join([os.environ.get("SLURM_CLUSTER_NAME", "?"), str(rank), str(world), str(attempt),
                      os.environ.get("SPIDERFLOW_TP", "?"), os.environ.get("SPIDERFLOW_PP", "?"),
                      os.environ.get("SPIDERFLOW_DP", "?"), f"checkpoint={state}",
                      "previous=" + os.environ.get("SPIDERFLOW_PREVIOUS_LAYOUT", "-").replace(" ", ",")]) + "\n")

if attempt == 1:
    # Training goes on until a peer is lost: the all-reduce raises then.
    deadline = time.time() + 300
    try:
        while time.time() < deadline:
            dist.all_reduce(torch.ones(1))
            time.sleep(0.2)
    except RuntimeError:
        with open(f"{out}/lost-peer-rank-{rank}.txt", "w") as f:
            f.write(f"{time.time()}\n")  # when this rank saw its peers gone
        raise
dist.destroy_process_group()
