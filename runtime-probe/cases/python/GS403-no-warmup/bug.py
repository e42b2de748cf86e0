"""GS403 no-warmup, bug: the first matrix product of the process runs inside the capture, so the
cuBLAS handle and workspace are created there."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS403", "bug"


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


a = torch.full((8, 8), 1.0, device="cuda")
b = torch.full((8, 8), 2.0, device="cuda")
expected = [[16.0] * 8] * 8

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):  # hazard: GS403
        c = a @ b
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

g.replay()
emit(c.tolist(), expected)
