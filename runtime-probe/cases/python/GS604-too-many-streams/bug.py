"""GS604 too-many-streams, bug: a graph that forks one stream per expert, 64 of them. PyTorch's
pool holds 32 streams per priority (the 33rd torch.cuda.Stream() is the first again), and the
device runs them over a bounded number of hardware queues. Timing case: the values are right, the
time per replay is the measurement."""
import json
import os
import statistics
import time
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS604", "bug"
WARMUP, SAMPLES, ITERATIONS = 20, 15, 50


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


EXPERTS, TOKENS, WIDTH, LAYERS = 64, 16, 32, 4
torch.manual_seed(0)
weights = torch.randn(LAYERS, EXPERTS, WIDTH, WIDTH, device="cuda") * 0.2
parts = torch.randn(EXPERTS, TOKENS, WIDTH, device="cuda")
outs = torch.zeros(EXPERTS, TOKENS, WIDTH, device="cuda")


def expert(e, h):
    for layer in range(LAYERS):
        h = torch.tanh(h @ weights[layer, e])
    return h


reference = torch.stack([expert(e, parts[e]) for e in range(EXPERTS)])
streams = [torch.cuda.Stream() for _ in range(64)]  # one per expert


def forward():
    for e, s in enumerate(streams):
        s.wait_stream(torch.cuda.current_stream())  # hazard: GS604
        with torch.cuda.stream(s):
            outs[e] = expert(e, parts[e])
    for s in streams:
        torch.cuda.current_stream().wait_stream(s)


side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):  # eager warm-up of the captured work
    forward()
torch.cuda.current_stream().wait_stream(side)
g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        forward()
except Exception as exc:  # the error text is the measurement
    emit(None, True, describe(exc))

outs.zero_()
g.replay()
torch.cuda.synchronize()
observed = torch.allclose(outs, reference, rtol=1e-4, atol=1e-5)
ms = per_iteration_ms(g.replay)
torch.cuda.synchronize()
emit(observed, True, timing={"ms_per_iteration": ms, "samples": SAMPLES,
                             "iterations": ITERATIONS, "warmup": WARMUP})
