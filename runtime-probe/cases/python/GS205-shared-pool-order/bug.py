"""GS205 shared-pool-order, bug: graph 2 was captured into graph 1's pool as if it always runs after
graph 1; replayed the other way round, graph 1's scratch lands on graph 2's output."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS205", "bug"


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


x1 = torch.full((1,), 1.0, device="cuda")
x2 = torch.full((1,), 2.0, device="cuda")
expected = [8.0, 4.0]  # y1 = 1 * 3 + 5, y2 = 2 ** 2


def func1(x):
    t = x * 3  # scratch, freed at the end of the capture
    return t + 5


def func2(x):
    return x ** 2


side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        y1 = func1(x1)
        y2 = func2(x2)
torch.cuda.current_stream().wait_stream(side)

g1 = torch.cuda.CUDAGraph()
g2 = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g1):
        y1 = func1(x1)
    with torch.cuda.graph(g2, pool=g1.pool()):
        y2 = func2(x2)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

g2.replay()  # hazard: GS205
g1.replay()
emit([y1.item(), y2.item()], expected)
