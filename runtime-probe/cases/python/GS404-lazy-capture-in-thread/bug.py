"""GS404 lazy-capture-in-thread, bug: a reduce-overhead compiled step is first called from worker
threads, so its graph is recorded there, lazily, while another thread keeps launching CUDA work."""
# probe: run-alone
import json
import os
import threading
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


WORKERS = 8
CALLS = 4


def drafter_step(x):
    return x * 2 + 1


compiled_step = torch.compile(drafter_step, mode="reduce-overhead")

inputs = [torch.full((1024,), float(k), device="cuda") for k in range(WORKERS)]
expected = [2.0 * k + 1.0 for k in range(WORKERS)]
drafter_step(inputs[0])  # eager warm-up of the same work
torch.cuda.synchronize()

results = [None] * WORKERS
errors = []
stop = threading.Event()


def target_worker():
    a = torch.full((1024, 1024), 1e-3, device="cuda")
    while not stop.is_set():
        a = torch.tanh(a @ a)


def drafter_worker(k):
    try:
        for _ in range(CALLS):
            out = compiled_step(inputs[k])  # hazard: GS404
            value = out[0].item()
        results[k] = value
    except Exception as exc:  # the error text is the measurement
        errors.append(describe(exc))


target = threading.Thread(target=target_worker)
target.start()
drafters = [threading.Thread(target=drafter_worker, args=(k,)) for k in range(WORKERS)]
for t in drafters:
    t.start()
for t in drafters:
    t.join()
stop.set()
target.join()
torch.cuda.synchronize()

capture_error = None
if errors:
    capture_error = f"{len(errors)} of {WORKERS} drafter threads failed; first: {errors[0]}"
emit(results, expected, capture_error)
