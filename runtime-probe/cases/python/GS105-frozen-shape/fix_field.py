"""GS105 frozen-shape, fix: the offset lives in a device tensor that the decode loop advances in
place, and the step writes through it with index_copy_, so every replay writes the current
position."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS105", "fix"


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


class DecodeState:
    def __init__(self):
        self.offset = torch.zeros(1, dtype=torch.long, device="cuda")


def write_step(cache, kv, state):
    cache.index_copy_(0, state.offset, kv)


cache = torch.zeros(4, device="cuda")
kv = torch.zeros(1, device="cuda")
state = DecodeState()
expected = [[1.0, 0.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [1.0, 2.0, 3.0, 0.0],
            [1.0, 2.0, 3.0, 4.0]]

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        write_step(cache, kv, state)
torch.cuda.current_stream().wait_stream(side)
cache.zero_()

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        write_step(cache, kv, state)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

observed = []
for token in range(4):
    kv.fill_(token + 1.0)
    g.replay()
    observed.append(cache.tolist())
    state.offset.add_(1)
emit(observed, expected)
