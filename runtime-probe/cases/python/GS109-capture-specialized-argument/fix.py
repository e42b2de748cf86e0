"""GS109 capture-specialized-argument, fix: the same runner, but a call that passes a mask runs
eagerly: the graph is captured and replayed only for calls without one."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS109", "fix"


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


class Runner:
    def __init__(self):
        self.graph = None
        self.static_x = torch.zeros(4, device="cuda")
        self.static_out = None

    def compute(self, mask):
        y = self.static_x * 2
        if mask is not None:
            y = y * mask
        return y

    def forward(self, x, mask=None):
        if mask is not None:
            return float((x * 2 * mask).sum())  # eager: the graph has no mask
        self.static_x.copy_(x)
        if self.graph is None:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                self.compute(mask)  # warm-up
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(self.graph):
                    self.static_out = self.compute(mask)
            except Exception as exc:  # the error text is the measurement
                emit(None, EXPECTED, describe(exc))
        self.graph.replay()
        return float(self.static_out.sum())


x = torch.ones(4, device="cuda")
half = torch.tensor([1.0, 1.0, 0.0, 0.0], device="cuda")
EXPECTED = [8.0, 4.0, 4.0]
runner = Runner()
observed = [runner.forward(x)]  # captured here, with mask=None
observed.append(runner.forward(x, mask=half))
observed.append(runner.forward(x, half))
emit(observed, EXPECTED)
