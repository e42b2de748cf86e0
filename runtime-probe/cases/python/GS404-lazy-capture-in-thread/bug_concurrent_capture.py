"""GS404 lazy-capture-in-thread, bug (concurrent form): a graph is captured while a loader thread
keeps allocating and synchronizing; the loader's calls are illegal during a global-mode capture."""
# probe: run-alone
import json
import os
import threading
import time
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS404", "bug"


def emit(observed, expected, capture_error=None):
    # One result line, then leave at once: a failed capture can leave the CUDA context unusable.
    line = {"case": CASE, "rule": RULE, "kind": KIND, "observed": observed,
            "expected": expected, "capture_error": capture_error}
    print(json.dumps(line), flush=True)
    os._exit(0)


def describe(exc):
    # The error and the errors it interrupted, first line of each; where the raise happened when
    # there is no message to tell it apart.
    parts = []
    while exc is not None and len(parts) < 3:
        text = str(exc).strip().splitlines()
        where = exc.__traceback__
        while where is not None and where.tb_next is not None:
            where = where.tb_next
        if not text and where is not None:
            code = where.tb_frame.f_code
            text = [f"(raised in {Path(code.co_filename).name}:{where.tb_lineno}, {code.co_name})"]
        parts.append(f"{type(exc).__name__}: {text[0] if text else ''}")
        exc = exc.__context__
    return " <- ".join(parts)


x = torch.full((1024,), 1.0, device="cuda")
expected = [3.0, 5.0]  # x = 1, then x = 2


def step(x):
    y = x * 2 + 1
    for _ in range(2000):  # a long capture, as a real model's is
        y = y * 1
    return y


side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    y = step(x)
torch.cuda.current_stream().wait_stream(side)
torch.cuda.synchronize()

errors = []
stop = threading.Event()


def loader_worker():
    try:
        n = 0
        while not stop.is_set():
            n = n % 64 + 1
            batch = torch.empty(n * 262144, device="cuda")
            batch.fill_(1.0)
            torch.cuda.synchronize()
            del batch
            torch.cuda.empty_cache()  # so the next batch is a fresh cudaMalloc
    except Exception as exc:  # the error text is the measurement
        errors.append(describe(exc))


loader = threading.Thread(target=loader_worker)
loader.start()
time.sleep(0.05)

g = torch.cuda.CUDAGraph()
capture_failure = None
try:
    with torch.cuda.graph(g):  # hazard: GS404
        y = step(x)
except Exception as exc:  # the error text is the measurement
    capture_failure = describe(exc)
stop.set()
loader.join()

problems = ([f"capture: {capture_failure}"] if capture_failure else []) + [
    f"loader thread: {e}" for e in errors]
if capture_failure:
    emit(None, expected, "; ".join(problems))
observed = []
for v in (1.0, 2.0):
    x.fill_(v)
    g.replay()
    observed.append(y[0].item())
emit(observed, expected, "; ".join(problems) or None)
