"""GS303 hooks-after-graphing, bug: forward hooks registered on submodules after
make_graphed_callables never fire: the graphed forward replays without calling them."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS303", "bug"


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


torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(16, 16), torch.nn.Linear(16, 16), torch.nn.Linear(16, 16)).cuda()
inp = torch.randn(4, 16, device="cuda")
names = [name for name, _ in model.named_modules()]
expected = sorted(names)  # every module's hook, once

try:
    model = torch.cuda.make_graphed_callables(model, (inp,))
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

fired = []


def make_hook(name):
    def hook(module, args, output):
        fired.append(name)
    return hook


for name, module in model.named_modules():
    module.register_forward_hook(make_hook(name))  # hazard: GS303
model(inp)
torch.cuda.synchronize()
emit(sorted(fired), expected)
