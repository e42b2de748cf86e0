"""GS102 frozen-branch, bug: a Python `if` on the loop index is decided once, at capture (odd
index), and every replay repeats that branch."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS102", "bug"


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


def step(idx, x, y):
    if idx % 2 == 0:  # hazard: GS102
        z = x + y
    else:
        z = x - y
    return z * x


x = torch.full((1,), 2.0, device="cuda")
y = torch.full((1,), 1.0, device="cuda")
expected = [(3.0 if i % 2 == 0 else 1.0) * 2.0 for i in range(3, 8)]

g = torch.cuda.CUDAGraph()
side = torch.cuda.Stream()
observed = []
for i in range(8):
    if i < 3:
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            z = step(i, x, y)  # eager warm-up
        torch.cuda.current_stream().wait_stream(side)
        continue
    if i == 3:
        try:
            with torch.cuda.graph(g):
                z = step(i, x, y)
        except Exception as exc:  # the error text is the measurement
            emit(None, expected, describe(exc))
    g.replay()
    observed.append(z.item())
emit(observed, expected)
