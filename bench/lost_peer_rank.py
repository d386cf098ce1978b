# One rank of a training world stripped to what a lost node does to it, for
# bench/requeue_bench.sh: the ranks hold a TCP connection to rank 0 (MASTER_ADDR:MASTER_PORT),
# as NCCL's and gloo's bootstrap does, and fail the moment a peer is gone, as a collective would.
# Cheap enough for 32 ranks on a 2-core machine (PyTorch is not). Each rank writes
# OUT/run-ATTEMPT-rank-RANK.txt: "CLUSTER RANK WORLD ATTEMPT UNIX_TIME" when it starts.
# Usage: python3 lost_peer_rank.py OUT
import os
import select
import socket
import sys
import time

out = sys.argv[1]
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
attempt = os.environ.get("SPIDERFLOW_ATTEMPT", "1")
master = (os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]))
with open(f"{out}/run-{attempt}-rank-{rank}.txt", "w") as f:
    f.write(f"{os.environ.get('SLURM_CLUSTER_NAME', '?')} {rank} {world} {attempt} {time.time():.3f}\n")

# The parts start within seconds of each other: the world forms within a bound, or fails.
deadline = time.time() + 120
if rank == 0:
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("", master[1]))
    server.listen(world)
    server.settimeout(max(1.0, deadline - time.time()))
    peers = []
    while len(peers) < world - 1:
        peers.append(server.accept()[0])
else:
    while True:
        try:
            peers = [socket.create_connection(master, timeout=2)]
            break
        except OSError:
            if time.time() > deadline:
                sys.exit(f"rank {rank}: no rank 0 at {master[0]}:{master[1]}")
            time.sleep(0.2)

# Training: until a peer's connection closes (its process died: a lost node), then fail.
while True:
    readable, _, _ = select.select(peers, [], [])
    for s in readable:
        try:
            data = s.recv(1)
        except OSError:
            data = b""
        if not data:
            sys.exit(f"rank {rank}: a peer is gone")
