"""GS107 state-changed-once, fix: the graph holds the forward and the scaled backward only;
unscale_, clipping, step and update run eagerly after each replay, so GradScaler's bookkeeping
happens on every step."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS107", "fix"


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


W0 = 0.5  # every weight starts here
STEPS = 4
LR = 0.1
MAX_NORM = 1e9  # so large that clipping never changes a gradient

static_x = torch.ones(2, 4, device="cuda")
static_y = torch.ones(2, 1, device="cuda")


def make_model():
    model = torch.nn.Linear(4, 1, bias=False, device="cuda")
    with torch.no_grad():
        model.weight.fill_(W0)
    return model


def make_scaler():
    # growth_interval far beyond this run: the scale stays 65536 (no inf or nan occurs either)
    return torch.amp.GradScaler("cuda", init_scale=65536.0, growth_interval=1000000)


# The eager reference: the same steps on a copy, no graph.
ref_model = make_model()
ref_opt = torch.optim.SGD(ref_model.parameters(), lr=LR)
ref_scaler = make_scaler()
expected = []
for _ in range(STEPS):
    ref_opt.zero_grad(set_to_none=False)
    ref_loss = ((ref_model(static_x) - static_y) ** 2).mean()
    ref_scaler.scale(ref_loss).backward()
    ref_scaler.unscale_(ref_opt)
    torch.nn.utils.clip_grad_norm_(ref_model.parameters(), MAX_NORM)
    ref_scaler.step(ref_opt)
    ref_scaler.update()
    expected.append(ref_model.weight.detach().flatten().tolist())

model = make_model()
opt = torch.optim.SGD(model.parameters(), lr=LR)
scaler = make_scaler()

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):  # the full step, eagerly
        opt.zero_grad(set_to_none=False)
        # the loss is not kept: a live autograd graph from the side stream would carry the
        # weight's AccumulateGrad node, and that stream, into the capture
        scaler.scale(((model(static_x) - static_y) ** 2).mean()).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
        scaler.step(opt)
        scaler.update()
torch.cuda.current_stream().wait_stream(side)
with torch.no_grad():
    model.weight.fill_(W0)  # undo the warm-up's steps, in place
opt.zero_grad(set_to_none=False)  # the grads exist now; the captured backward adds into them

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        out = model(static_x)
        loss = ((out - static_y) ** 2).mean()
        scaler.scale(loss).backward()
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

observed = []
for _ in range(STEPS):
    opt.zero_grad(set_to_none=False)  # in place: the graph writes these buffers
    g.replay()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
    scaler.step(opt)
    scaler.update()
    observed.append(model.weight.detach().flatten().tolist())
emit(observed, expected)
