"""GS201 rebound-static-input, fix: one norm buffer per number of gradients, kept with its graph,
so a replay writes the buffer the helper returns."""
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


class NormBuffer:
    def __init__(self):
        self.graphs = {}

    def norms(self, grads):
        n = len(grads)
        if n not in self.graphs:
            norm = torch.zeros(n, device="cuda")
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                torch.stack([g.sum() for g in grads], out=norm)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                torch.stack([g.sum() for g in grads], out=norm)
            self.graphs[n] = (graph, norm)
        graph, norm = self.graphs[n]
        graph.replay()
        return norm


grads2 = [torch.full((4,), 1.0, device="cuda"), torch.full((4,), 2.0, device="cuda")]
grads3 = grads2 + [torch.full((4,), 3.0, device="cuda")]
helper = NormBuffer()
# The last item: a tensor made between the calls, where the freed buffer's memory may go.
expected = [[4.0, 8.0], [4.0, 8.0, 12.0], [4.0, 8.0], [-1.0, -1.0]]
observed = []
try:
    observed.append(helper.norms(grads2).tolist())
    observed.append(helper.norms(grads3).tolist())
    other = torch.full((2,), -1.0, device="cuda")
    observed.append(helper.norms(grads2).tolist())
    observed.append(other.tolist())
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))
emit(observed, expected)
