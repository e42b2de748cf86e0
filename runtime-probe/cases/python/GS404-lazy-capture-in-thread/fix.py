"""GS404 lazy-capture-in-thread, fix: the compiled step is warmed up and recorded on the main thread
before any other thread starts; afterwards it only replays, on that same thread."""
# probe: run-alone
import json
import os
import threading
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS404", "fix"


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


BATCHES = 8


def drafter_step(x):
    return x * 2 + 1


compiled_step = torch.compile(drafter_step, mode="reduce-overhead")

inputs = [torch.full((1024,), float(k), device="cuda") for k in range(BATCHES)]
expected = [2.0 * k + 1.0 for k in range(BATCHES)]
drafter_step(inputs[0])  # eager warm-up of the same work
for _ in range(3):  # warm-up run, recording, first replay: all before any thread starts
    compiled_step(inputs[0])
torch.cuda.synchronize()

stop = threading.Event()


def target_worker():
    a = torch.full((1024, 1024), 1e-3, device="cuda")
    while not stop.is_set():
        a = torch.tanh(a @ a)


target = threading.Thread(target=target_worker)
target.start()
observed = []
for k in range(BATCHES):
    out = compiled_step(inputs[k])
    observed.append(out[0].item())
stop.set()
target.join()
torch.cuda.synchronize()
emit(observed, expected)
