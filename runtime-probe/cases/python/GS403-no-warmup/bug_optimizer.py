"""GS403 no-warmup, bug (optimizer form): the first optimizer step runs inside the capture,
so its state is created there; the zero-fill of that state is recorded, and every replay starts
Adam over."""
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


GRADS = [1.0, -1.0, 0.5, 2.0]

ref = torch.nn.Parameter(torch.full((4,), 1.0, device="cuda"))
ref_opt = torch.optim.Adam([ref], lr=0.1)
expected = []
for gv in GRADS:  # the eager reference
    ref.grad = torch.full_like(ref, gv)
    ref_opt.step()
    expected.append(ref[0].item())

w = torch.nn.Parameter(torch.full((4,), 1.0, device="cuda"))
opt = torch.optim.Adam([w], lr=0.1, capturable=True)
w.grad = torch.zeros_like(w)  # static gradient buffer

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):  # hazard: GS403
        opt.step()
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

observed = []
for gv in GRADS:
    w.grad.fill_(gv)
    g.replay()
    observed.append(w[0].item())
emit(observed, expected)
