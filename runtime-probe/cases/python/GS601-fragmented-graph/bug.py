"""GS601 fragmented-graph, bug: a step compiled with mode="reduce-overhead" that Dynamo breaks
twice, at a `.item()` and at a branch on a tensor: every call runs three CUDA graphs with a return
to Python and a host synchronization between them. Timing case: the values are right, the time
per call is the measurement."""
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


def block(x, first):
    for layer in layers[first:first + 4]:
        x = torch.tanh(layer(x))
    return x


def eager_step(x):
    x = block(x, 0)
    if x.abs().max().item() > 1e4:
        x = x * 0.5
    x = block(x, 4)
    if x.sum() > -1e9:
        x = block(x, 8)
    return x


@torch.compile(mode="reduce-overhead")  # hazard: GS601
def step(x):
    x = block(x, 0)
    if x.abs().max().item() > 1e4:  # a graph break: the value goes to the host
        x = x * 0.5
    x = block(x, 4)
    if x.sum() > -1e9:  # a graph break: a branch on a tensor
        x = block(x, 8)
    return x


x = torch.randn(8, 64, device="cuda")
expected = True  # the compiled step gives eager's values (to 1e-4: Inductor fuses differently)
with torch.no_grad():
    reference = eager_step(x)
    try:
        for _ in range(3):  # compile, warm up, record
            torch.compiler.cudagraph_mark_step_begin()
            step(x)
    except Exception as exc:  # the error text is the measurement
        emit(None, expected, describe(exc))

    def call():
        torch.compiler.cudagraph_mark_step_begin()
        step(x)

    ms = per_iteration_ms(call)
    torch.compiler.cudagraph_mark_step_begin()
    observed = torch.allclose(step(x), reference, rtol=1e-4, atol=1e-5)
torch.cuda.synchronize()
emit(observed, expected, timing={"ms_per_iteration": ms, "samples": SAMPLES,
                                 "iterations": ITERATIONS, "warmup": WARMUP})
