"""GS603 deferred-gradient-hooks, fix: the whole step (forward, backward, DDP's hooks and
allreduce) captured with torch.cuda.graph after DDP's eager warm-up, replayed once per step.
Timing case: the gradients are right, the time per training step is the measurement."""
import json
import os
import socket
import statistics
import time
from pathlib import Path

import torch
from torch.nn.parallel import DistributedDataParallel

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS603", "fix"
WARMUP, SAMPLES, ITERATIONS = 20, 15, 30


def emit(observed, expected, capture_error=None, timing=None):
    # One result line, then leave at once: a failed capture can leave the CUDA context unusable.
    line = {"case": CASE, "rule": RULE, "kind": KIND, "observed": observed,
            "expected": expected, "capture_error": capture_error, "timing": timing}
    print(json.dumps(line), flush=True)
    os._exit(0)


def describe(exc):
    # The error and the errors it interrupted, first line of each.
    parts = []
    while exc is not None and len(parts) < 3:
        text = str(exc).strip().splitlines()
        parts.append(f"{type(exc).__name__}: {text[0] if text else ''}")
        exc = exc.__context__
    return " <- ".join(parts)


def per_iteration_ms(call):
    # The median over SAMPLES batches of ITERATIONS calls, after WARMUP calls, in milliseconds
    # per call; each batch ends when the device has finished its work.
    for _ in range(WARMUP):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(SAMPLES):
        start = time.perf_counter()
        for _ in range(ITERATIONS):
            call()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3 / ITERATIONS)
    return statistics.median(times)


# A process group of one rank on this GPU, as the seed's example runs DDP. Capture needs NCCL's
# asynchronous error handling off (PyTorch's notes on CUDA graphs with DDP).
os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "0"
with socket.socket() as probe_socket:
    probe_socket.bind(("127.0.0.1", 0))
    port = probe_socket.getsockname()[1]
torch.distributed.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=0,
                                     world_size=1)

torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(256, 256) for _ in range(8)]).cuda()
x = torch.randn(64, 256, device="cuda")
side = torch.cuda.Stream()
with torch.cuda.stream(side):  # DDP built on a side stream, as capture requires
    ddp = DistributedDataParallel(model)
params = list(ddp.parameters())


def eager_step():
    ddp.zero_grad(set_to_none=False)
    ddp(x).sum().backward()


# DDP's eager warm-up: eleven steps before any capture.
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(11):
        eager_step()
torch.cuda.current_stream().wait_stream(side)
torch.cuda.synchronize()
reference = [p.grad.clone() for p in params]

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        for p in params:
            p.grad.zero_()
        ddp(x).sum().backward()
except Exception as exc:  # the error text is the measurement
    emit(None, True, describe(exc))


def step():
    g.replay()


ms = per_iteration_ms(step)
step()
torch.cuda.synchronize()
observed = all(torch.allclose(p.grad, r, rtol=1e-4, atol=1e-6) for p, r in zip(params, reference))
emit(observed, True, timing={"ms_per_iteration": ms, "samples": SAMPLES,
                             "iterations": ITERATIONS, "warmup": WARMUP})
