"""GS108 skipped-at-capture, fix: the same step and the same routing, but every
parameter is given a gradient buffer before the warm-up and the capture (`p.grad =
torch.zeros_like(p)`), so the captured step updates both, and the later backwards add into the
buffers the graph reads."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS108", "fix"


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


LR = 0.5
STEPS = 4

x = torch.full((4,), 2.0, device="cuda")


def make_params():
    return [torch.ones(4, device="cuda", requires_grad=True) for _ in range(2)]


def loss_of(params, step):
    # The first step routes through w1 only; from the second on, through both.
    w1, w2 = params
    if step == 0:
        return (w1 * x).sum()
    return (w1 * x).sum() + (w2 * x).sum()


def sgd_step(params):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p.sub_(p.grad * LR)


def zero_existing(params):
    for p in params:
        if p.grad is not None:
            p.grad.zero_()


def sums(params):
    return [float(p.detach().sum()) for p in params]


# The eager reference: the same steps, no graph.
ref = make_params()
expected = []
for step in range(STEPS):
    zero_existing(ref)
    loss_of(ref, step).backward()
    sgd_step(ref)
    expected.append(sums(ref))

params = make_params()
for p in params:
    p.grad = torch.zeros_like(p)  # every parameter has a gradient at capture
observed = []
# Step 0 eagerly: its backward, then the step as the warm-up of the capture (on a side stream).
loss_of(params, 0).backward()
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    sgd_step(params)
torch.cuda.current_stream().wait_stream(side)
observed.append(sums(params))

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        sgd_step(params)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

for step in range(1, STEPS):
    zero_existing(params)
    loss_of(params, step).backward()  # w2 gets a gradient from now on
    g.replay()
    observed.append(sums(params))
emit(observed, expected)
