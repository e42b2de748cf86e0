"""GS203 output-kept-without-clone, fix (kept by the caller): the function that keeps the
runner's results keeps a clone of each, taken right after its replay."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS203", "fix"


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


VALUES = [0.0, 1.0, 2.0, 3.0]
expected = [[v * 3 + 1] * 4 for v in VALUES]


class Runner:
    def __init__(self):
        self.static_in = torch.zeros(4, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                self.static_in * 3 + 1
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(self.graph):
                self.static_out = self.static_in * 3 + 1
        except Exception as exc:  # the error text is the measurement
            emit(None, expected, describe(exc))

    def run(self, x):
        self.static_in.copy_(x)
        self.graph.replay()
        return self.static_out


def collect(runner, values):
    outs = []
    for v in values:
        outs.append(runner.run(torch.full((4,), v, device="cuda")).clone())
    return outs


outs = collect(Runner(), VALUES)
emit([t.tolist() for t in outs], expected)
