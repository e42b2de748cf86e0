"""GS204 autocast-cache, bug: the capture sits inside an autocast context whose cache already holds
the FP16 copy of the weight; the graph reads that copy and never sees the weight change."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS204", "bug"


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


x = torch.ones(1, 1, device="cuda")
w = torch.ones(1, 1, device="cuda", requires_grad=True)
expected = [1.0, 2.0]  # before and after w is set to 2

g = torch.cuda.CUDAGraph()
side = torch.cuda.Stream()
try:
    with torch.autocast("cuda", dtype=torch.float16):
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                y = x @ w  # warm-up; also fills the cast cache
        torch.cuda.current_stream().wait_stream(side)
        with torch.cuda.graph(g):  # hazard: GS204
            y = x @ w
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

observed = []
g.replay()
observed.append(y.item())
with torch.no_grad():
    w.fill_(2.0)
g.replay()
observed.append(y.item())
emit(observed, expected)
