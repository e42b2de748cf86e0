"""GS401 host-sync, bug (`torch.cuda.synchronize()`): a device-wide sync inside the capture is
refused and invalidates it."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS401", "bug"


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


def step(x):
    y = x * 2
    torch.cuda.synchronize()  # hazard: GS401
    return y + 1


x = torch.arange(1, 5, device="cuda", dtype=torch.float32)
expected = [3.0, 5.0, 7.0, 9.0]

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        y = step(x)
torch.cuda.current_stream().wait_stream(side)

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        y = step(x)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

g.replay()
emit(y.tolist(), expected)
