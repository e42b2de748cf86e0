"""GS103 frozen-scalar, bug (lazy capture): a sampler captures on its first call and replays on
every later one; the temperature of the first call is copied into the captured kernel, so later
calls with other temperatures get the first one's result."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS103", "bug"


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


TEMPERATURES = [1.0, 2.0, 4.0, 0.5]


class Sampler:
    def __init__(self):
        self.graph = None
        self.out = None

    def sample(self, logits: torch.Tensor, temperature: float):
        if self.graph is None:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    logits / temperature
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.out = logits / temperature  # hazard: GS103
        self.graph.replay()
        return self.out


logits = torch.full((1,), 8.0, device="cuda")
expected = [8.0 / t for t in TEMPERATURES]
sampler = Sampler()
observed = []
try:
    observed.append(sampler.sample(logits, TEMPERATURES[0]).item())
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))
for temperature in TEMPERATURES[1:]:
    observed.append(sampler.sample(logits, temperature).item())  # replays with 1.0
emit(observed, expected)
