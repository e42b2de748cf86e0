"""GS103 frozen-scalar, bug: a Python float learning rate is copied into the captured kernel's
arguments, so every replay applies the capture-time rate."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS103", "bug"


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


LRS = [1.0, 0.5, 0.25, 0.125]


def sgd_step(w, grad, lr):
    w.sub_(grad * lr)  # hazard: GS103


w = torch.full((1,), 10.0, device="cuda")
grad = torch.full((1,), 1.0, device="cuda")
expected = [10.0 - sum(LRS[: step + 1]) for step in range(len(LRS))]

lr = LRS[0]
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        sgd_step(w, grad, lr)
torch.cuda.current_stream().wait_stream(side)
w.fill_(10.0)  # undo the warm-up steps

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        sgd_step(w, grad, lr)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

observed = []
for step in range(len(LRS)):
    lr = LRS[step]  # the graph still holds LRS[0]
    g.replay()
    observed.append(w.item())
emit(observed, expected)
