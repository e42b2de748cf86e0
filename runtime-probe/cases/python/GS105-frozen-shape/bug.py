"""GS105 frozen-shape, bug: a slice bound from a Python int fixes the launch size at capture, so
later, longer batches are cut to the captured length."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS105", "bug"


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


def scale_prefix(buf, n):
    return buf[:n] * 2  # hazard: GS105


buf = torch.zeros(8, device="cuda")
lengths = [4, 8, 6]
expected = [[2.0 * (k + 1) for k in range(n)] for n in lengths]

n = lengths[0]
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        out = scale_prefix(buf, n)
torch.cuda.current_stream().wait_stream(side)

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        out = scale_prefix(buf, n)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

observed = []
for n in lengths:
    buf.zero_()
    buf[:n].copy_(torch.arange(1, n + 1, device="cuda", dtype=torch.float32))
    g.replay()
    observed.append(out.tolist())
emit(observed, expected)
