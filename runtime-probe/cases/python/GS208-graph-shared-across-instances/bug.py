"""GS208 graph-shared-across-instances, bug: a scaler that captures one graph per batch size keeps
its graphs in a class attribute, keyed by the batch size alone. The second instance finds the
first one's graph under the same size and replays it: the graph reads the first instance's input
buffer and scale, so b returns a's result for a's last input."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS208", "bug"


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


class Scaler:
    _graphs = {}  # one dict for every instance

    def __init__(self, scale):
        self.scale = torch.full((4,), scale, device="cuda")
        self.static_in = torch.zeros(4, device="cuda")

    def run(self, x):
        self.static_in.copy_(x)
        size = x.shape[0]
        if size not in Scaler._graphs:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                self.static_in * self.scale  # warm-up
            torch.cuda.current_stream().wait_stream(side)
            g = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(g):
                    out = self.static_in * self.scale
            except Exception as exc:  # the error text is the measurement
                emit(None, EXPECTED, describe(exc))
            Scaler._graphs[size] = (g, out)  # hazard: GS208
        graph, static_out = Scaler._graphs[size]
        graph.replay()
        return float(static_out.sum())


a = Scaler(2.0)
b = Scaler(3.0)
calls = [(a, 2.0, 1.0), (b, 3.0, 5.0), (a, 2.0, 2.0), (b, 3.0, 7.0)]
EXPECTED = [scale * value * 4 for _, scale, value in calls]
observed = [scaler.run(torch.full((4,), value, device="cuda")) for scaler, _, value in calls]
emit(observed, EXPECTED)
