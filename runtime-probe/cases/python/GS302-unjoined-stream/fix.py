"""GS302 unjoined-stream, fix: the capture stream waits on the side stream before the capture
ends, joining it back."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS302", "fix"


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


helper_stream = torch.cuda.Stream()


def step(x):
    y = x + 1
    helper_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(helper_stream):
        z = y * 2
    torch.cuda.current_stream().wait_stream(helper_stream)
    return z


x = torch.zeros(1, device="cuda")
inputs = [0.0, 1.0, 2.0]
expected = [(v + 1.0) * 2.0 for v in inputs]

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        out = step(x)
torch.cuda.current_stream().wait_stream(side)
torch.cuda.synchronize()

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        out = step(x)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

observed = []
for v in inputs:
    x.fill_(v)
    g.replay()
    observed.append(out.item())
emit(observed, expected)
