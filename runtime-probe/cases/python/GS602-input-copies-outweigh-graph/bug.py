"""GS602 input-copies-outweigh-graph, bug: a graph that holds one reduction over 16 M floats,
replayed after copying each new input into its static tensor. The copy reads and writes as much
memory as the graph reads: it costs more than the graph saves. Timing case: the values are right,
the time per iteration is the measurement."""
import json
import os
import statistics
import time
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS602", "bug"
WARMUP, SAMPLES, ITERATIONS = 20, 15, 100


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


N = 16 * 1024 * 1024
static_x = torch.empty(N, device="cuda")
generator = torch.Generator(device="cuda")
g = torch.cuda.CUDAGraph()

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):  # eager warm-up of the captured work
    static_x.sum()
torch.cuda.current_stream().wait_stream(side)
try:
    with torch.cuda.graph(g):
        total = static_x.sum()
except Exception as exc:  # the error text is the measurement
    emit(None, None, describe(exc))

generator.manual_seed(0)
reference = []  # eager sums of the first inputs, in order
for _ in range(4):
    reference.append(torch.randn(N, device="cuda", generator=generator).sum())


def iteration():
    x = torch.randn(N, device="cuda", generator=generator)  # the new input
    static_x.copy_(x)  # hazard: GS602
    g.replay()
    return total


generator.manual_seed(0)
first = [iteration().clone() for _ in range(4)]
observed = all(torch.allclose(a, b, rtol=1e-5, atol=1e-3) for a, b in zip(first, reference))
ms = per_iteration_ms(iteration)
torch.cuda.synchronize()
emit(observed, True, timing={"ms_per_iteration": ms, "samples": SAMPLES,
                             "iterations": ITERATIONS, "warmup": WARMUP})
