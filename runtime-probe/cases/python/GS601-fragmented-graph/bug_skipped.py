"""GS601 fragmented-graph, bug (skipped): a step compiled with mode="reduce-overhead" that updates
one of its inputs in place. Inductor skips CUDA graphs for the whole step ("skipping cudagraphs due
to mutated inputs") and launches its kernels one by one on every call. Timing case: the values are
right, the time per call is the measurement."""
import json
import os
import statistics
import time
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS601", "bug"
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


torch.manual_seed(0)
layers = [torch.nn.Linear(64, 64).cuda() for _ in range(12)]


def eager_step(x, state):
    state.copy_(x * 2)
    h = state
    for layer in layers:
        h = torch.tanh(layer(h))
    return h


@torch.compile(mode="reduce-overhead")  # hazard: GS601
def step(x, state):
    state.copy_(x * 2)  # updates an input in place: Inductor skips CUDA graphs for the step
    h = state
    for layer in layers:
        h = torch.tanh(layer(h))
    return h


x = torch.randn(8, 64, device="cuda")
state = torch.zeros(8, 64, device="cuda")
expected = True  # the compiled step gives eager's values (to 1e-4: Inductor fuses differently)
with torch.no_grad():
    reference = eager_step(x, torch.zeros(8, 64, device="cuda"))
    try:
        for _ in range(3):  # compile, warm up, record
            torch.compiler.cudagraph_mark_step_begin()
            step(x, state)
    except Exception as exc:  # the error text is the measurement
        emit(None, expected, describe(exc))

    def call():
        torch.compiler.cudagraph_mark_step_begin()
        step(x, state)

    ms = per_iteration_ms(call)
    torch.compiler.cudagraph_mark_step_begin()
    observed = torch.allclose(step(x, state), reference, rtol=1e-4, atol=1e-5)
torch.cuda.synchronize()
emit(observed, expected, timing={"ms_per_iteration": ms, "samples": SAMPLES,
                                 "iterations": ITERATIONS, "warmup": WARMUP})
