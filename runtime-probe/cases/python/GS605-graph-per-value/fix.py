"""GS605 graph-per-value, fix: the same runner padding each batch to the next power of two and
keying the graphs by that bucket: twelve graphs serve every size from 1 to 2048. Timing case: the
outputs are right, the time per request is the measurement."""
import json
import os
import random
import statistics
import time
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS605", "fix"
WARMUP, SAMPLES, ITERATIONS = 64, 12, 16


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
    # The median over SAMPLES batches of ITERATIONS calls (requests), after WARMUP calls, in
    # milliseconds per call; each batch ends when the device has finished its work.
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


WIDTH = 256
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(),
                            torch.nn.Linear(WIDTH, WIDTH)).cuda()
# Requests whose batch sizes are a shuffled 1..2048: nearly every one is a size not seen before.
sizes = list(range(1, 2049))
random.Random(0).shuffle(sizes)
requests = iter(sizes)
checks = []  # a few requests: their output against eager


def warm_up(static_x):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # eager warm-up before each capture
        model(static_x)
    torch.cuda.current_stream().wait_stream(side)


class Runner:
    def __init__(self):
        self.graphs = {}

    def __call__(self, x):
        n = x.shape[0]
        bs = 1 << (n - 1).bit_length()  # the bucket: the next power of two
        if bs not in self.graphs:
            static_x = torch.zeros(bs, WIDTH, device="cuda")
            warm_up(static_x)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                static_y = model(static_x)
            self.graphs[bs] = (g, static_x, static_y)
        g, static_x, static_y = self.graphs[bs]
        static_x[:n].copy_(x)
        g.replay()
        return static_y[:n]

runner = Runner()


def serve():
    n = next(requests)
    x = torch.randn(n, WIDTH, device="cuda")
    with torch.no_grad():
        y = runner(x)
        if len(checks) < 8:
            checks.append(torch.allclose(y, model(x), rtol=1e-4, atol=1e-5))


try:
    ms = per_iteration_ms(serve)
except Exception as exc:  # the error text is the measurement
    emit(None, True, describe(exc))
torch.cuda.synchronize()
emit(all(checks), True, timing={"ms_per_iteration": ms, "samples": SAMPLES,
                                "iterations": ITERATIONS, "warmup": WARMUP})
