"""GS201 rebound-static-input, bug (capturing wrapper): a decorator captures the function on its
first call and replays on every later one, but the graph keeps reading the first call's argument;
each later call passes a new tensor, so every call returns the first call's result."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS201", "bug"


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


VALUES = [1.0, 2.0, 3.0, 4.0]
expected = [[v * 2 + 1] * 4 for v in VALUES]


class StaticCapture:
    def __init__(self, fn):
        self.fn = fn
        self.graph = None
        self.out = None

    def __call__(self, *args):
        if self.graph is None:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    self.fn(*args)
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(self.graph):
                    self.out = self.fn(*args)
            except Exception as exc:  # the error text is the measurement
                emit(None, expected, describe(exc))
        self.graph.replay()
        return self.out


@StaticCapture
def step(x):
    return x * 2 + 1


keep = []  # every input stays alive, so no later tensor gets the first one's block
observed = []
for v in VALUES:
    x = torch.full((4,), v, device="cuda")
    keep.append(x)
    out = step(x)  # hazard: GS201
    observed.append(out.clone().tolist())
emit(observed, expected)
