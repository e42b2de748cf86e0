"""GS206 graphed-callables-order, fix: all forwards in tuple order, then the backwards in reverse,
the order make_graphed_callables captured them in."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS206", "fix"


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


def func(x):
    return x ** 2 + 2 * x + 1  # d/dx = 2x + 2


x0 = torch.full((1,), 1.0, device="cuda", requires_grad=True)
x1 = torch.full((1,), 2.0, device="cuda", requires_grad=True)
x2 = torch.full((1,), 3.0, device="cuda", requires_grad=True)
expected = [4.0, 6.0, 8.0]

try:
    graphed = torch.cuda.make_graphed_callables((func, func, func), ((x0,), (x1,), (x2,)))
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))
for x in (x0, x1, x2):
    x.grad = None  # drop what the built-in warm-up accumulated

ys = [g(x) for g, x in zip(graphed, (x0, x1, x2))]
for y in reversed(ys):
    y.backward()
emit([x0.grad.item(), x1.grad.item(), x2.grad.item()], expected)
