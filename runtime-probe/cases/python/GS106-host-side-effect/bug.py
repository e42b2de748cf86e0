"""GS106 host-side-effect, bug: a Python counter bumped inside the captured step moves once, at
capture; replays never run it, so code outside the graph reads a frozen count."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS106", "bug"


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


state = [0]


def step(x):
    y = x * 2
    state[0] += 1  # hazard: GS106
    return y


x = torch.full((1,), 1.0, device="cuda")

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    y = step(x)  # warm-up: one real step
torch.cuda.current_stream().wait_stream(side)

g = torch.cuda.CUDAGraph()
replays = 4
expected = [float(1 + k) for k in range(1, replays + 1)]  # warm-up + each replay
try:
    with torch.cuda.graph(g):
        y = step(x)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

observed = []
for _ in range(replays):
    g.replay()
    observed.append(float(state[0]))
emit(observed, expected)
