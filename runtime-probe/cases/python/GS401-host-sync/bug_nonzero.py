"""GS401 host-sync, bug (`nonzero`): an op whose output size depends on the data must read that
size on the host, a sync that capture refuses."""
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


def positive_sum(x):
    idx = torch.nonzero(x > 0)  # hazard: GS401
    return x[idx].sum()


x = torch.tensor([1.0, -2.0, 3.0, -4.0], device="cuda")
expected = 4.0

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        y = positive_sum(x)
torch.cuda.current_stream().wait_stream(side)

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        y = positive_sum(x)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

g.replay()
emit(y.item(), expected)
