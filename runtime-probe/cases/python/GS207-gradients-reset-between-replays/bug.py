"""GS207 gradients-reset-between-replays, bug: the graph holds forward and backward, and the
training loop calls opt.zero_grad() before each replay. Its default set_to_none=True drops the
.grad tensors the graph writes; the replay still writes the old buffers, but every parameter's
.grad stays None, so opt.step() skips them all and the weights never change."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS207", "bug"


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

static_x = torch.ones(2, 4, device="cuda")
static_y = torch.ones(2, 1, device="cuda")


def make_model():
    model = torch.nn.Linear(4, 1, bias=False, device="cuda")
    with torch.no_grad():
        model.weight.fill_(W0)
    return model


# The eager reference: the same steps on a copy, no graph.
ref_model = make_model()
ref_opt = torch.optim.SGD(ref_model.parameters(), lr=LR)
expected = []
for _ in range(STEPS):
    ref_opt.zero_grad(set_to_none=False)
    ref_loss = ((ref_model(static_x) - static_y) ** 2).mean()
    ref_loss.backward()
    ref_opt.step()
    expected.append(ref_model.weight.detach().flatten().tolist())

model = make_model()
opt = torch.optim.SGD(model.parameters(), lr=LR)

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):  # forward and backward; no step, so the weights stay W0
        # the loss is not kept: a live autograd graph from the side stream would carry the
        # weight's AccumulateGrad node, and that stream, into the capture
        ((model(static_x) - static_y) ** 2).mean().backward()
torch.cuda.current_stream().wait_stream(side)
opt.zero_grad(set_to_none=False)  # the grads exist now; the captured backward adds into them

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        loss = ((model(static_x) - static_y) ** 2).mean()
        loss.backward()
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

observed = []
for _ in range(STEPS):
    opt.zero_grad()  # hazard: GS207
    g.replay()
    opt.step()  # every .grad is None: nothing to do
    observed.append(model.weight.detach().flatten().tolist())
emit(observed, expected)
