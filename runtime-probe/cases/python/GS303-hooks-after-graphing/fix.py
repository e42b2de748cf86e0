"""GS303 hooks-after-graphing, fix: one hook on the top-level module, which still runs, walks the
submodules itself."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS303", "fix"


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
expected = sorted(names)  # every module visited, once

try:
    model = torch.cuda.make_graphed_callables(model, (inp,))
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

fired = []


def top_level_hook(module, args, output):
    for name, _ in module.named_modules():
        fired.append(name)


model.register_forward_hook(top_level_hook)
model(inp)
torch.cuda.synchronize()
emit(sorted(fired), expected)
