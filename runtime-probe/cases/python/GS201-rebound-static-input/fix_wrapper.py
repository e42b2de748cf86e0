"""GS201 rebound-static-input, fix (capturing wrapper): the decorator copies the first call's
arguments into buffers of its own, captures the function on those, and copies each call's arguments
into them before replaying."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS201", "fix"


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
        self.static_args = None

    def __call__(self, *args):
        if self.graph is None:
            self.static_args = [a.clone() for a in args]
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    self.fn(*self.static_args)
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(self.graph):
                    self.out = self.fn(*self.static_args)
            except Exception as exc:  # the error text is the measurement
                emit(None, expected, describe(exc))
        for s, a in zip(self.static_args, args):
            s.copy_(a)  # new values, the captured addresses
        self.graph.replay()
        return self.out


@StaticCapture
def step(x):
    return x * 2 + 1


keep = []  # the same driver as bug_wrapper.py
observed = []
for v in VALUES:
    x = torch.full((4,), v, device="cuda")
    keep.append(x)
    out = step(x)
    observed.append(out.clone().tolist())
emit(observed, expected)
