# A real framework's world for the integration tests (tests/integration/test_torch_world.sh):
# each task joins a PyTorch gloo process group from the environment SpiderFlow gave it (RANK,
# WORLD_SIZE, MASTER_ADDR, MASTER_PORT), all-reduces the ranks, sends a tensor between the first
# and the last rank (different clusters in a cross-site job), trains a tiny model for five DDP
# steps on data of its own, and writes OUT/rank-RANK.txt:
#   CLUSTER RANK WORLD MASTER:PORT SLURM_PROCID START_TIME allreduce=ok|bad sendrecv=ok|bad|- ddp=DIGEST
# (the first six fields as federation.sh's expect_one_world reads them). Identical DDP digests on
# every rank mean the gradients were averaged across the whole world. With KEEP_S, the ranks then
# keep all-reducing for that long (a job still training when a test ends one of its parts).
# Usage: /usr/bin/python3 torch_world.py OUT [KEEP_S]
import datetime
import hashlib
import os
import sys
import time

started = time.time()
import torch  # noqa: E402  (the start time is taken before the slow import)
import torch.distributed as dist  # noqa: E402

out = sys.argv[1]
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=120))
if dist.get_rank() != rank or dist.get_world_size() != world:
    sys.exit(f"torch_world: the process group says rank {dist.get_rank()} of {dist.get_world_size()}")

total = torch.tensor([float(rank)])
dist.all_reduce(total)
allreduce = "ok" if int(total.item()) == world * (world - 1) // 2 else "bad"

sendrecv = "-"
last = world - 1
if world > 1 and rank in (0, last):
    peer = last if rank == 0 else 0
    mine, theirs = torch.tensor([rank * 10.0 + 1]), torch.zeros(1)
    if rank == 0:
        dist.send(mine, peer)
        dist.recv(theirs, peer)
    else:
        dist.recv(theirs, peer)
        dist.send(mine, peer)
    sendrecv = "ok" if theirs.item() == peer * 10.0 + 1 else "bad"

torch.manual_seed(0)
model = torch.nn.Linear(16, 4)
ddp = torch.nn.parallel.DistributedDataParallel(model)
optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
data = torch.Generator().manual_seed(1000 + rank)  # every rank trains on its own samples
for _ in range(5):
    loss = ddp(torch.randn(8, 16, generator=data)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
digest = hashlib.sha1(b"".join(p.detach().numpy().tobytes() for p in model.parameters())).hexdigest()[:16]
dist.barrier()

with open(f"{out}/rank-{rank}.txt", "w") as f:
    f.write(f"{os.environ.get('SLURM_CLUSTER_NAME', '?')} {rank} {world} "
            f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']} {os.environ.get('SLURM_PROCID', '?')} "
            f"{started} allreduce={allreduce} sendrecv={sendrecv} ddp={digest}\n")

keep_until = time.time() + (float(sys.argv[2]) if len(sys.argv) > 2 else 0)
while time.time() < keep_until:
    dist.all_reduce(torch.ones(1))  # raises once a peer is gone
    time.sleep(0.2)
dist.destroy_process_group()
