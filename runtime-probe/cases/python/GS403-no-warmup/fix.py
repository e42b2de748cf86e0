"""GS403 no-warmup, fix: eager warm-up iterations on a side stream before each capture create the
cuBLAS handle, the workspace and the optimizer state outside it."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS403", "fix"


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


GRADS = [1.0, 1.0, 1.0, -1.0, 0.5, 2.0]  # three warm-up steps, then one per replay
WARMUP = 3

a = torch.full((8, 8), 1.0, device="cuda")
b = torch.full((8, 8), 2.0, device="cuda")

ref = torch.nn.Parameter(torch.full((4,), 1.0, device="cuda"))
ref_opt = torch.optim.Adam([ref], lr=0.1)
expected_steps = []
for gv in GRADS:  # the eager reference
    ref.grad = torch.full_like(ref, gv)
    ref_opt.step()
    expected_steps.append(ref[0].item())
expected = [[[16.0] * 8] * 8, expected_steps[WARMUP:]]

w = torch.nn.Parameter(torch.full((4,), 1.0, device="cuda"))
opt = torch.optim.Adam([w], lr=0.1, capturable=True)
w.grad = torch.zeros_like(w)  # static gradient buffer

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for gv in GRADS[:WARMUP]:
        c = a @ b
        w.grad.fill_(gv)
        opt.step()
torch.cuda.current_stream().wait_stream(side)

g_mm = torch.cuda.CUDAGraph()
g_opt = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g_mm):
        c = a @ b
    with torch.cuda.graph(g_opt):
        opt.step()
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

g_mm.replay()
product = c.tolist()
steps = []
for gv in GRADS[WARMUP:]:
    w.grad.fill_(gv)
    g_opt.replay()
    steps.append(w[0].item())
emit([product, steps], expected)
